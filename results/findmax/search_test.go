package findmax

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/results/thresholds"
	"benchtop/rundata"
)

// outcome is what a fake database does in one interval at a target with
// threads: successful and failed operations per second, their latency
// from the intended start and their service time.
type outcome struct {
	ok, failed        float64
	intended, service time.Duration
	// tailShare of the successful operations took tail (intended and
	// service time) instead.
	tailShare float64
	tail      time.Duration
}

// fakeRun steps a search interval by interval against a model of a
// database, as the runner would: it is the search's controller, makes
// each interval's measurements and snapshot, and applies the search's
// changes (and the test's) as events.
type fakeRun struct {
	t     *testing.T
	s     *Search
	model func(target float64, threads int) outcome
	host  host.Sample
	// agents, when set, make the snapshots a fleet coordinator's.
	agents []engine.AgentRow

	mu      sync.Mutex
	target  float64
	threads int
	paused  bool
	stopped bool
	events  []engine.Event
	segs    []engine.Segment
	set     *measure.Set
	now     time.Time
	elapsed time.Duration
}

func newFakeRun(t *testing.T, spec Spec, threads int, model func(float64, int) outcome) *fakeRun {
	f := &fakeRun{t: t, model: model, threads: threads, now: time.Unix(1000, 0)}
	f.s = New(spec, engine.PhaseRun, nil)
	f.s.Bind(f)
	f.segs = []engine.Segment{{Index: 1, Open: true}}
	t.Cleanup(f.s.Close)
	return f
}

func (f *fakeRun) event(kind, from, to string) {
	f.events = append(f.events, engine.Event{At: f.elapsed, Kind: kind, From: from, To: to})
	f.segs[len(f.segs)-1].Open = false
	f.segs = append(f.segs, engine.Segment{Index: len(f.segs) + 1, Open: true})
}

func (f *fakeRun) SetThreads(n int) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n != f.threads {
		f.event("threads", fmt.Sprint(f.threads), fmt.Sprint(n))
		f.threads = n
	}
	return nil
}

func (f *fakeRun) SetTarget(r float64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r != f.target {
		f.event("target", engine.FormatTarget(f.target), engine.FormatTarget(r))
		f.target = r
	}
	return nil
}

func (f *fakeRun) SetPartitions(int) error { return nil }
func (f *fakeRun) Pause() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paused = true
	f.event("pause", "", "")
}
func (f *fakeRun) Resume() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.paused = false
	f.event("resume", "", "")
}
func (f *fakeRun) Mark(string) {}
func (f *fakeRun) NewSegment() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.event("segment", "", "")
}
func (f *fakeRun) Stop() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.stopped = true
}

var opNames = []string{"READ", "UPDATE"}

// interval runs one second: the model's operations, half reads, half
// updates, into a Set, then the snapshot.
func (f *fakeRun) interval() *engine.Snapshot {
	f.mu.Lock()
	o := outcome{}
	if !f.paused {
		o = f.model(f.target, f.threads)
	}
	// One Set, cleared each interval (the search merges it into its own
	// at once): a Set's histograms are most of these tests' CPU.
	if f.set == nil {
		f.set = &measure.Set{}
	}
	set := f.set
	set.Reset()
	okN, failN := int64(math.Round(o.ok)), int64(math.Round(o.failed))
	for op := range opNames {
		n := okN / 2
		if op == 0 {
			n = okN - okN/2
		}
		if nt := int64(math.Round(float64(n) * o.tailShare)); nt > 0 {
			set.RecordN(measure.Slot(op, measure.OK), int64(o.tail), nt)
			if f.target > 0 {
				set.RecordN(measure.Slot(op, measure.OKIntended), int64(o.tail), nt)
			}
			n -= nt
		}
		if n > 0 {
			set.RecordN(measure.Slot(op, measure.OK), int64(o.service), n)
			if f.target > 0 {
				set.RecordN(measure.Slot(op, measure.OKIntended), int64(o.intended), n)
			}
		}
	}
	if failN > 0 {
		set.RecordN(measure.Slot(0, measure.Failed), int64(o.service), failN)
		set.AddError(0, "error", failN)
	}
	set.Ops, set.Failed = okN+failN, failN
	f.now = f.now.Add(time.Second)
	f.elapsed += time.Second
	snap := &engine.Snapshot{Phase: engine.PhaseRun, Time: f.now, Elapsed: f.elapsed, Interval: time.Second,
		Threads: f.threads, Target: f.target, Paused: f.paused, Events: f.events, Host: f.host, Agents: f.agents,
		Segments: append([]engine.Segment(nil), f.segs...)}
	f.events = nil
	f.mu.Unlock()
	f.s.OnInterval(engine.PhaseRun, opNames, f.now.Add(-time.Second), f.now, set)
	f.s.OnSnapshot(snap)
	f.s.ctl.sync()
	return snap
}

// run steps until the search stops the run, at most limit intervals.
func (f *fakeRun) run(limit int) *Report {
	f.t.Helper()
	for i := 0; i < limit; i++ {
		f.interval()
		f.mu.Lock()
		stopped := f.stopped
		f.mu.Unlock()
		if stopped {
			return f.s.Report()
		}
	}
	f.t.Fatalf("the search did not end in %d intervals: %+v", limit, f.s.Report())
	return nil
}

