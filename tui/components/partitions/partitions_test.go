package partitions

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
)

func styles(t *testing.T) themes.Styles {
	t.Helper()
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	th, ok := themes.Get(themes.Names()[0])
	if !ok {
		t.Fatal("no theme")
	}
	return themes.NewStylesWithRenderer(r, th)
}

func view(n int) *rundata.PartitionsView {
	v := &rundata.PartitionsView{Partitions: n, Consumers: n, ConsumedRate: 1.2e6, ConsumedMBps: 264, Lag: 1500, LagSeconds: 0.02,
		E2E: rundata.Latency{P99: 3 * time.Millisecond}}
	for i := range n {
		v.Parts = append(v.Parts, rundata.PartitionView{Index: i, Active: true, Consuming: true,
			Rate: float64(1000 * (i + 1)), MBps: 0.22 * float64(i+1), Lag: int64(10 * i), LagSeconds: 0.01 * float64(i), P99: time.Millisecond})
	}
	return v
}

// Every size draws exactly w x h cells, for any view.
func TestRenderSize(t *testing.T) {
	st := styles(t)
	for _, v := range []*rundata.PartitionsView{nil, {}, view(1), view(4), view(64), view(300)} {
		for _, size := range [][2]int{{80, 12}, {120, 30}, {40, 6}, {20, 4}, {200, 50}} {
			for _, b := range []bool{true, false} {
				out := Render(v, st, b, size[0], size[1])
				lines := strings.Split(out, "\n")
				if len(lines) != size[1] {
					t.Fatalf("%dx%d bordered=%v: %d lines", size[0], size[1], b, len(lines))
				}
				for i, l := range lines {
					if w := common.Width(l); w != size[0] {
						t.Fatalf("%dx%d bordered=%v: line %d is %d wide: %q", size[0], size[1], b, i, w, l)
					}
				}
			}
		}
	}
}

// Few partitions: one line each, with its rate; many: a compact grid.
func TestRenderModes(t *testing.T) {
	st := styles(t)
	out := Render(view(4), st, true, 100, 12)
	for _, want := range []string{"Partitions · 4 written · 4 consumers", "1.20M rows/s", "order ok", "   3 ●", "4.00K"} {
		if !strings.Contains(out, want) {
			t.Errorf("table view lacks %q:\n%s", want, out)
		}
	}
	v := view(4)
	v.Parts[2].Held = true
	v.Parts[3].Active = false
	v.OutOfOrder = 2
	out = Render(v, st, true, 100, 12)
	for _, want := range []string{"1 waiting for the old map to drain", "   2 ‖", "   3 ◌", "2 out of order"} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	out = Render(view(64), st, true, 80, 10)
	if !strings.Contains(out, "rows/s 0") || !strings.Contains(out, "lag") {
		t.Errorf("grid view:\n%s", out)
	}
	out = Render(view(300), st, true, 80, 8)
	if !strings.Contains(out, "more") {
		t.Errorf("grid of 300 partitions in 8 lines does not say how many are hidden:\n%s", out)
	}
	t.Logf("\n%s\n%s", Render(view(6), st, true, 110, 10), Render(view(64), st, false, 80, 7))
}
