package memory

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
)

// The embedded partitioned log behind the stream workload.
//
// Each partition is a singly linked list of chunks of bytes holding
// length-prefixed rows. The writer appends under the partition's mutex and
// publishes each chunk's filled length with an atomic store; the reader
// (one per partition) reads up to that length without any lock, and only
// takes the mutex to sleep when it has caught up. A chunk the reader has
// passed is recycled at its next Read (rows handed out stay valid until
// then), so memory follows the consumer lag, not the rows ever written.

// logChunkSize is the size of a log chunk; rows larger than a chunk get a
// chunk of their own.
const logChunkSize = 64 << 10

// logPollTime is how long an idle Read waits before it returns no rows.
const logPollTime = 200 * time.Millisecond

var _ adapters.Streamer = (*DB)(nil)

// OpenStream returns a new, empty in-process partitioned log. It shares
// nothing with the key-value tables and lives until Close.
func (db *DB) OpenStream(_ context.Context, name string, partitions int) (adapters.Stream, error) {
	if partitions < 1 || partitions > MaxPartitions {
		return nil, fmt.Errorf("memory: stream %s: %w", name, partitionsError(fmt.Sprint(partitions)))
	}
	s := &memStream{name: name}
	s.parts.Store(&[]*logPart{})
	if err := s.EnsurePartitions(context.Background(), partitions); err != nil {
		return nil, err
	}
	return s, nil
}

type memStream struct {
	name   string
	mu     sync.Mutex // serialises EnsurePartitions and Close
	parts  atomic.Pointer[[]*logPart]
	closed atomic.Bool
	pool   sync.Pool // of *logChunk with a logChunkSize buffer
}

type logChunk struct {
	buf       []byte
	committed atomic.Int64 // bytes of buf that hold complete rows
	next      atomic.Pointer[logChunk]
}

type logPart struct {
	s  *memStream
	mu sync.Mutex // the writer's lock
	// tail is the chunk being written (mu).
	tail *logChunk
	// head is the first chunk, held only until the reader takes it.
	head   *logChunk
	reader bool
	// The reader sleeps on wake when it has caught up.
	waiting bool
	wake    chan struct{}
	closed  chan struct{}
}

func (s *memStream) newChunk(need int) *logChunk {
	if need > logChunkSize {
		return &logChunk{buf: make([]byte, need)}
	}
	if c, ok := s.pool.Get().(*logChunk); ok {
		c.committed.Store(0)
		c.next.Store(nil)
		return c
	}
	return &logChunk{buf: make([]byte, logChunkSize)}
}

func (s *memStream) recycle(c *logChunk) {
	if len(c.buf) == logChunkSize {
		s.pool.Put(c)
	}
}

func (s *memStream) Partitions() int { return len(*s.parts.Load()) }

