package stream

import (
	"context"
	"testing"
	"time"

	"benchtop/adapters"
)

// sharedFakeDB opens fake streams that say they are shared
// (adapters.SharedStream): one process alone in its group.
type sharedFakeDB struct{ *fakeDB }

type sharedFake struct {
	*fakeStream
	readers []*fakeReader // under fakeStream.mu
}

func (d sharedFakeDB) OpenStream(ctx context.Context, name string, n int) (adapters.Stream, error) {
	s, err := d.fakeDB.OpenStream(ctx, name, n)
	if err != nil {
		return nil, err
	}
	return &sharedFake{fakeStream: s.(*fakeStream)}, nil
}

func (s *sharedFake) Reader(ctx context.Context, p int) (adapters.StreamReader, error) {
	r := &fakeReader{s: s.fakeStream, p: p}
	s.mu.Lock()
	s.readers = append(s.readers, r)
	s.mu.Unlock()
	return r, nil
}

func (s *sharedFake) Shared() bool { return true }

// WaitConsumed waits until the readers reached every partition's end as
// it is now.
func (s *sharedFake) WaitConsumed(ctx context.Context) error {
	s.mu.Lock()
	want := make([]int, len(s.parts))
	for p := range s.parts {
		want[p] = len(s.parts[p])
	}
	s.mu.Unlock()
	for {
		s.mu.Lock()
		done := true
		for p, n := range want {
			at := 0
			for _, r := range s.readers {
				if r.p == p {
					at = max(at, r.off)
				}
			}
			done = done && at >= n
		}
		s.mu.Unlock()
		if done {
			return nil
		}
		if err := waitCtx(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
}

// A shared stream is checked per partition and from the ledger: alone
// (origin 0) its faults are the workload's problems; in a fleet (origin
// > 0) they are left to the fleet's verdict, which the ledger carries.
func TestSharedStreamLedger(t *testing.T) {
	for _, tc := range []struct {
		name string
		db   func() *fakeDB
		want func(v Verdict) bool
	}{
		{"clean", func() *fakeDB { return &fakeDB{} }, func(v Verdict) bool { return v.OK() && v.Distinct == 2000 && v.Consumed == 2000 }},
		{"drop", func() *fakeDB { return &fakeDB{dropNth: 500} }, func(v Verdict) bool { return v.Lost == 1 && v.Duplicated == 0 && v.OutOfOrder == 0 }},
		{"duplicate", func() *fakeDB { return &fakeDB{dupNth: 500} }, func(v Verdict) bool { return v.Duplicated == 1 && v.Lost == 0 && v.OutOfOrder == 0 }},
		{"reorder", func() *fakeDB { return &fakeDB{swapNth: 500} }, func(v Verdict) bool { return v.OutOfOrder == 1 && v.Lost == 0 && v.Duplicated == 0 }},
	} {
		for _, origin := range []string{"0", "3"} {
			t.Run(tc.name+"/origin "+origin, func(t *testing.T) {
				w, err := New(adapters.Properties{"partitions": "1", "stream.keys": "1", PropOrigin: origin}, sharedFakeDB{tc.db()})
				if err != nil {
					t.Fatal(err)
				}
				s := runDirect(t, w, 1, 2000, nil)
				final, _ := w.Finish(context.Background())
				if !w.Shared() {
					t.Fatal("the workload did not see a shared stream")
				}
				if origin == "0" {
					v := Verdict{RowCounts: RowCounts{Lost: s.Lost, Duplicated: s.Duplicated, OutOfOrder: s.OutOfOrder, Unknown: s.Unknown, Distinct: s.Distinct, Consumed: s.Consumed}}
					if !tc.want(v) {
						t.Errorf("alone: summary %+v", s)
					}
					if v.OK() != (len(final.Problems) == 0) {
						t.Errorf("alone: problems %q for %+v", final.Problems, v)
					}
					return
				}
				if !s.FleetVerdict || s.Ledger == nil || len(final.Problems) != 0 {
					t.Fatalf("in a fleet: verdict %v, ledger %v, problems %q; want the fleet's, a ledger and none", s.FleetVerdict, s.Ledger != nil, final.Problems)
				}
				if s.Ledger.Origin != 3 {
					t.Errorf("ledger origin %d, want 3", s.Ledger.Origin)
				}
				if v := Merge(s.Ledger); !tc.want(v) {
					t.Errorf("in a fleet: the ledger merges to %+v", v)
				}
			})
		}
	}
}

// Without a barrier (a shared stream has none) keys that move at a live
// partition change may be delivered interleaved across their old and new
// partitions; order within each partition holds, and that is what is
// checked: 0 out of order, where the per-key check sees some (see
// TestEpochBarrierKeepsKeyOrder).
func TestSharedStreamOrderIsPerPartition(t *testing.T) {
	db := &fakeDB{readDelay: map[int]time.Duration{0: 2 * time.Millisecond, 1: 2 * time.Millisecond}, readMax: 20}
	w, err := New(adapters.Properties{"partitions": "2", "stream.keys": "16", "stream.batchsize": "20"}, sharedFakeDB{db})
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