// queueing is a database of capacity c whose latency grows as
// base/(1-rate/c) below it and is a second above it; unpaced, its
// threads keep it at capacity with a second's queue.
func queueing(c float64, base time.Duration) func(float64, int) outcome {
	return func(target float64, threads int) outcome {
		if target <= 0 || target >= c {
			return outcome{ok: c, intended: time.Second, service: time.Second}
		}
		l := time.Duration(float64(base) / (1 - target/c))
		return outcome{ok: target, intended: l, service: l}
	}
}

func conds(t *testing.T, exprs ...string) Spec {
	t.Helper()
	var cs []thresholds.Threshold
	for _, e := range exprs {
		c, err := ParseCondition(e)
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, c)
	}
	spec := NewSpec(cs)
	spec.Budget = time.Hour
	return spec
}

// crossing is where queueing(c, base)'s latency crosses bound.
func crossing(c float64, base, bound time.Duration) float64 {
	return c * (1 - float64(base)/float64(bound))
}

// The answer brackets the rate where latency crosses the bound, to the
// precision asked, for several capacities and two bounds; the probes
// start unlimited and the bracket narrows.
func TestSearchBracketsTheCrossing(t *testing.T) {
	t.Parallel()
	for _, c := range []float64{2_000, 10_000, 50_000} {
		for _, bound := range []time.Duration{10 * time.Millisecond, 40 * time.Millisecond} {
			t.Run(fmt.Sprintf("%.0f/%v", c, bound), func(t *testing.T) {
				spec := conds(t, "p99<"+bound.String())
				f := newFakeRun(t, spec, 5000, queueing(c, 2*time.Millisecond))
				r := f.run(500)
				want := crossing(c, 2*time.Millisecond, bound)
				if r.Outcome != Answer || r.RateOpsSec == nil || !r.Trusted {
					t.Fatalf("outcome %s, trusted %v, reasons %v: %s", r.Outcome, r.Trusted, r.Reasons, r.Answer)
				}
				lo, hi := *r.Bracket.LoOpsSec, *r.Bracket.HiOpsSec
				if lo > want || hi < want || (hi-lo)/lo > spec.Precision {
					t.Errorf("bracket %.0f to %.0f, crossing at %.0f, precision %.2f", lo, hi, want, spec.Precision)
				}
				if *r.RateOpsSec != lo {
					t.Errorf("answer %v, bracket's lo %v", *r.RateOpsSec, lo)
				}
				if p := r.Probes[0]; p.TargetOpsSec != 0 || p.Outcome != Fail {
					t.Errorf("first probe: %+v, want unlimited and failed", p)
				}
				if !strings.HasPrefix(r.Answer, "sustainable ") || !strings.Contains(r.Answer, "failed p99") {
					t.Errorf("answer line %q", r.Answer)
				}
				if r.Status() != StatusTrusted {
					t.Errorf("status %s", r.Status())
				}
			})
		}
	}
}

// Every probe is judged on its steady part only: the interval of its
// change is left out, and it holds at least MinIntervals intervals and
// 100/(1-q) successful operations per percentile.
func TestProbesHoldTheirEvidence(t *testing.T) {
	t.Parallel()
	spec := conds(t, "READ.p99<10ms", "p50<10ms")
	// At 1,000 ops/s READ is 500 a second: p99 needs 10,000 of them.
	f := newFakeRun(t, spec, 1000, queueing(1_000, 2*time.Millisecond))
	r := f.run(5000)
	for _, p := range r.Probes {
		if p.Outcome != Pass && p.Outcome != Fail {
			continue
		}
		if p.Intervals < MinIntervals {
			t.Errorf("probe %d judged after %d intervals", p.N, p.Intervals)
		}
		var read Condition
		for _, c := range p.Conditions {
			if c.Expr == "READ.p99<10ms" {
				read = c
			}
		}
		if p.Outcome == Pass && read.Samples < 10_000 {
			t.Errorf("probe %d passed on %d READ samples (want 10,000)", p.N, read.Samples)
		}
		// The transition interval is left out: the steady part is one
		// interval shorter than the probe.
		if span := p.EndS - p.StartS; math.Abs(span-p.SteadyS-1) > 1e-9 {
			t.Errorf("probe %d: from %.0f s to %.0f s, steady %.0f s: the transition interval was not left out", p.N, p.StartS, p.EndS, p.SteadyS)
		}
	}
	if r.Outcome != Answer {
		t.Fatalf("outcome %s: %s", r.Outcome, r.Answer)
	}
}

// A probe far above capacity fails as soon as 100 operations exceed
// the bound after its MinIntervals, without waiting for a pass's
// evidence.
func TestFailureNeedsNoMoreThanItsEvidence(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	f := newFakeRun(t, spec, 1000, queueing(300, 2*time.Millisecond))
	r := f.run(5000)
	for _, p := range r.Probes {
		if p.Outcome == Fail && p.TargetOpsSec > 300 && p.Intervals != MinIntervals {
			t.Errorf("probe %d at %v failed after %d intervals, want %d", p.N, p.TargetOpsSec, p.Intervals, MinIntervals)
		}
	}
}

