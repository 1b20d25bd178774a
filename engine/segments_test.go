package engine

import (
	"strings"
	"testing"
	"time"

	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/results/marks"
)

// seg is a counted segment: 10 steady intervals at ops ops/s, p99 p99.
func seg(index, threads int, ops float64, p99 time.Duration) Segment {
	return Segment{Index: index, End: 11 * time.Second, Threads: threads, Partitions: 1, Ops: int64(ops * 11), OK: int64(ops * 11),
		OpsPerSec: ops, P99: p99, HasLatency: true, Intervals: 10}
}

// markSegments hands the segments to results/marks (whose tests hold the
// rules) and puts its verdict on them: states, notes, best, knee and the
// segment the knee was judged against, by its Index.
func TestMarkSegmentsCarriesTheVerdict(t *testing.T) {
	t.Parallel()
	us := time.Microsecond
	short := seg(1, 1, 2e6, 10*us)
	short.Intervals = MinSegmentIntervals - 1
	segs, note := markSegments([]Segment{short, seg(2, 2, 1e6, 10*us), seg(3, 4, 1.5e6, 10*us)}, time.Second)
	if segs[0].Best || segs[1].Best || segs[2].Best {
		t.Errorf("best marked though segment 1 was faster: %+v", segs)
	}
	if segs[0].State != marks.TooShort || segs[0].Note == "" || segs[1].State != marks.Qualified || segs[1].Note != "" {
		t.Errorf("states %q (%q), %q (%q)", segs[0].State, segs[0].Note, segs[1].State, segs[1].Note)
	}
	if !strings.Contains(note, "segment 1 was faster") {
		t.Errorf("note %q does not say why best is undecided", note)
	}

	outage := Segment{Index: 3, Threads: 8, Partitions: 1, Ops: 50000, Errors: 50000, ErrorRate: 1, Intervals: 5}
	segs, note = markSegments([]Segment{seg(1, 2, 1e6, 10*us), seg(2, 4, 1.1e6, 10*us), outage, seg(4, 16, 1.05e6, 40*us)}, time.Second)
	if !segs[1].Best || segs[2].Best || segs[2].Knee || note != "" {
		t.Errorf("best %v %v %v %v knee %v, note %q", segs[0].Best, segs[1].Best, segs[2].Best, segs[3].Best, segs[2].Knee, note)
	}
	if !segs[3].Knee || segs[3].KneeFrom != 2 {
		t.Errorf("knee on segment 4 from %d, want from segment 2 (the outage skipped): %+v", segs[3].KneeFrom, segs[3])
	}
	if segs[2].State != marks.Errors {
		t.Errorf("the outage's state is %q", segs[2].State)
	}
}

// A segment of no steady interval held half a status interval or more
// has a rate to compare: faster than the best, it leaves best undecided;
// the instant before a sweep's first step (10 ms) does not.
func TestASubIntervalSegmentHeldLongEnoughBlocksBest(t *testing.T) {
	t.Parallel()
	us := time.Microsecond
	sub := func(held time.Duration) Segment {
		return Segment{Index: 3, Start: 22 * time.Second, End: 22*time.Second + held, Threads: 8, Partitions: 1,
			Ops: 742, OK: 742, OpsPerSec: 1484, P99: 10 * us, HasLatency: true}
	}
	segs, note := markSegments([]Segment{seg(1, 2, 1000, 10*us), seg(2, 4, 1400, 10*us), sub(600 * time.Millisecond)}, time.Second)
	if segs[1].Best || !strings.Contains(note, "segment 3 was faster (1,484 ops/s) but held no steady interval") {
		t.Errorf("a 0.6 s segment at 1,484 ops/s beside a best of 1,400: best %v, note %q", segs[1].Best, note)
	}
	segs, note = markSegments([]Segment{sub(10 * time.Millisecond), seg(2, 4, 1400, 10*us), seg(3, 2, 1000, 10*us)}, time.Second)
	if !segs[1].Best || note != "" {
		t.Errorf("a 10 ms segment blocked best: best %v, note %q", segs[1].Best, note)
	}
}

// TestSegmentLeavesOutTheFirstInterval feeds a segment by hand: what ran
// before its first tick is the transition and does not set its rate or
// its latency; the counts keep it.
func TestSegmentLeavesOutTheFirstInterval(t *testing.T) {
	t.Parallel()
	start := time.Now()
	sg := segments{runStart: start}
	sg.begin("run phase", Controls{Threads: 1, Partitions: 1})
	batch := func(n int, lat time.Duration) *measure.Set {
		s := &measure.Set{}
		for range n {
			s.Record(measure.Slot(0, measure.OK), int64(lat))
		}
		s.Ops = int64(n)
		return s
	}
	sg.add(batch(1000, time.Second)) // the transition: slow
	sg.tick(time.Now(), false)
	for range 3 {
		sg.add(batch(100, time.Millisecond))
		sg.tick(time.Now(), false)
	}
	tab, _ := sg.table(time.Now(), false)
	if len(tab) != 1 {
		t.Fatalf("%d segments", len(tab))
	}
	s := tab[0]
	if s.Ops != 1300 {
		t.Errorf("Ops = %d, want 1300 (the whole segment)", s.Ops)
	}
	if s.Intervals != 3 {
		t.Errorf("Intervals = %d, want 3", s.Intervals)
	}
	if s.P99 > 10*time.Millisecond || s.ServiceP99 != s.P99 {
		t.Errorf("P99 = %v ServiceP99 = %v: the transition's latency counted", s.P99, s.ServiceP99)
	}
}

