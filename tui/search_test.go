package tui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"benchtop/engine"
)

// searchRun is the fake run with a capacity search's view on every
// snapshot: probes judged one after another, the last one in progress;
// done, the answer with its reason for distrust.
func searchRun(done bool) []*engine.Snapshot {
	snaps := fakeRun(40, 0)
	probes := []engine.ProbeView{
		{N: 1, Threads: 8, Target: 0, State: "fail", Goodput: 1_020_000, Decided: "p99 611ms >= 100ms"},
		{N: 2, Threads: 8, Target: 918_000, State: "pass", Goodput: 917_950, Decided: "p99 45.2ms < 100ms"},
		{N: 3, Threads: 8, Target: 967_000, State: "fail", Goodput: 960_100, Decided: "p99 131ms >= 100ms"},
	}
	for i, s := range snaps {
		v := &engine.SearchView{Conditions: []string{"p99<100ms"}, Precision: 0.05, Budget: 10 * time.Minute,
			Elapsed: time.Duration(i) * time.Second, Upper: 1_020_000, Floor: 10_200, Lo: 918_000, Hi: 967_000,
			Probes: probes,
			Current: &engine.ProbeView{N: 4, Threads: 8, Target: 942_000, State: "steady", Intervals: 3, NeedIntervals: 5,
				Ops: 6120, NeedOps: 10_000}}
		if done && s.Done {
			v.Current = nil
			v.Done, v.Trusted = true, false
			v.Answer = "sustainable 918,000 ops/s (p99 45.2ms); 967,000 ops/s failed p99 131ms >= 100ms; not trusted: the bracket did not close"
			v.Reasons = []string{"the run stopped before the bracket closed"}
		}
		s.Search = v
	}
	return snaps
}

// The main view gives the search one status line (the probe in
// progress, its evidence and the bracket); the segments view its panel,
// each probe with its verdict and the condition that decided it, above
// the segments; at the end, the answer and why it is not trusted.
func TestSearchOnScreen(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		w, h := size[0], size[1]
		main := screen(t, w, h, searchRun(false))
		if !strings.Contains(main, "find-max: probe 4 at 942K (3/5 intervals, 6.12K/10.0K ops) · bracket 918K–967K") {
			t.Errorf("%dx%d main view without the search's line:\n%s", w, h, main)
		}
		seg := screen(t, w, h, searchRun(true), keyMsg("tab"))
		for _, want := range []string{"find-max · p99<100ms", "bracket 918,000 – 967,000 ops/s", "unlimited", "p99 611ms >= 100ms",
			"pass", "sustainable 918,000 ops/s", "not trusted: the run stopped"} {
			if !strings.Contains(seg, want) {
				t.Errorf("%dx%d segments view without %q:\n%s", w, h, want, seg)
			}
		}
		for i, l := range strings.Split(seg, "\n") {
			if widthOf(l) > w {
				t.Errorf("%dx%d line %d is %d wide: %q", w, h, i, widthOf(l), l)
			}
		}
		if n := len(strings.Split(seg, "\n")); n != h {
			t.Errorf("%dx%d: %d lines", w, h, n)
		}
	}
	_ = tea.KeyMsg{}
}
