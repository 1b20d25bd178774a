package ycsb

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"benchtop/adapters"
)

// queuingStore is a batchStore whose batches report as YCSB's JDBC
// binding's with jdbc.batchupdateapi=true (adapters.BatchQueuer).
type queuingStore struct{ batchStore }

func (queuingStore) QueuesBatches() bool { return true }

// A load of 1,000 records on 2 threads in batches of 100 counts as
// YCSB's JdbcDBClient does: 10 records sent a batch (OK), 990 queued
// (BATCHED_OK); 1,050 records add a short batch of 50, all queued.
func TestLoadQueuedBatches(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ records, batched int64 }{{1000, 990}, {1050, 1040}} {
		t.Run(strconv.FormatInt(c.records, 10), func(t *testing.T) {
			t.Parallel()
			db := queuingStore{batchStore{store: newStore(), size: 100}}
			props := map[string]string{"recordcount": strconv.FormatInt(c.records, 10), "threadcount": "2"}
			res := runPhases(t, "load", props, db)
			n, failed := count(res[0], OpInsert)
			if n != c.records || failed != 0 || res[0].Set.Batched[OpInsert] != c.batched {
				t.Errorf("INSERT %d (failed %d), batched %d; want %d, 0, %d", n, failed, res[0].Set.Batched[OpInsert], c.records, c.batched)
			}
		})
	}
	db := batchStore{store: newStore(), size: 100}
	res := runPhases(t, "load", map[string]string{"recordcount": "1000", "threadcount": "2"}, db)
	if b := res[0].Set.Batched[OpInsert]; b != 0 {
		t.Errorf("a store whose batches do not queue: %d batched, want 0 (each record OK)", b)
	}
}

// Queued is each record's building time but the full batch's last
// record's, read from the worker's clock.
func TestQueuedTimes(t *testing.T) {
	t.Parallel()
	db := queuingStore{batchStore{store: newStore(), size: 4}}
	_, cw := newTestWorker(t, "load", map[string]string{"recordcount": "6"}, db)
	var now int64
	cw.clock = func() int64 { now += 10; return now }
	limit := func(want int) int { return want }
	if n, err := cw.Load(t.Context(), limit); n != 4 || err != nil {
		t.Fatalf("Load = %d, %v; want a batch of 4", n, err)
	}
	if got, batched := cw.Queued(); !slices.Equal(got, []int64{10, 10, 10}) || !batched {
		t.Errorf("full batch: Queued = %v, want the first 3 records' 10 ns each", got)
	}
	short := func(want int) int { return min(want, 2) }
	if n, err := cw.Load(t.Context(), short); n != 2 || err != nil {
		t.Fatalf("Load = %d, %v; want a batch of 2", n, err)
	}
	if got, batched := cw.Queued(); !slices.Equal(got, []int64{10, 10}) || !batched {
		t.Errorf("short batch: Queued = %v, want both records queued", got)
	}
	_, plain := newTestWorker(t, "load", map[string]string{"recordcount": "6"}, batchStore{store: newStore(), size: 4})
	if _, err := plain.Load(t.Context(), limit); err != nil {
		t.Fatal(err)
	}
	if got, _ := plain.Queued(); got != nil {
		t.Errorf("a store whose batches do not queue: Queued = %v, want nil", got)
	}
}

var _ adapters.BatchQueuer = queuingStore{}

// rowTimedStore is a batchStore whose batches time each record
// (adapters.RowTimer), each taking 1,000 ns.
type rowTimedStore struct{ batchStore }

func (rowTimedStore) RowTimed() bool { return true }

func (s rowTimedStore) InsertBatchTimed(ctx context.Context, table string, records []adapters.Record, took []int64) ([]int64, error) {
	for range records {
		took = append(took, 1000)
	}
	return took, s.InsertBatch(ctx, table, records)
}

// With jdbc.autocommit=false alone, every record is OK, timed over its
// building and its statement; the last one gets the rest of the step
// (the commit): Queued holds the others, not batched.
func TestRowTimed(t *testing.T) {
	t.Parallel()
	db := rowTimedStore{batchStore{store: newStore(), size: 3}}
	_, cw := newTestWorker(t, "load", map[string]string{"recordcount": "6"}, db)
	var now int64
	cw.clock = func() int64 { now += 10; return now }
	if n, err := cw.Load(t.Context(), func(want int) int { return want }); n != 3 || err != nil {
		t.Fatalf("Load = %d, %v; want a batch of 3", n, err)
	}
	if got, batched := cw.Queued(); !slices.Equal(got, []int64{1010, 1010}) || batched {
		t.Errorf("Queued = %v, %v; want 10 ns building + 1,000 ns statement for the first 2 records, not batched", got, batched)
	}
	res := runPhases(t, "load", map[string]string{"recordcount": "1000", "threadcount": "2"},
		rowTimedStore{batchStore{store: newStore(), size: 100}})
	if n, _ := count(res[0], OpInsert); n != 1000 || res[0].Set.Batched[OpInsert] != 0 {
		t.Errorf("INSERT %d, batched %d; want 1000 OK, none batched", n, res[0].Set.Batched[OpInsert])
	}
}