// No rate meets a bound the database's own latency exceeds: the search
// goes down to the floor, which fails, and says so.
func TestNoRateDownToTheFloor(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<1ms")
	f := newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	r := f.run(500)
	snap := f.interval() // the search is over: its marks stay
	for _, g := range snap.Segments {
		if g.Best || g.Knee {
			t.Errorf("segment %d marked best %v, knee %v with no probe passing", g.Index, g.Best, g.Knee)
		}
	}
	if snap.SegmentsNote != "no probe of the capacity search met its conditions" {
		t.Errorf("note %q", snap.SegmentsNote)
	}
	if r.Outcome != None || r.Status() != StatusNone || r.RateOpsSec != nil {
		t.Fatalf("outcome %s, status %s: %s", r.Outcome, r.Status(), r.Answer)
	}
	last := r.Probes[len(r.Probes)-1]
	if last.TargetOpsSec != 100 || last.Outcome != Fail {
		t.Errorf("last probe %+v, want the floor (1 %% of 10,000) failed", last)
	}
	if !strings.Contains(r.Answer, "no rate down to the floor (100 ops/s) meets p99<1ms") {
		t.Errorf("answer %q", r.Answer)
	}
}

// No rate down to the floor with the client saturated says so: the
// rates may have failed by the client, not the database.
func TestNoRateWithTheClientSaturated(t *testing.T) {
	t.Parallel()
	f := newFakeRun(t, conds(t, "p99<1ms"), 1000, queueing(10_000, 2*time.Millisecond))
	f.host = host.Sample{Cores: 2, CPUTotal: 100, ProcCPU: 30}
	r := f.run(500)
	if r.Outcome != None || r.Status() != StatusNone || r.Trusted || !hasKind(r.Reasons, ReasonClient) {
		t.Fatalf("outcome %s, status %s, trusted %v, reasons %v", r.Outcome, r.Status(), r.Trusted, r.Reasons)
	}
	if !strings.Contains(r.Answer, "; not the database's alone: the client saturated") {
		t.Errorf("answer %q", r.Answer)
	}
	// With room on the host, nothing else is named.
	if r = newFakeRun(t, conds(t, "p99<1ms"), 1000, queueing(10_000, 2*time.Millisecond)).run(500); len(r.Reasons) > 0 {
		t.Errorf("reasons %v", r.Reasons)
	}
}

// A budget too short to close the bracket gives the bracket so far,
// untrusted, with the reason.
func TestBudgetRunsOut(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	spec.Budget = 20 * time.Second
	f := newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	r := f.run(100)
	if r.Status() != StatusUntrusted || r.Trusted {
		t.Fatalf("status %s, trusted %v: %s", r.Status(), r.Trusted, r.Answer)
	}
	if r.Outcome == Answer && !hasKind(r.Reasons, ReasonUnclosed) {
		t.Errorf("reasons %v, want the bracket's", r.Reasons)
	}
	if r.ElapsedS > 21 {
		t.Errorf("the search took %.0f s of a 20 s budget", r.ElapsedS)
	}
}

// The client's own CPU at its limit makes the answer untrusted.
func TestClientSaturated(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	f := newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	f.host = host.Sample{Cores: 2, CPUTotal: 99, ProcCPU: 196}
	r := f.run(500)
	if r.Outcome != Answer || r.Trusted || !hasKind(r.Reasons, ReasonClient) {
		t.Fatalf("outcome %s, trusted %v, reasons %v", r.Outcome, r.Trusted, r.Reasons)
	}
	if !strings.Contains(r.Answer, "not trusted: the client saturated") {
		t.Errorf("answer %q", r.Answer)
	}
	// A fleet: an agent's host at its limit.
	f = newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	f.agents = []engine.AgentRow{{Name: "vm1", State: "running", CPU: 40}, {Name: "vm2", State: "running", CPU: 97}}
	r = f.run(500)
	if r.Trusted || !hasKind(r.Reasons, ReasonClient) || !strings.Contains(r.Reasons[0].Text, "vm2") {
		t.Fatalf("fleet: trusted %v, reasons %v", r.Trusted, r.Reasons)
	}
	// Another load filling the host while benchtop uses little starves
	// benchtop's threads all the same.
	f = newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	f.host = host.Sample{Cores: 2, CPUTotal: 100, ProcCPU: 20}
	if r = f.run(500); r.Trusted || !hasKind(r.Reasons, ReasonClient) || !strings.Contains(r.Reasons[0].Text, "another load") {
		t.Fatalf("full host: trusted %v, reasons %v", r.Trusted, r.Reasons)
	}
	// A saturated client keeps every thread busy with the database's
	// latency held: the client is named, not the threads, and the
	// search does not stop at its first probes.
	few := func(target float64, n int) outcome {
		most := float64(n) / 0.010
		if target <= 0 || target >= most {
			return outcome{ok: most, intended: time.Second, service: 10 * time.Millisecond}
		}
		return outcome{ok: target, intended: time.Duration(10e6 / (1 - target/most)), service: 10 * time.Millisecond}
	}
	stop := conds(t, "p99<50ms")
	stop.StopOnThreads = true
	f = newFakeRun(t, stop, 8, few)
	f.host = host.Sample{Cores: 2, CPUTotal: 99, ProcCPU: 196}
	if r = f.run(1000); hasKind(r.Reasons, ReasonThreads) || !hasKind(r.Reasons, ReasonClient) {
		t.Fatalf("saturated client with few threads: reasons %v", r.Reasons)
	}
	// A host with room left is not the client's limit.
	f = newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	f.host = host.Sample{Cores: 2, CPUTotal: 80, ProcCPU: 20}
	if r = f.run(500); !r.Trusted {
		t.Fatalf("host with room: reasons %v", r.Reasons)
	}
}

