package stream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/results/report"
	"benchtop/workload"
)

var sharedHost = host.NewSampler()

// runEngine runs the stream workload through the engine's runner, calling
// script (in its own goroutine) once the run phase started; script may
// wait for views with waitView.
func runEngine(t *testing.T, db adapters.DB, props map[string]string, script func(r *engine.Runner, waitView func(func(*View) bool) bool)) ([]*engine.PhaseResult, []*engine.Snapshot, *engine.Runner) {
	t.Helper()
	all := map[string]string{"workload": "stream", "status.interval": "100ms"}
	for k, v := range props {
		all[k] = v
	}
	cfg, warns, err := engine.NewConfig("run", "fake", all)
	if err != nil {
		t.Fatalf("NewConfig: %v", err)
	}
	if len(warns) > 0 {
		t.Errorf("warnings: %v", warns)
	}
	var mu sync.Mutex
	var snaps []*engine.Snapshot
	views := make(chan *View, 1000)
	waitView := func(ok func(*View) bool) bool {
		deadline := time.After(10 * time.Second)
		for {
			select {
			case v := <-views:
				if ok(v) {
					return true
				}
			case <-deadline:
				return false
			}
		}
	}
	started := make(chan struct{})
	var once sync.Once
	r, err := engine.New(cfg, db, engine.Options{Host: sharedHost,
		OnSnapshot: []func(*engine.Snapshot){func(s *engine.Snapshot) {
			mu.Lock()
			snaps = append(snaps, s)
			mu.Unlock()
			if v := s.Workload; v != nil && v.Partitions != nil {
				v := v.Partitions
				select {
				case views <- v:
				default:
				}
			}
		}},
		OnPhase: []func(engine.Phase){func(engine.Phase) { once.Do(func() { close(started) }) }},
	})
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	if script != nil {
		go func() {
			select {
			case <-started:
				script(r, waitView)
			case <-time.After(10 * time.Second):
			}
		}()
	}
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return res, snaps, r
}

func closing(t *testing.T, res []*engine.PhaseResult) (*Summary, []string) {
	t.Helper()
	if len(res) == 0 || res[len(res)-1].Closing == nil {
		t.Fatalf("no closing section in %d results", len(res))
	}
	c := res[len(res)-1].Closing
	if c.JSONKey != "stream" {
		t.Errorf("JSONKey = %q, want stream", c.JSONKey)
	}
	s, ok := c.JSON.(*Summary)
	if !ok {
		t.Fatalf("closing JSON is %T, want *Summary", c.JSON)
	}
	return s, c.Problems
}

