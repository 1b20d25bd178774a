package steps

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"benchtop/engine"
)

func TestParseAtTyped(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want Step
	}{
		{"5s:threads=16", Step{At: 5 * time.Second, Action: Threads, N: 16}},
		{"1:30:partitions=8", Step{At: 90 * time.Second, Action: Partitions, N: 8}},
		{"90:target=2500.5", Step{At: 90 * time.Second, Action: Target, Rate: 2500.5}},
		{"1m:target=0", Step{At: time.Minute, Action: Target}},
		{"2s:mark=after the change", Step{At: 2 * time.Second, Action: Mark, Label: "after the change"}},
		{"2s:mark", Step{At: 2 * time.Second, Action: Mark}},
		{"250ms:pause", Step{At: 250 * time.Millisecond, Action: Pause}},
		{"3s:resume", Step{At: 3 * time.Second, Action: Resume}},
		{"25s:stop", Step{At: 25 * time.Second, Action: Stop}},
	}
	for _, c := range cases {
		got, err := ParseAt(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		c.want.Source = fmt.Sprintf("--at %q", c.in)
		if got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.in, got, c.want)
		}
	}
	for _, bad := range []string{"threads=4", "soon:threads=4", "5s:colour=red", "5s:threads=0", "5s:threads=x",
		"5s:partitions=100000", "5s:target=-1", "5s:target=NaN", "5s:pause=yes", "-1s:stop", ":stop"} {
		if st, err := ParseAt(bad); err == nil {
			t.Errorf("%s accepted: %+v", bad, st)
		} else if !strings.Contains(err.Error(), "--at") {
			t.Errorf("%s: error %q does not name --at", bad, err)
		}
	}
}

func TestParseSweep(t *testing.T) {
	t.Parallel()
	got, note, err := ParseSweep("threads=1, 2,4", "2s", 0)
	if err != nil {
		t.Fatal(err)
	}
	src := `--sweep "threads=1, 2,4"`
	want := []Step{
		{At: 0, Action: Threads, N: 1, Source: src},
		{At: 2 * time.Second, Action: Threads, N: 2, Source: src},
		{At: 4 * time.Second, Action: Threads, N: 4, Source: src},
		{At: 6 * time.Second, Action: Stop, Source: src},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) || note != "" {
		t.Errorf("got %+v\nwant %+v (note %q)", got, want, note)
	}
	// A step shorter than a segment needs to be judged is lengthened,
	// and said.
	got, note, err = ParseSweep("threads=1,2", "3s", 5*time.Second)
	if err != nil || len(got) != 3 || got[1].At != 5*time.Second || got[2].At != 10*time.Second ||
		!strings.Contains(note, "--step 3s is shorter") || !strings.Contains(note, "each value runs 5s") {
		t.Errorf("lengthened: %+v, note %q, %v", got, note, err)
	}
	got, _, err = ParseSweep("target=100,0", "", 0)
	if err != nil || len(got) != 3 || got[1].At != DefaultStep || got[1].Rate != 0 || got[0].Rate != 100 {
		t.Errorf("default step: %+v %v", got, err)
	}
	for _, bad := range [][2]string{{"", "5s"}, {"threads", ""}, {"threads=", ""}, {"colour=1,2", ""},
		{"threads=1,x", ""}, {"threads=1,2", "1ms"}, {"threads=1,2", "soon"}, {"pause=1", ""}} {
		if st, _, err := ParseSweep(bad[0], bad[1], 0); err == nil {
			t.Errorf("%q %q accepted: %+v", bad[0], bad[1], st)
		}
	}
}

func TestStepString(t *testing.T) {
	t.Parallel()
	for st, want := range map[Step]string{
		{At: 2 * time.Second, Action: Partitions, N: 8}:            "2s partitions=8",
		{At: 1500 * time.Millisecond, Action: Target, Rate: 2.5e5}: "1.5s target=250000",
		{At: 0, Action: Mark, Label: "x"}:                          "0s mark=x",
		{At: time.Minute, Action: Stop}:                            "1m0s stop",
	} {
		if got := st.String(); got != want {
			t.Errorf("%+v: %q, want %q", st, got, want)
		}
	}
}

func TestDemoIsOrderedAndValid(t *testing.T) {
	t.Parallel()
	for name, demo := range map[string]Demo{"sim": SimDemo(20, 2*time.Millisecond), "memory": MemoryDemo(2)} {
		d := demo.Plan()
		if len(d) != 8 || !Uses(d, Threads) || !Uses(d, Target) || !Uses(d, Stop) || d[len(d)-1].Action != Stop {
			t.Fatalf("%s demo: %+v", name, d)
		}
		for i, st := range d {
			if i > 0 && st.At < d[i-1].At {
				t.Errorf("%s: step %d (%s) before step %d", name, i, st, i-1)
			}
			if st.Source != "demo" {
				t.Errorf("%s: step %s: source %q", name, st, st.Source)
			}
			if demo.Steps[i].Caption == "" {
				t.Errorf("%s: step %s has no caption", name, st)
			}
		}
	}
	if d := MemoryDemo(2).Plan(); d[0].String() != "0s threads=1" || d[3].String() != "30s threads=64" || d[6].String() != "1m0s target=0" {
		t.Errorf("memory demo: %v", d)
	}
}