// Threads that wait for themselves: few threads whose operations queue
// behind each other (the database's service time holds) are the limit,
// not the database.
func TestThreadsTheLimit(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<20ms")
	// 8 threads of 10 ms operations: at most 800 ops/s; intended
	// latency grows as the threads near it, service time does not.
	threads := func(target float64, n int) outcome {
		most := float64(n) / 0.010
		if target <= 0 || target >= most {
			return outcome{ok: most, intended: time.Second, service: 10 * time.Millisecond}
		}
		return outcome{ok: target, intended: time.Duration(10e6 / (1 - target/most)), service: 10 * time.Millisecond}
	}
	f := newFakeRun(t, spec, 8, threads)
	r := f.run(1000)
	if r.Outcome != Answer || r.Trusted || !hasKind(r.Reasons, ReasonThreads) || !strings.Contains(r.Reasons[0].Text, "from the first probe") {
		t.Fatalf("outcome %s, trusted %v, reasons %v: %s", r.Outcome, r.Trusted, r.Reasons, r.Answer)
	}
	// Headless, the search ends there: two probes, not minutes of them.
	spec = conds(t, "p99<50ms")
	spec.StopOnThreads = true
	f = newFakeRun(t, spec, 8, threads)
	r = f.run(1000)
	if len(r.Probes) != 2 || r.Probes[0].Outcome != Pass || r.Trusted || r.Status() != StatusUntrusted || !hasKind(r.Reasons, ReasonThreads) ||
		!strings.Contains(r.Reasons[0].Text, "16 threads would reach about 1,600 ops/s") {
		t.Fatalf("%d probes, unlimited %s, status %s, reasons %v", len(r.Probes), r.Probes[0].Outcome, r.Status(), r.Reasons)
	}
}

// A database at its capacity keeps the threads busy too (Little's law):
// the failure that decided the bracket is asked again with twice the
// threads, and since it fails again, the threads are not named; the
// answer is then held before it is given.
func TestThreadLimitIsTested(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<50ms")
	spec.StopOnThreads = true
	// 64 threads on a database of 20,000 ops/s with 1 ms service: 64
	// threads could do 64,000 ops/s; unpaced they queue at the
	// database (3.2 ms each).
	db := func(target float64, n int) outcome {
		const c = 20000.0
		if target <= 0 {
			return outcome{ok: c, intended: time.Duration(float64(n) / c * 1e9), service: time.Duration(float64(n) / c * 1e9)}
		}
		if target >= c {
			// Every thread busy at the database's rate: Little's law
			// says the threads were the limit, but more would not help.
			l := time.Duration(float64(n) / c * 1e9)
			return outcome{ok: c, intended: time.Second, service: l}
		}
		l := time.Duration(1e6 / (1 - target/c))
		return outcome{ok: target, intended: l, service: l}
	}
	f := newFakeRun(t, spec, 64, db)
	r := f.run(2000)
	var test, hold *Probe
	for i, p := range r.Probes {
		switch p.Role {
		case ThreadTest:
			test = &r.Probes[i]
		case Hold:
			hold = &r.Probes[i]
		}
	}
	if test == nil || test.Threads != 128 || test.Outcome != Fail {
		t.Fatalf("thread test %+v; probes:\n%s", test, probeLines(r))
	}
	if hold == nil || hold.Outcome != Pass || hold.Threads != 64 || hold.SteadyS < 30 || hold.TargetOpsSec != *r.RateOpsSec {
		t.Fatalf("hold %+v; probes:\n%s", hold, probeLines(r))
	}
	if !r.Trusted || r.HeldS < 30 || !strings.Contains(r.Answer, "held") {
		t.Fatalf("trusted %v, held %.0f s, reasons %v: %s", r.Trusted, r.HeldS, r.Reasons, r.Answer)
	}
	if rate := *r.RateOpsSec; rate < 0.95*20000 || rate > 1.02*20000 {
		t.Fatalf("answer %.0f, want within [0.95, 1.02] of 20,000", rate)
	}
	// Where twice the threads pass, they were the limit: 8 threads whose
	// operations take 12 ms unpaced and 10 ms paced (so the first probes
	// do not show it at once), the wait for a thread growing as the
	// target nears what 8 threads give.
	threads := func(target float64, n int) outcome {
		most := float64(n) / 0.010
		if target <= 0 {
			return outcome{ok: float64(n) / 0.012, intended: 12 * time.Millisecond, service: 12 * time.Millisecond}
		}
		if target >= most {
			return outcome{ok: most, intended: time.Second, service: 10 * time.Millisecond}
		}
		return outcome{ok: target, intended: time.Duration(10e6 / (1 - target/most)), service: 10 * time.Millisecond}
	}
	f = newFakeRun(t, conds(t, "p99<40ms"), 8, threads)
	r = f.run(1000)
	test = nil
	for i, p := range r.Probes {
		if p.Role == ThreadTest {
			test = &r.Probes[i]
		}
	}
	if test == nil || test.Threads != 16 || test.Outcome != Pass || r.Trusted || !hasKind(r.Reasons, ReasonThreads) ||
		!strings.Contains(r.Reasons[0].Text, "passed with 16") {
		t.Fatalf("thread test %+v, trusted %v, reasons %v; probes:\n%s", test, r.Trusted, r.Reasons, probeLines(r))
	}
}