// The whole path: the runner drives producers, partitions change live
// (2 → 4 → 1), the report and JSON carry the stream section, segments get
// rows_per_sec and mb_per_sec, and every row is delivered once, in order.
func TestRunThroughEngineWithLiveRepartitioning(t *testing.T) {
	t.Parallel()
	db := &fakeDB{}
	res, _, r := runEngine(t, db, map[string]string{"partitions": "2", "threadcount": "2", "maxexecutiontime": "20", "stream.maxlag": "5000"}, func(r *engine.Runner, waitView func(func(*View) bool) bool) {
		defer r.Stop()
		time.Sleep(300 * time.Millisecond)
		if err := r.SetPartitions(4); err != nil {
			t.Errorf("SetPartitions(4): %v", err)
		}
		// The new partitions' consumers appear and deliver.
		if !waitView(func(v *View) bool {
			if v.Partitions != 4 || len(v.Parts) != 4 {
				return false
			}
			for _, p := range v.Parts {
				if !p.Consuming || p.Rate == 0 {
					return false
				}
			}
			return true
		}) {
			t.Error("no view showed 4 partitions consumed after SetPartitions(4)")
		}
		time.Sleep(300 * time.Millisecond)
		if err := r.SetPartitions(1); err != nil {
			t.Errorf("SetPartitions(1): %v", err)
		}
		// The dropped partitions drain and their consumers stop.
		if !waitView(func(v *View) bool { return v.Partitions == 1 && v.Consumers == 1 && len(v.Parts) == 1 }) {
			t.Error("no view showed 1 partition and 1 consumer after SetPartitions(1)")
		}
		time.Sleep(300 * time.Millisecond)
	})
	if !r.Info().CanRepartition {
		t.Error("Info().CanRepartition = false for the stream workload")
	}
	s, problems := closing(t, res)
	for _, p := range problems {
		t.Errorf("problem: %s", p)
	}
	t.Logf("produced %d consumed %d epochs %d stable %.0f rows/s", s.Produced, s.Consumed, s.Epochs, s.StableRowsPerSec)
	if s.Produced == 0 || s.Consumed != s.Produced || s.Distinct != s.Produced {
		t.Errorf("produced %d, consumed %d, distinct %d", s.Produced, s.Consumed, s.Distinct)
	}
	if s.Lost != 0 || s.Duplicated != 0 || s.OutOfOrder != 0 || s.Unknown != 0 {
		t.Errorf("lost %d, duplicated %d, out of order %d, unknown %d; want 0", s.Lost, s.Duplicated, s.OutOfOrder, s.Unknown)
	}
	if s.Epochs != 3 {
		t.Errorf("epochs = %d, want 3", s.Epochs)
	}
	if s.PartitionsFinal != 1 {
		t.Errorf("final partitions = %d, want 1", s.PartitionsFinal)
	}
	// Segments carry rows_per_sec and mb_per_sec.
	main := res[len(res)-1]
	var withRows int
	for _, g := range main.Segments {
		if g.Extra["rows_per_sec"] > 0 && g.Extra["mb_per_sec"] > 0 {
			withRows++
		}
	}
	if withRows == 0 {
		t.Errorf("no segment has rows_per_sec and mb_per_sec: %+v", main.Segments)
	}
	var text bytes.Buffer
	report.WriteText(&text, res, r.Info())
	for _, want := range []string{"[STREAM], RowsLost, 0", "[STREAM], RowsOutOfOrder, 0", "[STREAM], StableRowsPerSec", "# Stream (one row per", "[PRODUCE], Operations"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, res, r.Info()); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	st, ok := doc["stream"].(map[string]any)
	if !ok {
		t.Fatalf("JSON has no stream member: %s", js.String())
	}
	for _, k := range []string{"produced", "consumed", "lost", "duplicated", "out_of_order", "rows_per_sec_stable", "scenarios"} {
		if _, ok := st[k]; !ok {
			t.Errorf("JSON stream member lacks %q", k)
		}
	}
}

// -target is rows per second (each Transaction is one row): 10,000 rows
// at 20,000 rows/s on 2 threads cannot end before the last row's intended
// start, 0.5 s in (were the target counted in batches of 100, they would
// be done in milliseconds). A bound load cannot break; rates belong in
// benchmarks.
func TestTargetIsRowsPerSecond(t *testing.T) {
	t.Parallel()
	db := &fakeDB{}
	res, _, _ := runEngine(t, db, map[string]string{"threadcount": "2", "target": "20000", "operationcount": "10000", "stream.batchsize": "100"}, nil)
	s, problems := closing(t, res)
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	if s.Produced != 10000 {
		t.Errorf("produced %d rows, want 10000", s.Produced)
	}
	if rt := res[len(res)-1].RunTime; rt < 450*time.Millisecond || rt > 30*time.Second {
		t.Errorf("10000 rows at 20000 rows/s took %v, want at least 0.5 s (and not a hundred times that)", rt)
	}
}

// operationcount counts rows, and the run delivers exactly that many.
func TestOperationCountIsRows(t *testing.T) {
	t.Parallel()
	db := &fakeDB{}
	res, _, _ := runEngine(t, db, map[string]string{"threadcount": "3", "operationcount": "12345", "stream.batchsize": "64"}, nil)
	s, problems := closing(t, res)
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
	if s.Produced != 12345 || s.Consumed != 12345 {
		t.Errorf("produced %d, consumed %d, want 12345", s.Produced, s.Consumed)
	}
}

