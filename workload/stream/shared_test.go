package stream

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
)

// fakeGroup is one fake stream consumed by a group of members: each
// member's readers deliver only the partitions it owns, with their
// positions, and the group is drained when every partition was read to
// its end by its owner. A member that leaves hands its partitions to
// another, which goes on from where it stopped (a commit, then a
// rebalance).
type fakeGroup struct {
	db      *fakeDB
	mu      sync.Mutex
	s       *fakeStream
	readers []*groupReader
}

// memberDB opens the group's stream as one member owning the partitions
// owns says (nil: all of them: a member alone in its group).
type memberDB struct {
	*fakeDB
	g     *fakeGroup
	owns  func(p int) bool
	grown chan int
}

func (d memberDB) OpenStream(ctx context.Context, name string, n int) (adapters.Stream, error) {
	g := d.g
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.s == nil {
		s, err := g.db.OpenStream(ctx, name, n)
		if err != nil {
			return nil, err
		}
		g.s = s.(*fakeStream)
	}
	g.s.mu.Lock()
	g.s.ensure(n)
	g.s.mu.Unlock()
	return &member{fakeStream: g.s, g: g, owns: d.owns, grown: d.grown}, nil
}

type member struct {
	*fakeStream
	g     *fakeGroup
	owns  func(p int) bool
	grown chan int
}

var _ adapters.GroupStream = (*member)(nil)

func (m *member) Reader(_ context.Context, p int) (adapters.StreamReader, error) {
	r := &groupReader{fakeReader: fakeReader{s: m.fakeStream, p: p}, m: m}
	r.owned.Store(m.owns == nil || m.owns(p))
	m.g.mu.Lock()
	m.g.readers = append(m.g.readers, r)
	m.g.mu.Unlock()
	return r, nil
}

func (m *member) Shared() bool { return true }

func (m *member) Grown() <-chan int { return m.grown }

// WaitAssigned: every partition has an owner at once.
func (m *member) WaitAssigned(context.Context, int) error { return nil }

// Lag: the fake measures none.
func (m *member) Lag() []int64 { return nil }

func (m *member) Spans(context.Context) ([]adapters.Span, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]adapters.Span, len(m.parts))
	for p := range m.parts {
		out[p] = adapters.Span{Partition: p, End: int64(len(m.parts[p]))}
	}
	return out, nil
}

// Close leaves the group: another member takes its partitions over; the
// stream stays.
func (m *member) Close(context.Context) error {
	m.g.mu.Lock()
	defer m.g.mu.Unlock()
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, r := range m.g.readers {
		if r.m != m || !r.owned.Load() {
			continue
		}
		r.owned.Store(false)
		for _, o := range m.g.readers {
			if o.m != m && o.p == r.p {
				o.off = r.off
				o.owned.Store(true)
				break
			}
		}
	}
	return nil
}