// A hold that fails steps the search down: the rate given is one that
// held.
func TestHoldFailsStepsDown(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	// Short probes pass up to 10,000 ops/s; held for long, the database
	// (compacting after 20 s at a rate) keeps only 9,000.
	var at float64
	var since int
	db := func(target float64, n int) outcome {
		if target != at {
			at, since = target, 0
		}
		since++
		if target <= 0 || target >= 11000 {
			return outcome{ok: 11000, intended: time.Second, service: time.Second}
		}
		l := 2 * time.Millisecond
		if target > 10000 || (target > 9000 && since > 20) {
			l = 50 * time.Millisecond
		}
		return outcome{ok: target, intended: l, service: l}
	}
	f := newFakeRun(t, spec, 1000, db)
	r := f.run(3000)
	var failed bool
	for _, p := range r.Probes {
		failed = failed || (p.Role == Hold && p.Outcome == Fail)
	}
	if !failed || r.RateOpsSec == nil || *r.RateOpsSec > 9000 || r.HeldS < 30 {
		t.Fatalf("a failed hold %v, answer %v held %.0f s: %s; probes:\n%s", failed, r.RateOpsSec, r.HeldS, r.Answer, probeLines(r))
	}
}

// probeLines is a report's probes, one a line.
func probeLines(r *Report) string {
	_, lines := r.TextLines()
	return strings.Join(lines, "\n")
}

// Failed operations at the answer's rate make it untrusted, unless a
// condition judges errors.
func TestErrorsAtTheAnswer(t *testing.T) {
	t.Parallel()
	model := func(target float64, threads int) outcome {
		o := queueing(10_000, 2*time.Millisecond)(target, threads)
		o.failed = math.Max(1, o.ok/1000)
		return o
	}
	r := newFakeRun(t, conds(t, "p99<10ms"), 1000, model).run(500)
	if r.Trusted || !hasKind(r.Reasons, ReasonErrors) {
		t.Fatalf("trusted %v, reasons %v", r.Trusted, r.Reasons)
	}
	r = newFakeRun(t, conds(t, "p99<10ms", "errors<1%"), 1000, model).run(500)
	if !r.Trusted || !strings.Contains(r.Answer, "errors 0.1") {
		t.Fatalf("with errors<1%%: trusted %v, reasons %v, %q", r.Trusted, r.Reasons, r.Answer)
	}
	// errors<0.01% fails every rate.
	r = newFakeRun(t, conds(t, "p99<10ms", "errors<0.01%"), 1000, model).run(500)
	if r.Outcome != None {
		t.Fatalf("with errors<0.01%%: %s: %s", r.Outcome, r.Answer)
	}
}

// A database on which every operation fails has no rate to find: the
// unlimited probe says so once it has held its intervals, and the
// search does not wait its budget out for latencies that never come.
func TestNothingSucceeds(t *testing.T) {
	t.Parallel()
	model := func(float64, int) outcome { return outcome{failed: 500, service: time.Millisecond} }
	spec := conds(t, "p99<10ms")
	spec.Budget = 2 * time.Minute
	f := newFakeRun(t, spec, 8, model)
	r := f.run(int(spec.Budget/time.Second) + 5)
	if r.Outcome != None || r.Answer != "no answer: no operation succeeded even unlimited" {
		t.Fatalf("%s: %q", r.Outcome, r.Answer)
	}
	if n := len(r.Probes); n != 1 || !strings.Contains(r.Probes[0].Decided, "no operation succeeded") {
		t.Fatalf("%d probes: %s", n, probeLines(r))
	}
	if f.elapsed > time.Duration(MinIntervals+3)*time.Second {
		t.Fatalf("decided after %s", f.elapsed)
	}
	// A busy client makes no operation fail: it is no reason here.
	f = newFakeRun(t, spec, 8, model)
	f.host = host.Sample{Cores: 2, CPUTotal: 100, ProcCPU: 20}
	if r = f.run(int(spec.Budget/time.Second) + 5); len(r.Reasons) != 0 || r.Answer != "no answer: no operation succeeded even unlimited" {
		t.Fatalf("client busy: %q, reasons %v", r.Answer, r.Reasons)
	}
}

