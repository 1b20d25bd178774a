package segments

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"benchtop/rundata"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/history"
)

// The current segment's ● does not move its row: with 12 segments, the
// open one "●12" as wide as the # column, every row's columns end where
// their titles end, at 120 columns (wide titles) and at 80 (narrow).
func TestCurrentMarkerKeepsTheColumns(t *testing.T) {
	lipgloss.SetColorProfile(termenv.Ascii)
	th, _ := themes.Get("dark")
	var segs []rundata.Segment
	for i := 1; i <= 12; i++ {
		segs = append(segs, rundata.Segment{Index: i, Start: time.Duration(i) * time.Second, End: time.Duration(i+1) * time.Second,
			Threads: i, Partitions: 1, OpsPerSec: float64(1000 * i), P50: time.Millisecond, P95: 2 * time.Millisecond,
			P99: 3 * time.Millisecond, Open: i == 12})
	}
	h := history.New(time.Second)
	h.Add(&rundata.Snapshot{Phase: rundata.PhaseRun, Elapsed: 13 * time.Second, Interval: time.Second, Segments: segs})
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		ctx := &common.Context{Width: size[0], Height: size[1], Styles: themes.NewStyles(th), Bordered: size[0] >= 100}
		m := New(ctx)
		m.SetSize(size[0], size[1])
		m.Render(h)
		lines := strings.Split(m.View(), "\n")
		var title string
		rows := map[int]string{}
		for _, l := range lines {
			f := strings.Fields(strings.Trim(l, "│ "))
			switch {
			case len(f) > 2 && f[0] == "#":
				title = l
			case len(f) > 2 && (f[0] == strconv.Itoa(len(rows)+1) || f[0] == "●"+strconv.Itoa(len(rows)+1)):
				rows[len(rows)+1] = l
			}
		}
		if title == "" || len(rows) != 12 || !strings.Contains(rows[12], "●12") {
			t.Fatalf("%dx%d: title %q, %d rows:\n%s", size[0], size[1], title, len(rows), m.View())
		}
		// The end of each title, in cells, is where each row's value ends.
		ends := columnEnds(title)
		for i := 1; i <= 12; i++ {
			got := columnEnds(rows[i])
			for j := 0; j < len(ends) && j < len(got); j++ {
				if got[j] != ends[j] {
					t.Errorf("%dx%d: row %d, column %d ends at cell %d, its title at %d:\n%s\n%s", size[0], size[1], i, j+1, got[j], ends[j], title, rows[i])
					break
				}
			}
		}
	}
}

// columnEnds are the cells at which the words of line end (a title of two
// words, "p99 svc", counts as two).
func columnEnds(line string) []int {
	var ends []int
	cells, in := 0, false
	for _, r := range line {
		w := lipgloss.Width(string(r))
		space := r == ' ' || r == '│'
		if in && space {
			ends = append(ends, cells)
		}
		in = !space
		cells += w
	}
	if in {
		ends = append(ends, cells)
	}
	return ends
}