// runDirect drives the workload without the runner: producers loop until
// rows rows are handed in, change(w) runs once after a quarter of them.
func runDirect(t *testing.T, w *Workload, producers int, rows int64, change func(w *Workload)) *Summary {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := w.Start(ctx, "run", w.opts.Partitions); err != nil {
		t.Fatal(err)
	}
	var done atomic.Int64
	var wg sync.WaitGroup
	// The second half of the rows waits for the change to be made, so
	// that rows are produced after it however slowly a busy machine runs
	// the change (before, a loaded machine could produce them all first).
	changed := make(chan struct{})
	if change == nil {
		close(changed)
	}
	for i := range producers {
		wk := w.NewWorker(uint64(i + 7))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := done.Add(1); n <= rows; n = done.Add(1) {
				if n > rows/2 {
					<-changed
				}
				if _, _, err := wk.Transaction(ctx, nil, nil); err != nil {
					return
				}
			}
		}()
	}
	if change != nil {
		for done.Load() < rows/4 {
			time.Sleep(time.Millisecond)
		}
		change(w)
		close(changed)
	}
	wg.Wait()
	if err := w.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if _, err := w.Finish(ctx); err != nil {
		t.Fatal(err)
	}
	return w.Summary()
}

// The epoch barrier is what keeps key order across a change: with a slow
// partition holding a backlog, a change moves its keys; without the
// barrier their new rows overtake the old ones, with it they do not.
func TestEpochBarrierKeepsKeyOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of 20,000 rows behind slow partitions (go test -short skips it)")
	}
	t.Parallel()
	for _, barrier := range []bool{true, false} {
		name := "with barrier"
		if !barrier {
			name = "without barrier"
		}
		t.Run(name, func(t *testing.T) {
			db := &fakeDB{readDelay: map[int]time.Duration{0: 2 * time.Millisecond, 1: 2 * time.Millisecond}, readMax: 20}
			w, err := New(adapters.Properties{"partitions": "2", "stream.keys": "16", "stream.batchsize": "20", "stream.maxlag": "2000"}, db)
			if err != nil {
				t.Fatal(err)
			}
			w.noBarrier = !barrier
			s := runDirect(t, w, 2, 20000, func(w *Workload) {
				if err := w.SetPartitions(context.Background(), 3); err != nil {
					t.Error(err)
				}
			})
			t.Logf("produced %d, consumed %d, out of order %d, duplicated %d, lost %d", s.Produced, s.Consumed, s.OutOfOrder, s.Duplicated, s.Lost)
			if s.Lost != 0 || s.Duplicated != 0 || s.Consumed != 20000 {
				t.Errorf("lost %d, duplicated %d, consumed %d", s.Lost, s.Duplicated, s.Consumed)
			}
			if barrier && s.OutOfOrder != 0 {
				t.Errorf("%d rows out of order with the barrier", s.OutOfOrder)
			}
			if !barrier && s.OutOfOrder == 0 {
				t.Errorf("no row out of order without the barrier: the test cannot tell")
			}
		})
	}
}

// A stream that drops, duplicates or reorders a row is caught, and the
// run fails (Problems).
func TestChecksCatchBrokenStreams(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		db   *fakeDB
		want func(s *Summary) bool
	}{
		{"drop", &fakeDB{dropNth: 500}, func(s *Summary) bool { return s.Lost == 1 && s.Duplicated == 0 }},
		{"duplicate", &fakeDB{dupNth: 500}, func(s *Summary) bool { return s.Duplicated == 1 && s.Lost == 0 }},
		{"reorder", &fakeDB{swapNth: 500}, func(s *Summary) bool { return s.OutOfOrder == 1 && s.Lost == 0 && s.Duplicated == 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := New(adapters.Properties{"partitions": "1", "stream.keys": "1"}, tc.db)
			if err != nil {
				t.Fatal(err)
			}
			s := runDirect(t, w, 1, 2000, nil)
			final, _ := w.Finish(context.Background())
			t.Logf("lost %d, duplicated %d, out of order %d; problems %q", s.Lost, s.Duplicated, s.OutOfOrder, final.Problems)
			if !tc.want(s) {
				t.Errorf("summary %+v does not show the fault", s)
			}
			if len(final.Problems) == 0 {
				t.Error("no problem reported")
			}
		})
	}
}