// A manual change of target voids the probe in progress and the search
// asks for it again; a pause voids it and it starts again on resume.
func TestManualChangeVoidsTheProbe(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	f := newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	// Into the second probe's steady part.
	for f.s.n < 2 || f.s.cur == nil || f.s.cur.state != stateSteady {
		f.interval()
	}
	asked := f.s.cur.TargetOpsSec
	f.SetTarget(3333)
	f.interval()
	f.interval()
	f.Pause()
	f.interval()
	f.interval()
	f.Resume()
	r := f.run(500)
	var void []Probe
	for _, p := range r.Probes {
		if p.Outcome == Void {
			void = append(void, p)
		}
	}
	if len(void) != 2 || void[0].TargetOpsSec != asked || !strings.Contains(void[0].Decided, "manual change: target") ||
		void[1].Decided != "paused" {
		t.Fatalf("voided probes %+v", void)
	}
	n := void[1].N
	if next := r.Probes[n]; next.TargetOpsSec != asked || next.Outcome == Void {
		t.Errorf("after resume: %+v, want %v asked again", next, asked)
	}
	if r.Outcome != Answer || !r.Trusted {
		t.Errorf("outcome %s: %s", r.Outcome, r.Answer)
	}
}

// --find-max-over threads: one search per thread count, the best
// answer on top.
func TestOverThreads(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	spec.Threads = []int{50, 200}
	// Threads lift capacity up to 10,000 ops/s: 50 threads give 5,000.
	model := func(target float64, n int) outcome {
		return queueing(math.Min(10_000, float64(n)*100), 2*time.Millisecond)(target, n)
	}
	f := newFakeRun(t, spec, 50, model)
	r := f.run(2000)
	if len(r.PerThreads) != 2 || r.Threads != 200 || !strings.HasPrefix(r.Answer, "best at 200 threads: sustainable") {
		t.Fatalf("per threads %+v, answer %q", r.PerThreads, r.Answer)
	}
	for _, res := range r.PerThreads {
		want := crossing(math.Min(10_000, float64(res.Threads)*100), 2*time.Millisecond, 10*time.Millisecond)
		lo, hi := *res.Bracket.LoOpsSec, *res.Bracket.HiOpsSec
		if lo > want || hi < want {
			t.Errorf("threads %d: bracket %.0f to %.0f, crossing at %.0f", res.Threads, lo, hi, want)
		}
	}
	for _, p := range r.Probes {
		if p.Threads != 50 && p.Threads != 200 {
			t.Errorf("probe %d at %d threads", p.N, p.Threads)
		}
	}
}

// Best and knee follow the verdicts: best on the answer's segment, knee
// on the failing one above it; the view carries the bracket.
func TestMarksAndView(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	f := newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	var last *engine.Snapshot
	for i := 0; i < 500; i++ {
		last = f.interval()
		if f.stopped {
			break
		}
	}
	r := f.s.Report()
	v := last.Search
	if v == nil || !v.Done || v.Lo != *r.Bracket.LoOpsSec || v.Hi != *r.Bracket.HiOpsSec || v.Answer != r.Answer {
		t.Fatalf("view %+v, report %+v", v, r.CapacityResult)
	}
	var lo, hi Probe
	for _, p := range r.Probes {
		if p.TargetOpsSec == *r.Bracket.LoOpsSec && p.Outcome == Pass {
			lo = p
		}
		if p.TargetOpsSec == *r.Bracket.HiOpsSec && p.Outcome == Fail && hi.N == 0 {
			hi = p // the first failure at the bracket's top; a second confirmed it
		}
	}
	for _, g := range last.Segments {
		if g.Best != (g.Index == lo.Segment) || g.Knee != (g.Index == hi.Segment) {
			t.Errorf("segment %d: best %v knee %v; the answer's segment %d, the failure's %d", g.Index, g.Best, g.Knee, lo.Segment, hi.Segment)
		}
		if g.Knee && g.KneeFrom != lo.Segment {
			t.Errorf("the knee judged against segment %d, not the answer's %d", g.KneeFrom, lo.Segment)
		}
	}
	if last.SegmentsNote != "" {
		t.Errorf("best decided, yet the note %q", last.SegmentsNote)
	}
	if lo.Segment == 0 || hi.Segment == 0 {
		t.Errorf("probes without segments: %+v %+v", lo, hi)
	}
}

// An unlimited probe that reached less than the database takes (a client
// that hiccupped through it) bounds nothing: the bracket closes only on
// a paced failure, climbing above the unlimited rate when it must.
func TestUnlimitedRateIsConfirmedPaced(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	base := queueing(10_000, 2*time.Millisecond)
	model := func(target float64, threads int) outcome {
		if target <= 0 {
			return outcome{ok: 6_000, service: time.Second}
		}
		return base(target, threads)
	}
	r := newFakeRun(t, spec, 5000, model).run(500)
	want := crossing(10_000, 2*time.Millisecond, 10*time.Millisecond)
	if r.Outcome != Answer || r.Bracket.LoOpsSec == nil || r.Bracket.HiOpsSec == nil {
		t.Fatalf("%s: %s", r.Outcome, r.Answer)
	}
	lo, hi := *r.Bracket.LoOpsSec, *r.Bracket.HiOpsSec
	if lo > want || hi < want || (hi-lo)/lo > spec.Precision {
		t.Errorf("bracket %.0f to %.0f, crossing at %.0f (the unlimited probe reached 6,000)", lo, hi, want)
	}
	if !r.Trusted {
		t.Errorf("reasons %v", r.Reasons)
	}
}

