package tui

import (
	"strings"
	"testing"
	"time"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/components/header"
	"benchtop/tui/history"
)

// The header shows the thresholds' verdict so far: a pass mark while all
// hold, the count crossed once one is.
func TestHeaderThresholdMark(t *testing.T) {
	th, _ := themes.Get("dark")
	snap := &rundata.Snapshot{Phase: rundata.PhaseRun, Elapsed: time.Second,
		Ops:   []rundata.OpSnapshot{{Name: "READ", Cumulative: rundata.Stats{Count: 100, OK: 100, P99: 2 * time.Millisecond}}},
		Total: rundata.OpSnapshot{Name: "TOTAL", Cumulative: rundata.Stats{Count: 100, OK: 100, Rate: 100}}}
	for _, c := range []struct {
		thresholds []string
		want       string
	}{
		{[]string{"READ.p99<10ms", "ops>50"}, "✓ 2/2 thresholds"},
		{[]string{"READ.p99<1ms", "ops>50"}, "✗ 1/2 thresholds"},
		{nil, ""},
	} {
		ctx := &common.Context{Width: 160, Height: 40, Styles: themes.NewStyles(th), Info: rundata.Info{Adapter: "memory", Thresholds: c.thresholds}}
		m := header.New(ctx)
		m.SetSize(160, header.Height)
		h := history.New(time.Second)
		h.Add(snap)
		m.Render(h, header.State{Thresholds: thresholdState(ctx.Info, h.Last)})
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
	load.Phase = rundata.PhaseLoad
	ctx := &common.Context{Width: 160, Height: 40, Styles: themes.NewStyles(th), Info: rundata.Info{Command: "run", Thresholds: []string{"READ.p99<1ms"}}}
	m := header.New(ctx)
	m.SetSize(160, header.Height)
	h := history.New(time.Second)
	h.Add(&load)
	m.Render(h, header.State{Thresholds: thresholdState(ctx.Info, h.Last)})
	if strings.Contains(m.View(), "thresholds") {
		t.Errorf("a mark during the load phase of a run:\n%s", m.View())
	}
}