// WaitConsumed waits until every partition's owner read it to its end as
// it is now.
func (m *member) WaitConsumed(ctx context.Context) error {
	m.mu.Lock()
	want := make([]int, len(m.parts))
	for p := range m.parts {
		want[p] = len(m.parts[p])
	}
	m.mu.Unlock()
	for {
		done := true
		m.g.mu.Lock()
		m.mu.Lock()
		for p, n := range want {
			at := 0
			for _, r := range m.g.readers {
				if r.p == p && r.owned.Load() {
					at = max(at, r.off)
				}
			}
			done = done && at >= n
		}
		m.mu.Unlock()
		m.g.mu.Unlock()
		if done {
			return nil
		}
		if err := waitCtx(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
}

// groupReader delivers its partition only when its member owns it, and
// says the positions of what it delivered.
type groupReader struct {
	fakeReader
	m     *member
	owned atomic.Bool
	pos   []int64
}

func (r *groupReader) Read(ctx context.Context, dst [][]byte, max int) ([][]byte, error) {
	r.pos = r.pos[:0]
	if !r.owned.Load() {
		return dst, waitCtx(ctx, 20*time.Millisecond)
	}
	r.s.mu.Lock()
	from := r.off
	r.s.mu.Unlock()
	out, err := r.fakeReader.Read(ctx, dst, max)
	for i := range len(out) - len(dst) {
		r.pos = append(r.pos, int64(from+i))
	}
	return out, err
}

func (r *groupReader) Positions() []int64 { return r.pos }

// A member alone in its group delivers every row the stream holds and no
// other process's: its verdict is complete, and its faults are the run's
// problems, whether its origin was set or drawn.
func TestSharedStreamAlone(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		db   func() *fakeDB
		want func(s *Summary) bool
	}{
		{"clean", func() *fakeDB { return &fakeDB{} }, func(s *Summary) bool { return s.Lost == 0 && s.Distinct == 2000 && s.Consumed == 2000 }},
		{"drop", func() *fakeDB { return &fakeDB{dropNth: 500} }, func(s *Summary) bool { return s.Lost == 1 && s.Duplicated == 0 && s.OutOfOrder == 0 }},
		{"duplicate", func() *fakeDB { return &fakeDB{dupNth: 500} }, func(s *Summary) bool { return s.Duplicated == 1 && s.Redelivered == 0 && s.Lost == 0 }},
		{"reorder", func() *fakeDB { return &fakeDB{swapNth: 500} }, func(s *Summary) bool { return s.OutOfOrder == 1 && s.Lost == 0 && s.Duplicated == 0 }},
	} {
		for _, origin := range []string{"0", "3"} {
			t.Run(tc.name+"/origin "+origin, func(t *testing.T) {
				db := tc.db()
				w, err := New(adapters.Properties{"partitions": "2", "stream.keys": "1", PropOrigin: origin}, memberDB{fakeDB: db, g: &fakeGroup{db: db}})
				if err != nil {
					t.Fatal(err)
				}
				s := runDirect(t, w, 1, 2000, nil)
				final, _ := w.Finish(context.Background())
				if !w.Shared() || s.Verdict != VerdictComplete || s.Ledger == nil {
					t.Fatalf("shared %v, verdict %q, ledger %v: want a complete verdict with a ledger", w.Shared(), s.Verdict, s.Ledger != nil)
				}
				if origin == "3" && s.Origin != 3 || s.Origin < 1 || s.Origin > MaxOrigin || s.Run == 0 {
					t.Errorf("origin %d, run %d (stream.origin %s)", s.Origin, s.Run, origin)
				}
				if !tc.want(s) {
					t.Errorf("summary %+v", s.RowCounts)
				}
				v := Merge(s.Ledger)
				if v.OK() != (len(final.Problems) == 0) || v.Lost != s.Lost {
					t.Errorf("problems %q for the ledger's verdict %+v", final.Problems, v.RowCounts)
				}
				if len(final.Notes) != 0 {
					t.Errorf("notes %q: a complete verdict has none", final.Notes)
				}
			})
		}
	}
}

// Two members split the partitions: each judges what it delivered, calls
// nothing lost ("partial"), and the merge of their ledgers is the whole
// verdict: every row once, or the row the stream dropped.
func TestSharedStreamPartialVerdicts(t *testing.T) {
	t.Parallel()
	for _, drop := range []int64{0, 700} {
		db := &fakeDB{dropNth: drop}
		g := &fakeGroup{db: db}
		props := adapters.Properties{"partitions": "4", "stream.keys": "50"}
		a, err := New(props, memberDB{fakeDB: db, g: g, owns: func(p int) bool { return p%2 == 0 }})
		if err != nil {
			t.Fatal(err)
		}
		b, err := New(props, memberDB{fakeDB: db, g: g, owns: func(p int) bool { return p%2 == 1 }})
		if err != nil {
			t.Fatal(err)
		}
		sums := make([]*Summary, 2)
		var wg sync.WaitGroup
		for i, w := range []*Workload{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sums[i] = runDirect(t, w, 2, 3000, nil)
			}()
		}
		wg.Wait()
		for i, w := range []*Workload{a, b} {
			s := sums[i]
			final, _ := w.Finish(context.Background())
			// Which member consumed what depends on which ended first (its
			// partitions then go to the other): each saw the other's part.
			if s.Verdict != VerdictPartial || s.ConsumedElsewhere+s.ForeignConsumed == 0 {
				t.Errorf("drop %d: member %d: verdict %q, %d consumed elsewhere, %d from elsewhere: want partial", drop, i, s.Verdict, s.ConsumedElsewhere, s.ForeignConsumed)
			}
			if len(final.Problems) != 0 || len(final.Notes) == 0 || !strings.Contains(final.Notes[0], partialText(s.ConsumedElsewhere)) {
				t.Errorf("drop %d: member %d: problems %q, notes %q: want none and the partial verdict", drop, i, final.Problems, final.Notes)
			}
		}
		v := Merge(sums[0].Ledger, sums[1].Ledger)
		want := int64(6000)
		if drop > 0 {
			want--
		}
		if v.Produced != 6000 || v.Distinct != want || v.Lost != 6000-want || v.Duplicated != 0 || v.Redelivered != 0 || v.OutOfOrder != 0 || v.Unknown != 0 {
			t.Errorf("drop %d: merged %+v", drop, v.RowCounts)
		}
	}
}

