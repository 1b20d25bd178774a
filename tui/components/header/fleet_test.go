package header

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/history"
)

// A fleet's header says the threads are per agent, and their total over
// the agents still running.
func TestHeaderThreadsPerAgent(t *testing.T) {
	th, _ := themes.Get("dark")
	for _, c := range []struct {
		agents []rundata.AgentRow
		want   string
		not    string
	}{
		{[]rundata.AgentRow{{Name: "vm1", State: "running", Threads: 8}, {Name: "vm2", State: "running", Threads: 8}, {Name: "vm3", State: "lost", Threads: 8}},
			"Threads 8/agent (16 total)", ""},
		{nil, "Threads 8", "/agent"},
	} {
		snap := &rundata.Snapshot{Phase: rundata.PhaseRun, Elapsed: time.Second, Threads: 8, Agents: c.agents}
		ctx := &common.Context{Width: 160, Height: 40, Styles: themes.NewStyles(th), Info: rundata.Info{Adapter: "redis"}}
		m := New(ctx)
		m.SetSize(160, Height)
		h := history.New(time.Second)
		h.Add(snap)
		m.Render(h, State{})
		got := ansi.Strip(m.View())
		if !strings.Contains(got, c.want) || (c.not != "" && strings.Contains(got, c.not)) {
			t.Errorf("%d agents: header %q, want %q", len(c.agents), got, c.want)
		}
	}
}
