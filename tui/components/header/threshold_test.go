package header

import (
	"strings"
	"testing"
	"time"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/history"
)

// When every operation fails, the header's rate is 0 (successful
// operations), the failed ones are beside it, and after 3 intervals
// without a success it says outage: the killed-Redis screen.
func TestHeaderShowsFailuresApart(t *testing.T) {
	th, _ := themes.Get("dark")
	failed := rundata.Stats{Count: 22000, Errors: 22000, FailedRate: 22000}
	for _, c := range []struct {
		noSuccess int
		want, not []string
	}{
		{1, []string{"0 ops/s", "failed 22.0K/s", "● running"}, []string{"outage"}},
		{5, []string{"0 ops/s", "failed 22.0K/s", "✗ outage · nothing succeeded for 5s"}, []string{"● running"}},
	} {
		snap := &rundata.Snapshot{Phase: rundata.PhaseRun, Elapsed: 10 * time.Second, Interval: time.Second, NoSuccess: c.noSuccess,
			Ops:   []rundata.OpSnapshot{{Name: "READ", Interval: failed, Cumulative: failed}},
			Total: rundata.OpSnapshot{Name: "TOTAL", Interval: failed, Cumulative: failed}}
		ctx := &common.Context{Width: 160, Height: 40, Styles: themes.NewStyles(th), Info: rundata.Info{Adapter: "redis"}}
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