// Two members that drew one origin are told apart by their run ids: the
// collision is counted and said, and the merged verdict holds.
func TestSharedStreamOriginCollision(t *testing.T) {
	t.Parallel()
	db := &fakeDB{}
	g := &fakeGroup{db: db}
	props := adapters.Properties{"partitions": "2", "stream.keys": "20", PropOrigin: "5"}
	a, _ := New(props, memberDB{fakeDB: db, g: g, owns: func(p int) bool { return p == 0 }})
	b, _ := New(props, memberDB{fakeDB: db, g: g, owns: func(p int) bool { return p == 1 }})
	sums := make([]*Summary, 2)
	var wg sync.WaitGroup
	for i, w := range []*Workload{a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[i] = runDirect(t, w, 1, 2000, nil)
		}()
	}
	wg.Wait()
	// Each says it when it delivered rows of the other (which one did
	// depends on which ended first); at least one did.
	seen := int64(0)
	for i, s := range sums {
		seen += s.OriginShared
		if s.OriginShared > 0 != strings.Contains(strings.Join(s.Notes(), " "), "origin 5 was drawn by another process") {
			t.Errorf("member %d: %d rows of the other origin-5 process, notes %q", i, s.OriginShared, s.Notes())
		}
	}
	if seen == 0 {
		t.Error("neither member saw a row of the other, which drew the same origin")
	}
	v := Merge(sums[0].Ledger, sums[1].Ledger)
	if !v.OK() || v.Produced != 4000 || v.Distinct != 4000 || len(v.SharedOrigins) != 1 || v.SharedOrigins[0] != 5 {
		t.Errorf("merged %+v, shared origins %v", v.RowCounts, v.SharedOrigins)
	}
}

// A member follows a growth made by another: readers for the new
// partitions, producers on them, and the runner told.
func TestSharedStreamFollowsGrowth(t *testing.T) {
	t.Parallel()
	db := &fakeDB{}
	grown := make(chan int, 1)
	w, err := New(adapters.Properties{"partitions": "2", "stream.keys": "40"}, memberDB{fakeDB: db, g: &fakeGroup{db: db}, grown: grown})
	if err != nil {
		t.Fatal(err)
	}
	type change struct {
		from, to int
		why      string
	}
	changes := make(chan change, 4)
	later := make(chan string, 4)
	w.WatchPartitions(func(from, to int, why string) { changes <- change{from, to, why} },
		func(n int, what string) { later <- fmt.Sprint(n, " ", what) })
	s := runDirect(t, w, 2, 20000, func(w *Workload) {
		// Another member grows the stream: it has 5 partitions now.
		_ = w.stream.EnsurePartitions(context.Background(), 5)
		grown <- 5
		select {
		case c := <-changes:
			if c.from != 2 || c.to != 5 || !strings.Contains(c.why, "another member") {
				t.Errorf("the runner was told %+v", c)
			}
		case <-time.After(time.Minute):
			t.Error("the growth was not followed within a minute")
		}
		select {
		case what := <-later:
			if !strings.HasPrefix(what, "5 the consumer group gave all 5 partitions a consumer") {
				t.Errorf("the runner was told %q of the rebalance", what)
			}
		case <-time.After(time.Minute):
			t.Error("the rebalance was not told within a minute")
		}
	})
	if s.PartitionsFinal != 5 || s.Verdict != VerdictComplete || s.Lost != 0 || s.Duplicated != 0 || s.OutOfOrder != 0 {
		t.Errorf("final partitions %d, verdict %q, %+v", s.PartitionsFinal, s.Verdict, s.RowCounts)
	}
	var onNew int64
	for _, pp := range s.Ledger.Positions {
		if pp.Partition >= 2 {
			onNew += covered(pp.Delivered)
		}
	}
	if onNew == 0 {
		t.Error("no row was written to and read from the new partitions")
	}
}

// Without a barrier (a shared stream has none) keys that move at a live
// partition change may be delivered interleaved across their old and new
// partitions; order within each partition holds, and that is what is
// checked: 0 out of order, where the per-key check sees some (see
// TestEpochBarrierKeepsKeyOrder).
func TestSharedStreamOrderIsPerPartition(t *testing.T) {
	t.Parallel()
	db := &fakeDB{readDelay: map[int]time.Duration{0: 2 * time.Millisecond, 1: 2 * time.Millisecond}, readMax: 20}
	w, err := New(adapters.Properties{"partitions": "2", "stream.keys": "16", "stream.batchsize": "20"}, memberDB{fakeDB: db, g: &fakeGroup{db: db}})
	if err != nil {
		t.Fatal(err)
	}
	s := runDirect(t, w, 2, 20000, func(w *Workload) {
		if err := w.SetPartitions(context.Background(), 3); err != nil {
			t.Error(err)
		}
	})
	t.Logf("produced %d, consumed %d, out of order %d, duplicated %d, lost %d", s.Produced, s.Consumed, s.OutOfOrder, s.Duplicated, s.Lost)
	if s.Lost != 0 || s.Duplicated != 0 || s.OutOfOrder != 0 || s.Consumed != 20000 || s.Distinct != 20000 {
		t.Errorf("lost %d, duplicated %d, out of order %d, consumed %d, distinct %d", s.Lost, s.Duplicated, s.OutOfOrder, s.Consumed, s.Distinct)
	}
	if s.PartitionsFinal != 3 {
		t.Errorf("final partitions %d, want 3", s.PartitionsFinal)
	}
}
