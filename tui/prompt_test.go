package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"benchtop/engine"
)

// Typing a line and Enter calls the controller with the exact value.
func TestPromptAppliesExactValues(t *testing.T) {
	cases := []struct {
		line, want string
	}{
		{"threads 64", "SetThreads(64)"},
		{"target 120k", "SetTarget(120000)"},
		{"target 1.5M", "SetTarget(1.5e+06)"},
		{"partitions 16", "SetPartitions(16)"},
		{"mark before compaction", `Mark("before compaction")`},
		{"target unlimited", "SetTarget(0)"},
	}
	for _, c := range cases {
		t.Run(c.line, func(t *testing.T) {
			snap := snapWith(4, 2, 5000, 4000)
			m, rec := frameAfter(t, 80, 24, []*engine.Snapshot{snap}, nil, ":", "type:"+c.line, "enter")
			if got := rec.last(); got != c.want {
				t.Errorf("calls %v, want last %s", rec.Calls(), c.want)
			}
			if m.prompt.IsOpen() {
				t.Error("the prompt stays open after a good line")
			}
		})
	}
}

// A bad value stays on the line with the command line's message, and
// Enter does nothing; Esc closes.
func TestPromptRefusesOutOfLimits(t *testing.T) {
	snap := snapWith(4, 2, 0, 4000)
	m, rec := frameAfter(t, 120, 40, []*engine.Snapshot{snap}, nil, ":", "type:threads 5000", "enter")
	if len(rec.Calls()) != 0 {
		t.Errorf("calls %v for threads 5000", rec.Calls())
	}
	if !m.prompt.IsOpen() {
		t.Fatal("the prompt closed on a bad line")
	}
	if !strings.Contains(m.frame, `threads "5000": expected a whole number from 1 to 4096`) {
		t.Errorf("no inline error:\n%s", m.frame)
	}
	press(m, "esc")
	if m.prompt.IsOpen() || strings.Contains(m.frame, "threads 5000") {
		t.Error("esc did not close the prompt")
	}
	// Keys typed into the prompt are not shortcuts.
	m, rec = frameAfter(t, 80, 24, []*engine.Snapshot{snap}, nil, ":", "type:+++q")
	if len(rec.Calls()) != 0 || m.quitting {
		t.Errorf("keys typed in the prompt acted: %v quitting=%v", rec.Calls(), m.quitting)
	}
}

func TestPromptWindow(t *testing.T) {
	m, _ := frameAfter(t, 80, 24, []*engine.Snapshot{snapWith(4, 2, 0, 4000)}, nil, ":", "type:window 15m", "enter")
	if m.throughput.Window != 15*time.Minute {
		t.Errorf("window = %v, want 15m", m.throughput.Window)
	}
}

// A read-only viewer's control keys change nothing and say so; its view
// keys work; q leaves without stopping the run.
func TestReadOnlyViewer(t *testing.T) {
	viewer := func(o *Options) { o.Remote, o.ReadOnly = true, true }
	snaps := []*engine.Snapshot{snapWith(4, 2, 0, 4000)}
	m, rec := frameAfter(t, 80, 24, snaps, viewer, "+", "]", "t", "0", " ", "m", "s", "r")
	if len(rec.Calls()) != 0 {
		t.Errorf("a read-only viewer called %v", rec.Calls())
	}
	if !strings.Contains(m.frame, "read-only viewer") {
		t.Errorf("no read-only notice:\n%s", m.frame)
	}
	m, rec = frameAfter(t, 80, 24, snaps, viewer, ":", "type:threads 8", "enter")
	if len(rec.Calls()) != 0 || !strings.Contains(m.frame, "read-only") {
		t.Errorf("prompt: calls %v, frame:\n%s", rec.Calls(), m.frame)
	}
	m, _ = frameAfter(t, 80, 24, snaps, viewer, "tab")
	if m.view != viewSegments {
		t.Error("tab does not change a viewer's view")
	}
	m, rec = frameAfter(t, 80, 24, snaps, viewer, "q")
	if !m.quitting || len(rec.Calls()) != 0 {
		t.Errorf("q: quitting=%v calls=%v, want to leave without Stop", m.quitting, rec.Calls())
	}
	// An authorized remote session controls, and q still only leaves.
	ctl := func(o *Options) { o.Remote = true }
	m, rec = frameAfter(t, 80, 24, snaps, ctl, "+", "q")
	if c := rec.Calls(); len(c) != 1 || c[0] != "SetThreads(5)" || !m.quitting {
		t.Errorf("authorized session: calls %v quitting=%v, want [SetThreads(5)] and to leave", c, m.quitting)
	}
}

// Back at unlimited, the intended rows go; the header's partitions and
// the adapter's description follow the live value; targets read 1.10M.
func TestLiveValuesOnScreen(t *testing.T) {
	info := fakeInfo
	info.Target = "memory in-process, 1 partition"
	withI := func(target float64, parts int) *engine.Snapshot {
		s := snapWith(4, parts, target, 1096863)
		st := engine.Stats{Count: 10, Rate: 10, P99: time.Millisecond}
		s.Ops = []engine.OpSnapshot{{Name: "READ", Interval: st, Cumulative: st, IntendedInterval: &st, IntendedCumulative: &st}}
		return s
	}
	m, _ := frameAfter(t, 120, 40, []*engine.Snapshot{withI(1096863, 1)}, func(o *Options) { o.Info = info })
	if !strings.Contains(m.frame, "intended") || !strings.Contains(m.frame, "Target 1.10M ops/s") {
		t.Fatalf("with a target: no intended rows or no formatted target:\n%s", m.frame)
	}
	m.Update(snapshotMsg{withI(0, 8)})
	if strings.Contains(m.frame, "intended") {
		t.Errorf("intended rows stay at unlimited:\n%s", m.frame)
	}
	if !strings.Contains(m.frame, "Partitions 8") || !strings.Contains(m.frame, "8 partitions") || strings.Contains(m.frame, "1 partition") {
		t.Errorf("partitions do not follow the live value:\n%s", m.frame)
	}
}

// The demo's caption follows its steps as their events arrive.
func TestDemoCaptions(t *testing.T) {
	run := running(fakeRun(25, 0))
	m, _ := frameAfter(t, 80, 24, run[:5], func(o *Options) { o.Demo = demoFor(run) })
	if !strings.Contains(m.frame, "step 1 of 4: 2 threads: the baseline") {
		t.Errorf("no first caption:\n%s", m.frame)
	}
	for _, s := range run[5:] {
		m.Update(snapshotMsg{s})
	}
	if !strings.Contains(m.frame, "step 3 of 4: threads 4 → 8") {
		t.Errorf("caption did not follow the events:\n%s", m.frame)
	}
}

// Keys that arrive in one message (typed faster than read) act one by
// one, and the prompt takes the rest of them as text.
func TestKeysInOneMessage(t *testing.T) {
	m, rec := frameAfter(t, 80, 24, []*engine.Snapshot{snapWith(4, 2, 0, 4000)}, nil)
	_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("++:threads 9")})
	for _, msg := range runCmd(cmd) {
		m.Update(msg)
	}
	if !m.prompt.IsOpen() || m.prompt.Value() != "threads 9" {
		t.Fatalf("prompt open=%v value %q, want open with %q", m.prompt.IsOpen(), m.prompt.Value(), "threads 9")
	}
	if c := rec.Calls(); len(c) != 2 || c[0] != "SetThreads(5)" || c[1] != "SetThreads(6)" {
		t.Errorf("calls %v, want SetThreads(5), SetThreads(6)", c)
	}
}