// The sim demo's steps and captions follow its model: with 20 servers of
// 2 ms (10,000 ops/s) 1, 8, 20 and 64 threads, then 8,000 and 11,000
// ops/s, each caption naming what the model makes of it.
func TestSimDemoFollowsTheModel(t *testing.T) {
	t.Parallel()
	d := SimDemo(20, 2*time.Millisecond)
	var plan []string
	for _, st := range d.Plan() {
		plan = append(plan, st.String())
	}
	want := []string{"0s threads=1", "10s threads=8", "20s threads=20", "30s threads=64", "40s target=8000", "50s target=11000", "1m0s target=0", "1m10s stop"}
	if strings.Join(plan, ", ") != strings.Join(want, ", ") {
		t.Errorf("plan %q, want %q", plan, want)
	}
	for i, w := range []string{"model server of 10,000 ops/s (20 servers × 2 ms)", "about 4,000 ops/s", "the capacity, about 10,000 ops/s",
		"more than the servers: still 10,000 ops/s", "target 8,000 ops/s (80 % of capacity): on schedule", "target 11,000 ops/s, above capacity", "64 threads queue for 20 servers"} {
		if !strings.Contains(d.Steps[i].Caption, w) {
			t.Errorf("step %d: caption %q lacks %q", i+1, d.Steps[i].Caption, w)
		}
	}
	if !strings.Contains(d.End, "capacity was 10,000 ops/s") {
		t.Errorf("end card: %q", d.End)
	}
	// Another model, other figures: 8 servers of 4 ms are 2,000 ops/s.
	o := SimDemo(8, 4*time.Millisecond)
	if p := o.Plan(); p[1].N != 3 || p[2].N != 8 || p[3].N != 25 || p[4].Rate != 1600 || p[5].Rate != 2200 {
		t.Errorf("8 servers of 4 ms: %v", p)
	}
	if !strings.Contains(o.Steps[0].Caption, "2,000 ops/s (8 servers × 4 ms)") || !strings.Contains(o.Steps[0].Caption, "about 250 ops/s") {
		t.Errorf("8 servers of 4 ms: %q", o.Steps[0].Caption)
	}
}

// call is one controller call a fake saw, with when.
type call struct {
	what string
	at   time.Time
}

type fakeController struct {
	mu    sync.Mutex
	calls []call
	fail  map[string]error // by call text
}

func (f *fakeController) record(what string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call{what, time.Now()})
	return f.fail[what]
}

func (f *fakeController) seen() []call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]call(nil), f.calls...)
}