func (s *memStream) EnsurePartitions(_ context.Context, n int) error {
	if n > MaxPartitions {
		return fmt.Errorf("memory: stream %s: %w", s.name, partitionsError(fmt.Sprint(n)))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Load() {
		return errors.New("memory: stream closed")
	}
	old := *s.parts.Load()
	if len(old) >= n {
		return nil
	}
	parts := append([]*logPart(nil), old...)
	for len(parts) < n {
		c := s.newChunk(0)
		parts = append(parts, &logPart{s: s, tail: c, head: c, closed: make(chan struct{})})
	}
	s.parts.Store(&parts)
	return nil
}

func (s *memStream) Produce(_ context.Context, rows []adapters.StreamRow) error {
	if s.closed.Load() {
		return errors.New("memory: stream closed")
	}
	parts := *s.parts.Load()
	for i := 0; i < len(rows); {
		p := rows[i].Partition
		if p < 0 || p >= len(parts) {
			return fmt.Errorf("memory: stream %s: no partition %d (%d exist)", s.name, p, len(parts))
		}
		// Append the run of rows for the same partition under one lock.
		j := i + 1
		for j < len(rows) && rows[j].Partition == p {
			j++
		}
		if err := parts[p].append(rows[i:j]); err != nil {
			return err
		}
		i = j
	}
	return nil
}

func (lp *logPart) append(rows []adapters.StreamRow) error {
	lp.mu.Lock()
	c := lp.tail
	if c == nil {
		lp.mu.Unlock()
		return errors.New("memory: stream closed")
	}
	off := int(c.committed.Load())
	for _, r := range rows {
		need := 4 + len(r.Data)
		if off+need > len(c.buf) {
			c.committed.Store(int64(off))
			nc := lp.s.newChunk(need)
			c.next.Store(nc) // after committed: a reader seeing next sees the final length
			c, off = nc, 0
			lp.tail = c
		}
		binary.LittleEndian.PutUint32(c.buf[off:], uint32(len(r.Data)))
		copy(c.buf[off+4:], r.Data)
		off += need
	}
	c.committed.Store(int64(off))
	if lp.waiting {
		lp.waiting = false
		close(lp.wake)
	}
	lp.mu.Unlock()
	return nil
}

func (s *memStream) Reader(_ context.Context, p int) (adapters.StreamReader, error) {
	parts := *s.parts.Load()
	if p < 0 || p >= len(parts) {
		return nil, fmt.Errorf("memory: stream %s: no partition %d (%d exist)", s.name, p, len(parts))
	}
	lp := parts[p]
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if lp.reader {
		return nil, fmt.Errorf("memory: stream %s: partition %d already has a reader", s.name, p)
	}
	lp.reader = true
	r := &memReader{lp: lp, c: lp.head, timer: time.NewTimer(time.Hour)}
	r.timer.Stop()
	lp.head = nil // from now on passed chunks can be recycled
	return r, nil
}

func (s *memStream) Describe() string {
	return fmt.Sprintf("in-process log %s, %d partitions", s.name, s.Partitions())
}

func (s *memStream) Close(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed.Swap(true) {
		return nil
	}
	for _, lp := range *s.parts.Load() {
		lp.mu.Lock()
		close(lp.closed)
		lp.head, lp.tail = nil, nil
		lp.mu.Unlock()
	}
	return nil
}

type memReader struct {
	lp     *logPart
	c      *logChunk
	off    int
	passed []*logChunk // chunks left during the last Read, recycled at the next
	timer  *time.Timer
}

func (r *memReader) Read(ctx context.Context, dst [][]byte, limit int) ([][]byte, error) {
	for _, c := range r.passed {
		r.lp.s.recycle(c)
	}
	r.passed = r.passed[:0]
	if r.c == nil {
		return dst, errors.New("memory: reader closed")
	}
	for attempt := 0; ; attempt++ {
		dst = r.take(dst, limit)
		if len(dst) > 0 {
			return dst, nil
		}
		if attempt > 0 {
			return dst, ctx.Err()
		}
		if err := r.wait(ctx); err != nil {
			return dst, err
		}
	}
}

// take appends up to max available rows.
func (r *memReader) take(dst [][]byte, limit int) [][]byte {
	n := 0
	for n < limit {
		next := r.c.next.Load()
		end := int(r.c.committed.Load())
		if r.off >= end {
			if next == nil {
				break
			}
			r.passed = append(r.passed, r.c)
			r.c, r.off = next, 0
			continue
		}
		for r.off < end && n < limit {
			l := int(binary.LittleEndian.Uint32(r.c.buf[r.off:]))
			start := r.off + 4
			dst = append(dst, r.c.buf[start:start+l:start+l])
			r.off = start + l
			n++
		}
	}
	return dst
}

// wait sleeps until the writer appends, ctx is done or the poll time
// passes.
func (r *memReader) wait(ctx context.Context) error {
	lp := r.lp
	lp.mu.Lock()
	if r.off < int(r.c.committed.Load()) || r.c.next.Load() != nil {
		lp.mu.Unlock()
		return nil
	}
	if !lp.waiting {
		lp.waiting = true
		lp.wake = make(chan struct{})
	}
	wake := lp.wake
	lp.mu.Unlock()
	r.timer.Reset(logPollTime)
	defer r.timer.Stop()
	select {
	case <-wake:
		return nil
	case <-r.timer.C:
		return nil
	case <-lp.closed:
		return errors.New("memory: stream closed")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (r *memReader) Close() error {
	r.c = nil
	r.passed = nil
	return nil
}