func TestSegmentIntendedP99(t *testing.T) {
	t.Parallel()
	start := time.Now()
	sg := segments{runStart: start, measurement: "both"}
	sg.begin("target", Controls{Threads: 1, Partitions: 1, Target: 100})
	sg.tick(time.Now(), false)
	s := &measure.Set{}
	for range 100 {
		s.Record(measure.Slot(0, measure.OK), int64(time.Millisecond))
		s.Record(measure.Slot(0, measure.OKIntended), int64(50*time.Millisecond))
	}
	s.Ops = 100
	sg.add(s)
	tab, _ := sg.table(time.Now(), false)
	g := tab[0]
	if g.ServiceP99 < 900*time.Microsecond || g.ServiceP99 > 2*time.Millisecond {
		t.Errorf("ServiceP99 = %v, want about 1ms", g.ServiceP99)
	}
	if g.IntendedP99 < 45*time.Millisecond || g.IntendedP99 != g.P99 {
		t.Errorf("IntendedP99 = %v P99 = %v, want about 50ms both", g.IntendedP99, g.P99)
	}
}

func TestCPUWarningReadsTheProcess(t *testing.T) {
	t.Parallel()
	var b bottleneck
	// The host at 100 %, benchtop at 1 % of one core: not a client bottleneck.
	hs := host.Sample{Cores: 2, CPUTotal: 100, ProcCPU: 1}
	got := b.check(interval{host: hs, procs: 2, threads: 4, ops: 100})
	if len(got) != 1 || !strings.HasPrefix(got[0], "host busy: other processes use ") {
		t.Errorf("busy host, idle benchtop: %q, want only a host-busy note", got)
	}
	hs = host.Sample{Cores: 2, CPUTotal: 100, ProcCPU: 190}
	got = b.check(interval{host: hs, procs: 2, threads: 4, ops: 100})
	if len(got) != 1 || got[0] != "client bottleneck: benchtop uses 95 % of its 2 cores" {
		t.Errorf("benchtop at 190 %% of 2 cores: %q", got)
	}
	// GOMAXPROCS 1 on 2 cores: 95 % of one core is the limit.
	hs = host.Sample{Cores: 2, CPUTotal: 50, ProcCPU: 95}
	if got := b.check(interval{host: hs, procs: 1, threads: 4, ops: 100}); len(got) != 1 || !strings.Contains(got[0], "of its 1 cores") {
		t.Errorf("GOMAXPROCS=1: %q", got)
	}
	if got := b.check(interval{host: host.Sample{Cores: 2, CPUTotal: 30, ProcCPU: 40}, procs: 2, ops: 1}); len(got) != 0 {
		t.Errorf("a quiet host: %q", got)
	}
}

func TestMoreThreadsOnlyWhereThreadsHelp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		iv      interval
		want    string
		notWant string
	}{
		{"room", interval{threads: 4, ops: 500}, "(more threads?)", ""},
		{"limit", interval{threads: MaxThreads, ops: 500}, "(at the thread limit)", "more threads"},
		{"errors", interval{threads: 4, ops: 500, errors: 100}, "(the server is failing operations)", "more threads"},
		{"stalled", interval{threads: 4}, "(the server completes no operation)", "more threads"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bottleneck
			var got []string
			for range 3 {
				iv := c.iv
				iv.target, iv.rate = 1000, 500
				got = b.check(iv)
			}
			if len(got) == 0 || !strings.HasSuffix(got[0], c.want) {
				t.Fatalf("warnings %q, want one ending %q", got, c.want)
			}
			if c.notWant != "" && strings.Contains(got[0], c.notWant) {
				t.Errorf("%q suggests %q", got[0], c.notWant)
			}
		})
	}
}

// A pause in which no operation ran (a fast store has none in flight
// when it begins) is still a segment, paused; the instant between two
// changes at once, in which nothing ran, is none.
func TestAnEmptyPauseIsASegment(t *testing.T) {
	start := time.Now()
	sg := segments{runStart: start}
	ctl := Controls{Threads: 1, Partitions: 1, Target: 1000}
	sg.begin("run phase", ctl)
	run := &measure.Set{Ops: 100}
	for range 100 {
		run.Record(measure.Slot(0, measure.OK), int64(time.Millisecond))
	}
	sg.add(run)
	sg.close(start.Add(time.Second), -1)
	ctl.Paused = true
	sg.begin("paused", ctl)
	sg.open.startT = start.Add(time.Second)
	sg.open.Start = time.Second
	sg.close(start.Add(2*time.Second), -1)
	ctl.Paused = false
	sg.begin("instant", ctl)
	sg.open.startT = start.Add(2 * time.Second)
	sg.open.Start = 2 * time.Second
	sg.close(start.Add(2*time.Second), -1)
	tab, _ := sg.table(start.Add(2*time.Second), true)
	if len(tab) != 2 || tab[1].Label != "paused" || !tab[1].Paused || tab[1].State != marks.Paused || tab[1].Ops != 0 || tab[1].HasLatency {
		t.Errorf("segments %+v: want the run phase and the empty pause, paused, no latency", tab)
	}
}
