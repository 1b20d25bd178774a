package header

import (
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/history"
)

// The header shows the thresholds' verdict so far: a pass mark while all
// hold, the count crossed once one is.
func TestHeaderThresholdMark(t *testing.T) {
	th, _ := themes.Get("dark")
	snap := &engine.Snapshot{Phase: engine.PhaseRun, Elapsed: time.Second,
		Ops:   []engine.OpSnapshot{{Name: "READ", Cumulative: engine.Stats{Count: 100, OK: 100, P99: 2 * time.Millisecond}}},
		Total: engine.OpSnapshot{Name: "TOTAL", Cumulative: engine.Stats{Count: 100, OK: 100, Rate: 100}}}
	for _, c := range []struct {
		thresholds []string
		want       string
	}{
		{[]string{"READ.p99<10ms", "ops>50"}, "✓ 2/2 thresholds"},
		{[]string{"READ.p99<1ms", "ops>50"}, "✗ 1/2 thresholds"},
		{nil, ""},
	} {
		ctx := &common.Context{Width: 160, Height: 40, Styles: themes.NewStyles(th), Info: engine.Info{Adapter: "memory", Thresholds: c.thresholds}}
		m := New(ctx)
		m.SetSize(160, Height)
		h := history.New(time.Second)
		h.Add(snap)
		m.Render(h, State{})
		got := m.View()
		if c.want != "" && !strings.Contains(got, c.want) {
			t.Errorf("%v: header lacks %q:\n%s", c.thresholds, c.want, got)
		}
		if c.want == "" && strings.Contains(got, "thresholds") {
			t.Errorf("no thresholds, yet a mark:\n%s", got)
		}
	}
	// The load phase before a run is not judged.
	load := *snap
	load.Phase = engine.PhaseLoad
	ctx := &common.Context{Width: 160, Height: 40, Styles: themes.NewStyles(th), Info: engine.Info{Command: "run", Thresholds: []string{"READ.p99<1ms"}}}
	m := New(ctx)
	m.SetSize(160, Height)
	h := history.New(time.Second)
	h.Add(&load)
	m.Render(h, State{})
	if strings.Contains(m.View(), "thresholds") {
		t.Errorf("a mark during the load phase of a run:\n%s", m.View())
	}
}

// When every operation fails, the header's rate is 0 (successful
// operations), the failed ones are beside it, and after 3 intervals
// without a success it says outage: the killed-Redis screen.
func TestHeaderShowsFailuresApart(t *testing.T) {
	th, _ := themes.Get("dark")
	failed := engine.Stats{Count: 22000, Errors: 22000, FailedRate: 22000}
	for _, c := range []struct {
		noSuccess int
		want, not []string
	}{
		{1, []string{"0 ops/s", "failed 22.0K/s", "● running"}, []string{"outage"}},
		{5, []string{"0 ops/s", "failed 22.0K/s", "✗ outage · nothing succeeded for 5s"}, []string{"● running"}},
	} {
		snap := &engine.Snapshot{Phase: engine.PhaseRun, Elapsed: 10 * time.Second, Interval: time.Second, NoSuccess: c.noSuccess,
			Ops:   []engine.OpSnapshot{{Name: "READ", Interval: failed, Cumulative: failed}},
			Total: engine.OpSnapshot{Name: "TOTAL", Interval: failed, Cumulative: failed}}
		ctx := &common.Context{Width: 160, Height: 40, Styles: themes.NewStyles(th), Info: engine.Info{Adapter: "redis"}}
		m := New(ctx)
		m.SetSize(160, Height)
		h := history.New(time.Second)
		h.Add(snap)
		m.Render(h, State{})
		got := m.View()
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("NoSuccess %d: header lacks %q:\n%s", c.noSuccess, w, got)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("NoSuccess %d: header has %q:\n%s", c.noSuccess, w, got)
			}
		}
	}
}