// Failed writes are counted as failed, not lost.
func TestFailedWritesAreNotLost(t *testing.T) {
	t.Parallel()
	db := &fakeDB{}
	w, err := New(adapters.Properties{"partitions": "2", "stream.batchsize": "10"}, db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := w.Start(ctx, "run", 2); err != nil {
		t.Fatal(err)
	}
	wk := w.NewWorker(1)
	var errs int
	for i := range 1000 {
		db.produceErr.Store(i >= 300 && i < 400)
		if _, _, err := wk.Transaction(ctx, nil, nil); err != nil {
			errs++
		}
	}
	if err := w.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	final, _ := w.Finish(ctx)
	s := w.Summary()
	if errs == 0 || s.FailedWrites != 100 || s.Lost != 0 || s.Produced != 900 || s.Consumed != 900 || len(final.Problems) != 0 {
		t.Errorf("errors %d; failed %d, lost %d, produced %d, consumed %d, problems %v", errs, s.FailedWrites, s.Lost, s.Produced, s.Consumed, final.Problems)
	}
}

func TestCheckerSequences(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name               string
		seqs               []uint32
		produced           uint32
		lost, dup, ooo     int64
		delivered, unknown int64
	}{
		{"in order", []uint32{1, 2, 3, 4}, 4, 0, 0, 0, 4, 0},
		{"gap", []uint32{1, 2, 4}, 4, 1, 0, 0, 3, 0},
		{"late", []uint32{1, 3, 2, 4}, 4, 0, 0, 1, 4, 0},
		{"duplicate", []uint32{1, 2, 2, 3}, 3, 0, 1, 0, 3, 0},
		{"duplicate ahead", []uint32{1, 3, 3, 2}, 3, 0, 1, 1, 3, 0},
		{"tail lost", []uint32{1, 2}, 5, 3, 0, 0, 2, 0},
		{"beyond produced", []uint32{1, 2, 3}, 2, 0, 0, 0, 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newChecker()
			var st atomic.Uint64
			for _, s := range tc.seqs {
				c.deliver(&st, 1, 2, s)
			}
			tl := c.tallyKey(&st, 1, 2, tc.produced)
			if tl.lost != tc.lost || c.duplicated.Load() != tc.dup || c.outOfOrder.Load() != tc.ooo || tl.delivered != tc.delivered || c.unknown.Load() != tc.unknown {
				t.Errorf("lost %d dup %d ooo %d delivered %d unknown %d; want %d %d %d %d %d",
					tl.lost, c.duplicated.Load(), c.outOfOrder.Load(), tl.delivered, c.unknown.Load(), tc.lost, tc.dup, tc.ooo, tc.delivered, tc.unknown)
			}
		})
	}
}

func TestRowLayout(t *testing.T) {
	t.Parallel()
	for _, size := range []int{MinRowSize, 220, 1000} {
		w, err := New(adapters.Properties{"stream.rowsize": strconv.Itoa(size)}, &fakeDB{})
		if err != nil {
			t.Fatal(err)
		}
		p := w.NewWorker(1).(*producer)
		p.pendKeys = append(p.pendKeys, 3)
		p.pendSeqs = append(p.pendSeqs, 9)
		p.build(&epochState{epoch: 2, parts: 4}, int64(5*time.Second))
		row := p.rows[0].Data
		if len(row) != size {
			t.Fatalf("row of %d bytes, want %d", len(row), size)
		}
		h, ok := decodeHeader(row)
		if !ok || h.kind != kindData || h.epoch != 2 || h.producer != 0 || h.key != 3 || h.seq != 9 || h.ts != int64(5*time.Second) || h.uid != uidOf(0, 3) {
			t.Errorf("header %+v", h)
		}
		if p.rows[0].Partition != int(uidOf(0, 3)%4) {
			t.Errorf("partition %d, want uid %% 4", p.rows[0].Partition)
		}
		text := string(row[headerSize:])
		for _, col := range []string{colName, colClass, colTime, colCol0, colCol1} {
			if !strings.Contains(text, col) {
				t.Errorf("row %q lacks %q", text, col)
			}
		}
		ts := string(row[p.lay.timeOff : p.lay.timeOff+13])
		if want := w.base.Add(5 * time.Second).UnixMilli(); ts != strconv.FormatInt(want, 10) {
			t.Errorf("time column %q, want %d", ts, want)
		}
	}
}

