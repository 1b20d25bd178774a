package timeseries

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/internal/testload"
	"benchtop/results/report"
	"benchtop/workload"
)

var sharedHost = host.NewSampler()

// run drives the workload through the engine's runner, as main does, and
// returns the results, the snapshots and the workload's closing Result.
// during, if not nil, runs once the run phase started (live controls).
func run(t *testing.T, db adapters.DB, props map[string]string, during func(r *engine.Runner)) ([]*engine.PhaseResult, []*engine.Snapshot, *Result) {
	t.Helper()
	return runWatched(t, db, props, nil, during)
}

// runWatched is run with watch called on each snapshot as it comes.
func runWatched(t *testing.T, db adapters.DB, props map[string]string, watch func(*engine.Snapshot), during func(r *engine.Runner)) ([]*engine.PhaseResult, []*engine.Snapshot, *Result) {
	t.Helper()
	p := map[string]string{"workload": Name, "status.interval": "100ms"}
	for k, v := range props {
		p[k] = v
	}
	cfg, warns, err := engine.NewConfig("run", "fake", p)
	if err != nil {
		t.Fatalf("NewConfig: %v", err)
	}
	for _, w := range warns {
		t.Errorf("NewConfig warning: %s", w)
	}
	var mu sync.Mutex
	var snaps []*engine.Snapshot
	started := make(chan struct{})
	var once sync.Once
	r, err := engine.New(cfg, db, engine.Options{
		Host: sharedHost,
		OnSnapshot: []func(*engine.Snapshot){func(s *engine.Snapshot) {
			mu.Lock()
			snaps = append(snaps, s)
			mu.Unlock()
			if watch != nil {
				watch(s)
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
	type out struct {
		res []*engine.PhaseResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := r.Run(context.Background())
		done <- out{res, err}
	}()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the phase did not start")
	}
	if during != nil {
		during(r)
	}
	var o out
	select {
	case o = <-done:
	case <-time.After(60 * time.Second):
		r.Stop()
		t.Fatal("the run did not end within 60s")
	}
	if o.err != nil {
		t.Fatalf("Run: %v", o.err)
	}
	last := o.res[len(o.res)-1]
	if last.Closing == nil {
		t.Fatal("no closing section")
	}
	res, ok := last.Closing.JSON.(*Result)
	if !ok {
		t.Fatalf("closing JSON is %T", last.Closing.JSON)
	}
	mu.Lock()
	defer mu.Unlock()
	return o.res, snaps, res
}

func problems(res []*engine.PhaseResult) []string { return res[len(res)-1].Closing.Problems }

// Every record the engine counted is written once, stored once, and the
// final check agrees; batches are full except the last of each writer.
func TestRunWritesEveryRecordOnce(t *testing.T) {
	t.Parallel()
	db := newFakeLP()
	res, _, r := run(t, db, map[string]string{"operationcount": "23456", "threadcount": "4", "batch.size": "1000", "flush.interval": "5s"}, nil)
	if p := problems(res); len(p) > 0 {
		t.Errorf("problems: %v", p)
	}
	if got := res[0].Set.Ops; got != 23456 {
		t.Errorf("engine counted %d records, want 23456", got)
	}
	if r.Written != 23456 || r.Stored != 23456 || r.Check != "ok" {
		t.Errorf("written %d stored %d check %q, want 23456/23456/ok", r.Written, r.Stored, r.Check)
	}
	if db.stored() != 23456 || db.dups != 0 || len(db.bad) != 0 {
		t.Errorf("fake store holds %d points, %d duplicates merged, bad lines %q", db.stored(), db.dups, db.bad)
	}
	if r.BatchesFull < 20 || r.BatchesFinal < 1 || r.BatchesFinal > 4 || r.BatchesFlushed != 0 {
		t.Errorf("batches full %d, final %d, by interval %d", r.BatchesFull, r.BatchesFinal, r.BatchesFlushed)
	}
	for _, n := range db.batches {
		if n > 1000 {
			t.Errorf("a batch of %d lines exceeds batch.size 1000", n)
		}
	}
	if r.BytesPerRecord < 125 || r.BytesPerRecord > 140 {
		t.Errorf("%.1f bytes per record, want about 132", r.BytesPerRecord)
	}
	if r.WriteLatencyUS.Count == 0 {
		t.Error("no batch write latency recorded")
	}
	// The runner measured both operation types.
	names := map[string]int64{}
	for _, o := range res[0].Final.Ops {
		names[o.Name] = o.Cumulative.Count
	}
	if names["RECORD"] != 23456 || names["WRITE"] == 0 {
		t.Errorf("runner ops = %v, want RECORD 23456 and some WRITE", names)
	}
}

// A store that loses acknowledged points is caught by the final count,
// reported as a Problem, in the text report and in the JSON summary.
func TestMismatchIsAProblem(t *testing.T) {
	t.Parallel()
	db := newFakeLP()
	db.dropEvery = 3
	res, _, r := run(t, db, map[string]string{"operationcount": "10000", "threadcount": "2", "batch.size": "500", "timeseries.check.timeout": "1s"}, nil)
	if r.Check != "mismatch" || r.Stored >= r.Written {
		t.Errorf("check %q, written %d, stored %d: the loss went unnoticed", r.Check, r.Written, r.Stored)
	}
	p := problems(res)
	if len(p) != 1 || !strings.Contains(p[0], "acknowledged points are missing") {
		t.Errorf("problems = %q", p)
	}
	var text bytes.Buffer
	report.WriteText(&text, res, engine.Info{})
	if !strings.Contains(text.String(), "# PROBLEM: timeseries:") || !strings.Contains(text.String(), "[TIMESERIES], Check, mismatch") {
		t.Errorf("text report lacks the problem:\n%s", text.String())
	}
	var js bytes.Buffer
	if err := report.WriteJSON(&js, res, engine.Info{}); err != nil {
		t.Fatal(err)
	}
	var m struct {
		TS       map[string]any `json:"timeseries"`
		Problems []string       `json:"problems"`
	}
	if err := json.Unmarshal(js.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if m.TS["written"] != float64(r.Written) || m.TS["stored"] != float64(r.Stored) || len(m.Problems) != 1 {
		t.Errorf("JSON timeseries = %v, problems %v", m.TS, m.Problems)
	}

	// More points than were sent is a problem too.
	db2 := newFakeLP()
	db2.countExtra = 7
	res2, _, r2 := run(t, db2, map[string]string{"operationcount": "1000", "batch.size": "100"}, nil)
	if r2.Check != "mismatch" || len(problems(res2)) != 1 || !strings.Contains(problems(res2)[0], "7 more than were sent") {
		t.Errorf("surplus: check %q, problems %q", r2.Check, problems(res2))
	}
}

// With a target rate batches fill slowly: the flush interval sends them
// partial. (Counts and bounds only: a run paced at 400 records/s for 600
// records lasts at least 1.5 s whatever the load, so the 200 ms flush
// interval fires; how many records a batch holds depends on the clock.)
func TestFlushIntervalSendsPartialBatches(t *testing.T) {
	t.Parallel()
	db := newFakeLP()
	_, _, r := run(t, db, map[string]string{"threadcount": "2", "target": "400", "operationcount": "600", "batch.size": "5000", "flush.interval": "200ms"}, nil)
	if r.Check != "ok" || r.Written != 600 {
		t.Errorf("check %q (written %d, stored %d), want ok and 600", r.Check, r.Written, r.Stored)
	}
	if r.BatchesFull != 0 || r.BatchesFlushed < 1 {
		t.Errorf("batches: %d full, %d by flush.interval: want none full and some by interval", r.BatchesFull, r.BatchesFlushed)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if len(db.batches) < 3 {
		t.Errorf("%d batches for 600 records over 1.5 s or more with a 200 ms flush interval, want partial batches", len(db.batches))
	}
	for _, n := range db.batches {
		if n >= 5000 {
			t.Errorf("a batch of %d records: full, not flushed by interval", n)
		}
	}
}

// A slow server makes unthrottled writers wait: backpressure near 1. A
// fast one at a low target: backpressure near 0. The server's delays are
// long against the time to build a batch (microseconds, milliseconds on a
// busy machine), so the fractions hold under load.
func TestBackpressure(t *testing.T) {
	if testing.Short() {
		t.Skip("a server held back for seconds (go test -short skips it)")
	}
	t.Parallel()
	// A writer is not blocked while the machine wakes it and while it
	// builds its next batch: against a 500 ms send that is a few
	// percent, unless the machine holds goroutines back for tens of
	// milliseconds (CI's lanes under -race once made it 0.32 against a
	// 200 ms send); then the share is not judged.
	slow := newFakeLP()
	slow.delay = 500 * time.Millisecond
	stopSlow := make(chan struct{})
	lateSlow := testload.Lateness(stopSlow)
	_, snaps, r := run(t, slow, map[string]string{"threadcount": "2", "maxexecutiontime": "2.5", "batch.size": "20"}, nil)
	close(stopSlow)
	if late99 := <-lateSlow; r.Backpressure < 0.6 {
		if late99 > 20*time.Millisecond {
			t.Logf("backpressure %.2f against a 500ms server not judged: this machine woke goroutines %v late at p99", r.Backpressure, late99)
		} else {
			t.Errorf("backpressure %.2f against a 500ms server with unthrottled writers, want near 1 (wake-up lateness p99 %v)", r.Backpressure, late99)
		}
	}
	warned := false
	for _, s := range snaps {
		for _, w := range s.Warnings {
			warned = warned || strings.HasPrefix(w, "backpressure:")
		}
		if n, ok := s.Workload.Figure("writers"); ok && n > 2 {
			t.Errorf("view counts %v writers, there are 2", n)
		}
	}
	if !warned {
		t.Error("no backpressure warning")
	}

	fast := newFakeLP()
	_, _, r = run(t, fast, map[string]string{"threadcount": "2", "target": "200", "operationcount": "200", "batch.size": "20"}, nil)
	if r.Backpressure > 0.4 {
		t.Errorf("backpressure %.2f against an instant server at 200 records/s, want near 0", r.Backpressure)
	}
	// Synchronous writers wait for every send. The share is of time: a
	// machine that holds the writer back after each send (CI's lanes
	// under -race once made it 0.34) lowers it, so it is judged only
	// where the machine wakes goroutines within 20 ms at p99.
	syncDB := newFakeLP()
	syncDB.delay = 100 * time.Millisecond
	stop := make(chan struct{})
	late := testload.Lateness(stop)
	_, _, r = run(t, syncDB, map[string]string{"threadcount": "1", "maxexecutiontime": "1", "batch.size": "10", "timeseries.inflight": "0"}, nil)
	close(stop)
	late99 := <-late
	if r.Check != "ok" {
		t.Errorf("inflight=0: check %q", r.Check)
	}
	if r.Backpressure < 0.5 {
		if late99 > 20*time.Millisecond {
			t.Skipf("inflight=0: backpressure %.2f, but this machine woke goroutines %v late at p99: too loaded to judge a share of time", r.Backpressure, late99)
		}
		t.Errorf("inflight=0: backpressure %.2f (the machine's wake-up lateness p99 %v)", r.Backpressure, late99)
	}
}

// Throttled writes are retried, counted by HTTP status and kind, and lose
// nothing.
func TestHTTPErrorsByStatusAndRetry(t *testing.T) {
	t.Parallel()
	db := newFakeLP()
	db.failFirst, db.failStatus = 1, 503
	res, _, r := run(t, db, map[string]string{"operationcount": "3000", "threadcount": "2", "batch.size": "500"}, nil)
	if len(problems(res)) > 0 || r.Check != "ok" || r.Written != 3000 {
		t.Errorf("problems %v, check %q, written %d", problems(res), r.Check, r.Written)
	}
	if r.HTTPStatus["503"] < 6 || r.Retries < 6 || r.ErrorsByKind[adapters.KindThrottled] < 6 {
		t.Errorf("HTTP %v, retries %d, kinds %v: want a 503 and a retry per batch", r.HTTPStatus, r.Retries, r.ErrorsByKind)
	}
	var write *engine.OpSnapshot
	for i, o := range res[0].Final.Ops {
		if o.Name == "WRITE" {
			write = &res[0].Final.Ops[i]
		}
	}
	// (The final partial batches are sent by Stop, after the last snapshot,
	// so the runner may miss their attempts.)
	if write == nil || write.Cumulative.ErrorsByKind[adapters.KindThrottled] < 3 {
		t.Errorf("the runner's WRITE errors do not show the throttling: %+v", write)
	}

	// A status that is not worth retrying fails the batch for good: a
	// Problem.
	bad := newFakeLP()
	bad.failFirst, bad.failStatus = 1, 400
	res, _, r = run(t, bad, map[string]string{"operationcount": "1000", "batch.size": "500"}, nil)
	if r.Failed != 1000 || r.HTTPStatus["400"] != 2 || len(problems(res)) == 0 {
		t.Errorf("400s: failed %d, HTTP %v, problems %v", r.Failed, r.HTTPStatus, problems(res))
	}
}

// Changing threads live gives one row per parallelism in the closing
// table, and the runner's segments carry the one rate, records
// acknowledged per second, as their throughput (not as an extra column
// beside ops/s), and mb_per_sec.
// The changes come after events, not after sleeps, so every step has a
// row however busy the machine: each step holds 4,000 records and
// three intervals in a row in which all its writers wrote (a row's
// first interval holds the change; the table takes a row's steady
// intervals, those after it). On a machine loaded enough (the race
// detector in CI beside other packages) a writer can miss a whole
// 100 ms interval, and a step timed by the clock alone was left with
// no steady interval and no row. Rates are not asserted (benchmarks
// measure them).
func TestSweepTable(t *testing.T) {
	if testing.Short() {
		t.Skip("a sweep of several seconds (go test -short skips it)")
	}
	t.Parallel()
	db := newFakeLP()
	db.delay = 2 * time.Millisecond
	waitStored := func(n int64) {
		deadline := time.Now().Add(time.Minute)
		for db.stored() < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	// run of intervals in a row with the same number of writers active.
	var mu sync.Mutex
	var runOf, runLen int
	watch := func(s *engine.Snapshot) {
		n, ok := s.Workload.Figure("writers")
		if !ok {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if int(n) == runOf {
			runLen++
		} else {
			runOf, runLen = int(n), 1
		}
	}
	waitSteady := func(writers int) {
		deadline := time.Now().Add(time.Minute)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := runOf == writers && runLen >= 3
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Errorf("no three intervals in a row with %d writers in a minute", writers)
	}
	const step = 4000
	res, _, r := runWatched(t, db, map[string]string{"threadcount": "1", "batch.size": "500", "target": "4000"}, watch, func(rn *engine.Runner) {
		base := db.stored()
		for i, n := range []int{1, 2, 4} {
			waitStored(base + int64(i+1)*step)
			waitSteady(n)
			if n < 4 {
				_ = rn.SetThreads(2 * n)
			}
		}
		rn.Stop()
	})
	var writers []int
	var sum float64
	for _, row := range r.ByParallelism {
		writers = append(writers, row.Writers)
		if row.RecordsPerSec <= 0 || row.Seconds <= 0 {
			t.Errorf("%d writers: %.0f records/s over %.2f s, want records", row.Writers, row.RecordsPerSec, row.Seconds)
		}
		sum += row.RecordsPerSec * row.Seconds
	}
	if !risingRows(writers, 1, 4) || len(writers) < 2 {
		t.Errorf("table rows by writers = %v, want [1 2 4]", writers)
	}
	// The rows cover the measured intervals (not the final flush): never
	// more than was written.
	if sum <= 0 || sum > 1.01*float64(r.Written)+1 {
		t.Errorf("the rows hold %.0f records, %d were written", sum, r.Written)
	}
	var text bytes.Buffer
	r.WriteText(&text)
	if !strings.Contains(text.String(), "# Time series ingest by parallelism") {
		t.Errorf("no table:\n%s", text.String())
	}
	segs := res[0].Segments
	if len(segs) != 3 {
		t.Fatalf("%d segments, want 3", len(segs))
	}
	for _, s := range segs {
		if _, twice := s.Extra["records_per_sec"]; twice || s.OpsPerSec <= 0 || s.Extra["mb_per_sec"] <= 0 {
			t.Errorf("segment %d: %.0f records/s, extra = %v", s.Index, s.OpsPerSec, s.Extra)
		}
	}
	// [OVERALL] and the JSON's throughput are the same rate: records
	// acknowledged over the run time.
	if main := res[len(res)-1]; !main.Rated || main.RateCount != float64(r.Written) {
		t.Errorf("run phase rated %v, counting %.0f records, want the %d written", main.Rated, main.RateCount, r.Written)
	}
	if r.Check != "ok" {
		t.Errorf("check %q written %d stored %d", r.Check, r.Written, r.Stored)
	}
}

// The load command writes recordcount records the same way.
func TestLoadPhase(t *testing.T) {
	t.Parallel()
	db := newFakeLP()
	cfg, _, err := engine.NewConfig("load", "fake", map[string]string{"workload": Name, "recordcount": "5000", "threadcount": "3", "batch.size": "1000", "status.interval": "100ms"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := engine.New(cfg, db, engine.Options{Host: sharedHost})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	res, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c := res[len(res)-1].Closing
	if c == nil || len(c.Problems) > 0 || c.JSON.(*Result).Written != 5000 || db.stored() != 5000 {
		t.Errorf("load: closing %+v, stored %d", c, db.stored())
	}
}

func TestNeedsALineWriter(t *testing.T) {
	t.Parallel()
	cfg, _, err := engine.NewConfig("run", "fake", map[string]string{"workload": Name})
	if err != nil {
		t.Fatal(err)
	}
	_, err = engine.New(cfg, kvOnly{}, engine.Options{Host: sharedHost})
	var ce *adapters.ConfigError
	if err == nil || !errorsAs(err, &ce) || !strings.Contains(err.Error(), "benchtop run influx") {
		t.Errorf("engine.New on a key-value adapter: %v, want a ConfigError naming the influx adapter", err)
	}
}

type kvOnly struct{ adapters.DB }

// risingRows tells whether the table's writer counts rise from first to
// last, each a power of two (as the sweeps set them).
func risingRows(writers []int, first, last int) bool {
	if len(writers) == 0 || writers[0] != first || writers[len(writers)-1] != last {
		return false
	}
	for i, w := range writers {
		if w&(w-1) != 0 || (i > 0 && w <= writers[i-1]) {
			return false
		}
	}
	return true
}

func TestKeys(t *testing.T) {
	t.Parallel()
	f, _ := workload.Lookup(Name)
	adaptertest.CheckKeys(t, f.Properties, f.Keys, adapters.Properties{PropFields: "a,b"}, func(r *adapters.Reader) { readConfig(r) })
}