func (f *fakeController) SetThreads(n int) error    { return f.record(fmt.Sprintf("threads %d", n)) }
func (f *fakeController) SetTarget(r float64) error { return f.record(fmt.Sprintf("target %g", r)) }
func (f *fakeController) SetPartitions(n int) error { return f.record(fmt.Sprintf("partitions %d", n)) }
func (f *fakeController) Pause()                    { f.record("pause") }
func (f *fakeController) Resume()                   { f.record("resume") }
func (f *fakeController) Mark(l string)             { f.record("mark " + l) }
func (f *fakeController) NewSegment()               { f.record("segment") }
func (f *fakeController) Stop()                     { f.record("stop") }
func (f *fakeController) waitCalls(t *testing.T, n int) []call {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c := f.seen(); len(c) >= n {
			return c
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("want %d calls, saw %v", n, f.seen())
	return nil
}

var _ engine.Controller = (*fakeController)(nil)

// Steps run in order, each never before its offset from the start of the
// player's phase (a bound no load can break), and all of them.
func TestPlayerOrderAndOffsets(t *testing.T) {
	t.Parallel()
	list := []Step{
		{At: 60 * time.Millisecond, Action: Stop},
		{At: 0, Action: Threads, N: 4},
		{At: 30 * time.Millisecond, Action: Mark, Label: "m"},
		{At: 30 * time.Millisecond, Action: Target, Rate: 500},
		{At: 10 * time.Millisecond, Action: Pause},
		{At: 20 * time.Millisecond, Action: Resume},
		{At: 40 * time.Millisecond, Action: Mark},
		{At: 50 * time.Millisecond, Action: Partitions, N: 3},
	}
	fc := &fakeController{}
	p := NewPlayer(list, engine.PhaseRun, nil)
	p.Bind(fc)
	defer p.Close()
	p.OnPhase(engine.PhaseLoad) // not the player's phase: no clock yet
	time.Sleep(20 * time.Millisecond)
	if c := fc.seen(); len(c) != 0 {
		t.Fatalf("steps ran before the run phase: %v", c)
	}
	t0 := time.Now()
	p.OnPhase(engine.PhaseRun)
	p.OnPhase(engine.PhaseRun) // a second start changes nothing
	calls := fc.waitCalls(t, len(list))
	p.Close()
	want := []string{"threads 4", "pause", "resume", "mark m", "target 500", "mark mark", "partitions 3", "stop"}
	got := fc.seen()
	if len(got) != len(want) {
		t.Fatalf("calls %v, want %v", got, want)
	}
	sorted := append([]Step(nil), list...)
	Sort(sorted)
	for i, c := range calls {
		if c.what != want[i] {
			t.Errorf("call %d = %q, want %q", i, c.what, want[i])
		}
		if early := t0.Add(sorted[i].At).Sub(c.at); early > 0 {
			t.Errorf("%q ran %v before its offset %v", c.what, early, sorted[i].At)
		}
	}
	if f := p.Failures(); len(f) != 0 {
		t.Errorf("failures: %v", f)
	}
}

// A refused step is reported once, as one line, and collected; the steps
// after it still run.
func TestPlayerCollectsFailures(t *testing.T) {
	t.Parallel()
	fc := &fakeController{fail: map[string]error{
		"threads 3":    errors.New("threads: 3 is\nout of range"),
		"partitions 8": engine.ErrCannotRepartition,
	}}
	list := []Step{
		{At: 0, Action: Threads, N: 3},
		{At: 2 * time.Millisecond, Action: Partitions, N: 8},
		{At: 4 * time.Millisecond, Action: Target, Rate: 10},
	}
	var mu sync.Mutex
	var told []string
	p := NewPlayer(list, engine.PhaseLoad, func(f Failure) {
		mu.Lock()
		told = append(told, f.String())
		mu.Unlock()
	})
	p.Bind(fc)
	p.OnPhase(engine.PhaseLoad)
	fc.waitCalls(t, 3)
	p.Close()
	want := []string{
		"0s threads=3: threads: 3 is out of range",
		"2ms partitions=8: " + engine.ErrCannotRepartition.Error(),
	}
	got := p.Failures()
	if len(got) != len(want) {
		t.Fatalf("failures %v, want %v", got, want)
	}
	for i, f := range got {
		if f.String() != want[i] || told[i] != want[i] {
			t.Errorf("failure %d = %q (told %q), want %q", i, f.String(), told[i], want[i])
		}
	}
}

// A repartitioning that fails in the background (the engine's "error"
// event in a snapshot) is a failed step too; one that succeeds is not.
func TestPlayerSeesBackgroundPartitionFailure(t *testing.T) {
	t.Parallel()
	fc := &fakeController{}
	list := []Step{{At: 0, Action: Partitions, N: 4}, {At: time.Millisecond, Action: Partitions, N: 8}}
	p := NewPlayer(list, engine.PhaseRun, nil)
	p.Bind(fc)
	p.OnPhase(engine.PhaseRun)
	fc.waitCalls(t, 2)
	p.Close()
	p.OnSnapshot(&engine.Snapshot{Events: []engine.Event{
		{Kind: "partitions", From: "1", To: "4", Text: "partitions 1→4"},
		{Kind: "error", Text: "partitions 4→8 failed: stream: XGROUP: connection refused"},
	}})
	f := p.Failures()
	if len(f) != 1 || f[0].String() != "1ms partitions=8: stream: XGROUP: connection refused" {
		t.Errorf("failures %v", f)
	}
	// An error that belongs to no step (a key on the screen) is not one.
	p.OnSnapshot(&engine.Snapshot{Events: []engine.Event{{Kind: "error", Text: "partitions 8→9 failed: no"}}})
	if len(p.Failures()) != 1 {
		t.Errorf("failures %v", p.Failures())
	}
}

// After Close no step runs, whatever its offset.
func TestPlayerClose(t *testing.T) {
	t.Parallel()
	fc := &fakeController{}
	p := NewPlayer([]Step{{At: 0, Action: Mark, Label: "a"}, {At: time.Hour, Action: Stop}}, engine.PhaseRun, nil)
	p.Bind(fc)
	p.OnPhase(engine.PhaseRun)
	fc.waitCalls(t, 1)
	p.Close()
	p.Close()
	if c := fc.seen(); len(c) != 1 {
		t.Errorf("calls after Close: %v", c)
	}
	// A player closed before its phase never starts.
	q := NewPlayer([]Step{{At: 0, Action: Stop}}, engine.PhaseRun, nil)
	q.Bind(fc)
	q.Close()
	q.OnPhase(engine.PhaseRun)
	time.Sleep(10 * time.Millisecond)
	if c := fc.seen(); len(c) != 1 {
		t.Errorf("a closed player ran: %v", c)
	}
}
