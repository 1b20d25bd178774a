package agents

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
)

func fleetRows(n int) []rundata.AgentRow {
	rows := make([]rundata.AgentRow, n)
	for i := range rows {
		rows[i] = rundata.AgentRow{Name: fmt.Sprintf("vm%d", i+1), State: "running", OpsPerSec: 7991, P99: 10100 * time.Microsecond,
			CPU: 34, RxBytesPerSec: 18e6, TxBytesPerSec: 4e6, ClockOffset: 400 * time.Microsecond, Threads: 50, Target: 8000}
	}
	return rows
}

func ctx(bordered bool) *common.Context {
	th, _ := themes.Get("")
	return &common.Context{Styles: themes.NewStyles(th), Bordered: bordered}
}

func TestFifteenAgentsAt120x40(t *testing.T) {
	rows := fleetRows(15)
	rows[6].P99 = 12300 * time.Microsecond
	rows[13] = rundata.AgentRow{Name: "vm14", State: "lost", Reason: "connection reset"}
	rows[14] = rundata.AgentRow{Name: "vm15", State: "late", Pending: 759, ClockOffset: -1100 * time.Microsecond}
	const bodyH = 40 - 2 - 2 // header, status and help lines
	h := PanelHeight(len(rows), true, bodyH)
	if h != Height(15, true) {
		t.Fatalf("panel height %d of a body of %d, want all 15 rows (%d)", h, bodyH, Height(15, true))
	}
	m := New(ctx(true))
	m.SetSize(120, h)
	m.Render(rows)
	lines := strings.Split(m.View(), "\n")
	if len(lines) != h {
		t.Fatalf("%d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if w := ansi.StringWidth(l); w != 120 {
			t.Errorf("line %d is %d wide, want 120: %q", i, w, ansi.Strip(l))
		}
	}
	text := ansi.Strip(m.View())
	for _, r := range rows {
		if !strings.Contains(text, r.Name+" ") {
			t.Errorf("agent %s not on the panel", r.Name)
		}
	}
	for _, want := range []string{"7,991", "10ms", "34%", "+0.40ms", "connection reset", "interval 759 pending"} {
		if !strings.Contains(text, want) {
			t.Errorf("panel lacks %q:\n%s", want, text)
		}
	}
}

func TestTooManyRowsAreSummed(t *testing.T) {
	rows := fleetRows(40)
	h := PanelHeight(len(rows), true, 36)
	if h >= Height(40, true) || h < Height(2, true) {
		t.Fatalf("panel height %d for 40 agents in 36 lines", h)
	}
	m := New(ctx(true))
	m.SetSize(120, h)
	m.Render(rows)
	text := ansi.Strip(m.View())
	shown := h - 2 - 1 - 1 // frame, header, the summary row
	if !strings.Contains(text, fmt.Sprintf("… %d more: %d agents: %d running", 40-shown, 40-shown, 40-shown)) {
		t.Errorf("no summary of the rows left out:\n%s", text)
	}
}

func TestCompactScreenIsOneLine(t *testing.T) {
	if h := PanelHeight(15, false, 20); h != 1 {
		t.Fatalf("compact panel height %d, want the summary line", h)
	}
	rows := fleetRows(15)
	rows[6].P99 = 12300 * time.Microsecond
	rows[2].State, rows[2].Pending = "late", 12
	line := SummaryLine(ctx(false).Styles, rows, 80)
	if w := ansi.StringWidth(line); w != 80 {
		t.Errorf("summary line is %d wide, want 80", w)
	}
	want := "15 agents: 14 running, 1 late · slowest vm7 p99 12ms"
	if got := strings.TrimSpace(ansi.Strip(line)); got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}
