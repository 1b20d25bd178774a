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
		Ops:   []engine.OpSnapshot{{Name: "READ", Cumulative: engine.Stats{Count: 100, P99: 2 * time.Millisecond}}},
		Total: engine.OpSnapshot{Name: "TOTAL", Cumulative: engine.Stats{Count: 100, Rate: 100}}}
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