// An unlimited probe that passes while the database queued (its latency
// far above the paced probes') does not blame the threads: they were
// enough to saturate it.
func TestUnlimitedPassWithTheDatabaseSaturated(t *testing.T) {
	t.Parallel()
	r := newFakeRun(t, conds(t, "p99<2s"), 20_000, queueing(10_000, 2*time.Millisecond)).run(500)
	if r.Probes[0].Outcome != Pass {
		t.Fatalf("the unlimited probe %s", r.Probes[0].Outcome)
	}
	if hasKind(r.Reasons, ReasonThreads) {
		t.Errorf("reasons %v", r.Reasons)
	}
}

// A client's hiccup fails one probe below the crossing: the failure
// that would close the bracket is asked again, passes, and the search
// goes on above it.
func TestAFailureIsConfirmed(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	base := queueing(10_000, 2*time.Millisecond)
	hiccups := 0
	model := func(target float64, threads int) outcome {
		o := base(target, threads)
		if target == 6_750 && hiccups < 5 { // the first probe there
			hiccups++
			o.intended = 50 * time.Millisecond
		}
		return o
	}
	r := newFakeRun(t, spec, 5000, model).run(1000)
	want := crossing(10_000, 2*time.Millisecond, 10*time.Millisecond)
	lo, hi := *r.Bracket.LoOpsSec, *r.Bracket.HiOpsSec
	if lo > want || hi < want || !r.Trusted {
		t.Fatalf("bracket %.0f to %.0f, crossing at %.0f; %s", lo, hi, want, r.Answer)
	}
	fails := map[float64]int{}
	for _, p := range r.Probes {
		if p.Outcome == Fail && p.TargetOpsSec > 0 {
			fails[p.TargetOpsSec]++
		}
	}
	if fails[hi] != 2 || fails[6_750] != 1 {
		t.Errorf("failures by target %v: want the bracket's top twice, the hiccup's once", fails)
	}
}

// A host whose wake-up latency fails every paced probe (3 ms from the
// intended start on a 200 µs service time) while the unlimited probe
// passes: the search has no answer, and says why with the wake-up's p99.
func TestWakeupLatencyIsAReason(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<2ms")
	f := newFakeRun(t, spec, 64, func(target float64, _ int) outcome {
		if target <= 0 {
			return outcome{ok: 50_000, intended: 200 * time.Microsecond, service: 200 * time.Microsecond}
		}
		return outcome{ok: target, intended: 3 * time.Millisecond, service: 200 * time.Microsecond}
	})
	r := f.run(2000)
	if r.Outcome != None {
		t.Fatalf("outcome %s: %s", r.Outcome, r.Answer)
	}
	if len(r.Reasons) != 1 || !strings.Contains(r.Reasons[0].Text, "the unlimited probe passed at 50,000 ops/s but no paced probe did: the host's wake-up latency (p99 2.8ms") {
		t.Errorf("reasons %+v, want the wake-up latency's", r.Reasons)
	}
	if !strings.Contains(r.Answer, "not the database's alone: the host's wake-up latency") {
		t.Errorf("answer %q", r.Answer)
	}
}

// A server on this host: an answer that is untrusted anyway, or none,
// says the answer is the pair's; a trusted answer stays trusted.
func TestLocalServerIsAReason(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<1ms")
	f := newFakeRun(t, spec, 1000, queueing(10_000, 2*time.Millisecond))
	f.s.SetLocal("127.0.0.1:6379")
	r := f.run(500)
	if r.Outcome != None || !hasKind(r.Reasons, ReasonLocal) || !strings.Contains(r.Answer, "the server is on this host") {
		t.Errorf("no rate to the floor on a local server: reasons %+v, answer %q", r.Reasons, r.Answer)
	}
	spec = conds(t, "p99<10ms")
	f = newFakeRun(t, spec, 1000, queueing(10_000, time.Millisecond))
	f.s.SetLocal("127.0.0.1:6379")
	if r := f.run(2000); r.Status() != StatusTrusted || len(r.Reasons) != 0 {
		t.Errorf("a closed bracket on a local server: status %s, reasons %+v", r.Status(), r.Reasons)
	}
}

// A probe whose p99's 95 % interval holds the bound goes on, up to
// MaxIntervals; still undecided then, it is asked again once, and
// undecided twice it counts a fail. Above 2,000 ops/s every 4th interval
// has 4 % of its operations at 3 ms (the rest at 1 ms): p99 sits on the
// edge between them, its interval from 1 ms to 3 ms around the 2 ms
// bound.
func TestUndecidedProbeRunsLongerThenRetries(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<2ms")
	k := 0
	f := newFakeRun(t, spec, 64, func(target float64, _ int) outcome {
		k++
		o := outcome{ok: 2_500, intended: time.Millisecond, service: time.Millisecond}
		if target > 0 {
			o.ok = target
		}
		if (target <= 0 || target > 2_000) && k%4 == 0 {
			o.tailShare, o.tail = 0.04, 3*time.Millisecond
		}
		return o
	})
	r := f.run(3000)
	var undecided, twice *Probe
	for i, p := range r.Probes {
		switch {
		case p.Outcome == Undecided && undecided == nil:
			undecided = &r.Probes[i]
		case p.Outcome == Fail && strings.HasPrefix(p.Decided, "undecided twice, counted a fail: p99 ") && twice == nil:
			twice = &r.Probes[i]
		}
	}
	if undecided == nil || twice == nil {
		for _, p := range r.Probes {
			t.Log(rundata.ProbeLine(p))
		}
		t.Fatalf("no undecided probe asked again and failed: %s", r.Answer)
	}
	if undecided.Intervals != MaxIntervals || !strings.Contains(undecided.Decided, "(95 %: ") {
		t.Errorf("undecided probe: %d intervals (want %d), decided %q", undecided.Intervals, MaxIntervals, undecided.Decided)
	}
	if twice.TargetOpsSec != undecided.TargetOpsSec || twice.N != undecided.N+1 {
		t.Errorf("the retry %+v is not the next probe at the same target as %+v", twice, undecided)
	}
	for _, p := range r.Probes {
		if p.Outcome == Pass && p.TargetOpsSec > 2_000 {
			t.Errorf("probe %s passed within the noise", rundata.ProbeLine(p))
		}
	}
}