func TestBadProperties(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ key, value string }{
		{"stream.batchsize", "0"}, {"stream.rowsize", "50"}, {"stream.linger", "soon"},
		{"stream.maxlag", "-1"}, {"stream.keys", "x"}, {"partitions", "2000"},
	} {
		err := func() error {
			_, err := parseOptions(adapters.Properties{tc.key: tc.value})
			return err
		}()
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key {
			t.Errorf("%s=%s: error %v, want a ConfigError naming %s", tc.key, tc.value, err, tc.key)
		}
	}
	var ce *adapters.ConfigError
	if _, err := New(nil, plainDB{}); !errors.As(err, &ce) {
		t.Errorf("New on an adapter without streams: %v, want a ConfigError", err)
	}
}

// plainDB is an adapter without streams.
type plainDB struct{}

func (plainDB) Read(context.Context, string, string, []string, []adapters.Field) ([]adapters.Field, error) {
	return nil, nil
}
func (plainDB) Scan(context.Context, string, string, int, []string, []adapters.Record) ([]adapters.Record, error) {
	return nil, nil
}
func (plainDB) Update(context.Context, string, string, []adapters.Field) error { return nil }
func (plainDB) Insert(context.Context, string, string, []adapters.Field) error { return nil }
func (plainDB) Delete(context.Context, string, string) error                   { return nil }
func (plainDB) Close() error                                                   { return nil }

// A consumer that cannot reach the end of its partition makes the run
// fail: the drain is bounded by Stop's context and reported.
func TestUnfinishedDrainIsAProblem(t *testing.T) {
	t.Parallel()
	db := &fakeDB{readDelay: map[int]time.Duration{1: time.Hour}}
	w, err := New(adapters.Properties{"partitions": "2", "stream.maxlag": "0"}, db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := w.Start(ctx, "run", 2); err != nil {
		t.Fatal(err)
	}
	wk := w.NewWorker(1)
	for range 1000 {
		if _, _, err := wk.Transaction(ctx, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	sctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_ = w.Stop(sctx)
	final, err := w.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	s := w.Summary()
	if s.Drained || s.Lost == 0 || len(final.Problems) < 2 {
		t.Errorf("drained %v, lost %d, problems %q; want an unfinished drain and lost rows reported", s.Drained, s.Lost, final.Problems)
	}
}

func TestSetPartitionsBounds(t *testing.T) {
	t.Parallel()
	w, err := New(adapters.Properties{}, &fakeDB{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []int{0, MaxPartitions + 1} {
		if err := w.SetPartitions(ctx, n); err == nil {
			t.Errorf("SetPartitions(%d) accepted", n)
		}
	}
	// Before Start the count is only remembered.
	if err := w.SetPartitions(ctx, 3); err != nil || w.Partitions() != 3 {
		t.Errorf("SetPartitions(3) before Start: %v, Partitions() = %d", err, w.Partitions())
	}
	if err := w.Start(ctx, "run", 3); err != nil {
		t.Fatal(err)
	}
	if err := w.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := w.SetPartitions(ctx, 4); err == nil {
		t.Error("SetPartitions after Stop accepted")
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	f, _ := workload.Lookup(Name)
	adaptertest.CheckKeys(t, f.Properties, f.Keys, adapters.Properties{}, func(r *adapters.Reader) { readOptions(r) })
}

// A stream that can only grow (Kafka) refuses a smaller partition count
// with its own error, keeps its partitions and epoch, and still grows.
func TestGrowOnlyStreamRefusesShrink(t *testing.T) {
	t.Parallel()
	w, err := New(adapters.Properties{}, &fakeDB{growOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := w.Start(ctx, "run", 3); err != nil {
		t.Fatal(err)
	}
	err = w.SetPartitions(ctx, 2)
	if !errors.Is(err, errFakeShrink) {
		t.Errorf("SetPartitions(2) on 3 = %v, want the stream's shrink error", err)
	}
	if got := w.Partitions(); got != 3 {
		t.Errorf("Partitions() = %d after a refused shrink, want 3", got)
	}
	if err := w.SetPartitions(ctx, 5); err != nil || w.Partitions() != 5 {
		t.Errorf("SetPartitions(5): %v, Partitions() = %d", err, w.Partitions())
	}
	if err := w.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	final, err := w.Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s := w.Summary(); s.Epochs != 2 || len(final.Problems) != 0 {
		t.Errorf("epochs %d, problems %q; want 2 epochs (3, then 5) and none", s.Epochs, final.Problems)
	}
}
