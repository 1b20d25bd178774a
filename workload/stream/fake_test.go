package stream

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
)

// fakeDB is a minimal adapter with a stream: a slice per partition under a
// mutex. Knobs make it slow, lossy or duplicating to show that the
// workload's checks can fail.
type fakeDB struct {
	readDelay  map[int]time.Duration // per partition: sleep before each read
	readMax    int                   // cap on rows per read (0 = no cap)
	dropNth    int64                 // drop the nth row produced (1-based, 0 = none)
	dupNth     int64                 // deliver the nth row twice
	swapNth    int64                 // deliver the nth row after the next one of its partition
	growOnly   bool                  // streams cannot lose partitions (adapters.GrowOnlyStream)
	stash      []byte
	produceErr atomic.Bool
	rows       atomic.Int64
	streams    atomic.Int64
}

func (*fakeDB) Read(context.Context, string, string, []string, []adapters.Field) ([]adapters.Field, error) {
	return nil, adapters.ErrNotFound
}
func (*fakeDB) Scan(context.Context, string, string, int, []string, []adapters.Record) ([]adapters.Record, error) {
	return nil, nil
}
func (*fakeDB) Update(context.Context, string, string, []adapters.Field) error { return nil }
func (*fakeDB) Insert(context.Context, string, string, []adapters.Field) error { return nil }
func (*fakeDB) Delete(context.Context, string, string) error                   { return nil }
func (*fakeDB) Close() error                                                   { return nil }

func (f *fakeDB) OpenStream(_ context.Context, name string, n int) (adapters.Stream, error) {
	f.streams.Add(1)
	s := &fakeStream{f: f, name: name}
	s.cond = sync.NewCond(&s.mu)
	s.ensure(n)
	if f.growOnly {
		return growOnlyStream{s}, nil
	}
	return s, nil
}

// errFakeShrink is the grow-only fake's refusal.
var errFakeShrink = errors.New("fake streams cannot remove partitions")

type growOnlyStream struct{ *fakeStream }

func (growOnlyStream) ShrinkError(from, to int) error {
	return fmt.Errorf("%w (%d to %d)", errFakeShrink, from, to)
}

type fakeStream struct {
	f      *fakeDB
	name   string
	mu     sync.Mutex
	cond   *sync.Cond
	parts  [][][]byte
	closed bool
}

func (s *fakeStream) ensure(n int) {
	for len(s.parts) < n {
		s.parts = append(s.parts, nil)
	}
}

func (s *fakeStream) Partitions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.parts)
}

func (s *fakeStream) EnsurePartitions(_ context.Context, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ensure(n)
	return nil
}

func (s *fakeStream) Produce(_ context.Context, rows []adapters.StreamRow) error {
	if s.f.produceErr.Load() {
		return errors.New("injected produce failure")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rows {
		if r.Partition >= len(s.parts) {
			return fmt.Errorf("no partition %d", r.Partition)
		}
		b := append([]byte(nil), r.Data...)
		n := int64(0)
		if b[0] == kindData {
			n = s.f.rows.Add(1)
		}
		p := &s.parts[r.Partition]
		switch {
		case n > 0 && n == s.f.dropNth:
			continue
		case n > 0 && n == s.f.dupNth:
			*p = append(*p, b, b)
		case n > 0 && s.f.swapNth > 0 && n == s.f.swapNth:
			s.f.stash = b
		case n > 0 && s.f.swapNth > 0 && n == s.f.swapNth+1:
			*p = append(*p, b, s.f.stash)
		default:
			*p = append(*p, b)
		}
	}
	s.cond.Broadcast()
	return nil
}

func (s *fakeStream) Reader(_ context.Context, p int) (adapters.StreamReader, error) {
	return &fakeReader{s: s, p: p}, nil
}

func (s *fakeStream) Describe() string { return "fake " + s.name }

func (s *fakeStream) Close(context.Context) error {
	s.mu.Lock()
	s.closed = true
	s.cond.Broadcast()
	s.mu.Unlock()
	return nil
}

type fakeReader struct {
	s   *fakeStream
	p   int
	off int
}

func (r *fakeReader) Read(ctx context.Context, dst [][]byte, max int) ([][]byte, error) {
	if d := r.s.f.readDelay[r.p]; d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return dst, ctx.Err()
		}
	}
	if r.s.f.readMax > 0 {
		max = min(max, r.s.f.readMax)
	}
	s := r.s
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	deadline := time.Now().Add(100 * time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	for r.off >= len(s.parts[r.p]) {
		if ctx.Err() != nil {
			return dst, ctx.Err()
		}
		if s.closed {
			return dst, errors.New("closed")
		}
		if time.Now().After(deadline) {
			return dst, nil
		}
		// Wake at least every 10 ms to honour the poll time.
		t := time.AfterFunc(10*time.Millisecond, func() { s.mu.Lock(); s.cond.Broadcast(); s.mu.Unlock() })
		s.cond.Wait()
		t.Stop()
	}
	for r.off < len(s.parts[r.p]) && max > 0 {
		dst = append(dst, s.parts[r.p][r.off])
		r.off++
		max--
	}
	return dst, nil
}

func (r *fakeReader) Close() error { return nil }