// The probe after one whose operations took up to 2.5 s leaves out,
// after its transition interval, what is left of those 2.5 s: the
// backlog of the one before drains, and none of its operations is timed
// in the next. After probes of milliseconds, only the transition is.
func TestBacklogDrainsBetweenProbes(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<10ms")
	q := queueing(10_000, time.Millisecond)
	f := newFakeRun(t, spec, 1000, func(target float64, threads int) outcome {
		if target <= 0 {
			return outcome{ok: 10_000, intended: 2500 * time.Millisecond, service: 2500 * time.Millisecond}
		}
		return q(target, threads)
	})
	r := f.run(2000)
	if len(r.Probes) < 3 || r.Probes[0].TargetOpsSec != 0 {
		t.Fatalf("probes %+v", r.Probes)
	}
	// The change comes at an interval's start: its interval holds 1 s of
	// the 2.5 s, two more intervals the rest.
	next := r.Probes[1]
	if steadyFrom := next.EndS - next.SteadyS; math.Abs(steadyFrom-(next.StartS+3)) > 1e-9 {
		t.Errorf("probe 2 steady from %.1f s, its change at %.1f s: want 3 s left out (its transition and the backlog's 1.5 s)", steadyFrom, next.StartS)
	}
	for _, p := range r.Probes[2:] {
		if p.Outcome == Pass || p.Outcome == Fail {
			if steadyFrom := p.EndS - p.SteadyS; math.Abs(steadyFrom-(p.StartS+1)) > 1e-9 {
				t.Errorf("probe %d steady from %.1f s, its change at %.1f s: want its transition alone left out", p.N, steadyFrom, p.StartS)
			}
		}
	}
}

// A probe that would not gather its percentile's evidence in the time
// left is judged on what it has: the floor (100 ops/s, 10,000 operations
// for a p99: 100 s) in a 60 s budget passes on its interval, wholly
// under the bound, rather than ending unjudged.
func TestFloorProbeCappedByTimeLeft(t *testing.T) {
	t.Parallel()
	spec := conds(t, "p99<1ms")
	spec.Budget = 60 * time.Second
	f := newFakeRun(t, spec, 1000, func(target float64, _ int) outcome {
		switch {
		case target <= 0:
			return outcome{ok: 10_000, intended: 5 * time.Millisecond, service: 5 * time.Millisecond}
		case target <= 150:
			return outcome{ok: target, intended: 500 * time.Microsecond, service: 500 * time.Microsecond}
		}
		return outcome{ok: target, intended: 5 * time.Millisecond, service: 5 * time.Millisecond}
	})
	r := f.run(200)
	var floor *Probe
	for i, p := range r.Probes {
		if p.TargetOpsSec == r.FloorOpsSec && floor == nil {
			floor = &r.Probes[i]
		}
	}
	if floor == nil || floor.Outcome != Pass || !strings.Contains(floor.Decided, "judged on ") ||
		!strings.Contains(floor.Decided, "of the 10,000 operations its percentile needs: the budget's time left") {
		for _, p := range r.Probes {
			t.Log(rundata.ProbeLine(p))
		}
		t.Fatalf("floor probe %+v: want it passed on what it had, saying so", floor)
	}
	if r.RateOpsSec == nil || *r.RateOpsSec < r.FloorOpsSec || r.Trusted {
		t.Errorf("answer %s: want the floor or above, untrusted (the bracket did not close)", r.Answer)
	}
}

// The screens see a hold as one: its role, and its length in intervals
// (30 at a 1 s interval) in place of a probe's 5.
func TestHoldInTheView(t *testing.T) {
	t.Parallel()
	f := newFakeRun(t, conds(t, "p99<10ms"), 1000, queueing(10_000, 2*time.Millisecond))
	for i := 0; i < 1000 && !f.stopped; i++ {
		snap := f.interval()
		if c := snap.Search.Current; c != nil && c.Role == Hold && c.State == "steady" {
			if c.NeedIntervals != 30 {
				t.Fatalf("the hold needs %d intervals on the screen, want 30", c.NeedIntervals)
			}
			return
		}
	}
	t.Fatalf("no hold seen in the view: %s", f.s.Report().Answer)
}
