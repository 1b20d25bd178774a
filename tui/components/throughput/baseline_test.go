package throughput

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/muesli/termenv"

	"benchtop/themes"
	"benchtop/tui/common"
)

// spans are one-second spans from from seconds on, with the given rates.
func spans(from int, rates ...float64) []common.BaselineSpan {
	var out []common.BaselineSpan
	for i, r := range rates {
		s := time.Duration(from+i) * time.Second
		out = append(out, common.BaselineSpan{From: s, To: s + time.Second, Rate: r})
	}
	return out
}

func sameFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.IsNaN(a[i]) != math.IsNaN(b[i]) || !math.IsNaN(a[i]) && math.Abs(a[i]-b[i]) > 1e-9 {
			return false
		}
	}
	return true
}

func TestBaselineColumnsAlignByTimeSinceTheStart(t *testing.T) {
	nan := math.NaN()
	base := spans(2, 10, 20, 30, 40) // from 2 s to 6 s (a load phase before)
	for _, tc := range []struct {
		name   string
		firstK int64
		bucket float64
		n      int
		want   []float64
	}{
		// Columns of 1 s from 0 s: nothing before 2 s, nothing after 6 s.
		{"one span a column", 0, 1, 8, []float64{nan, nan, 10, 20, 30, 40, nan, nan}},
		// The window has scrolled: the first column is 4 s.
		{"scrolled", 4, 1, 4, []float64{30, 40, nan, nan}},
		// Columns of 2 s average the spans whose middle is in them.
		{"averaged", 1, 2, 3, []float64{15, 35, nan}},
		// Columns of 0.5 s: each span covers two.
		{"stretched", 4, 0.5, 6, []float64{10, 10, 20, 20, 30, 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := BaselineColumns(base, tc.firstK, tc.bucket, tc.n); !sameFloats(got, tc.want) {
				t.Errorf("BaselineColumns(firstK %d, bucket %v, n %d) = %v, want %v", tc.firstK, tc.bucket, tc.n, got, tc.want)
			}
		})
	}
	// The live run's columns come from the same window: the baseline's
	// column k is the live column k (Columns' firstK and bucket).
	_, _, bucket, firstK := Columns(ring(1, 2, 3, 4, 5, 6), 6*time.Second, 6*time.Second, 6)
	if got := BaselineColumns(base, firstK, bucket, 6); !sameFloats(got, []float64{nan, nan, 10, 20, 30, 40}) {
		t.Errorf("against the live columns: %v", got)
	}
}

func TestBaselineColumnsOfSegments(t *testing.T) {
	// One span per segment (a baseline without its time series): each
	// column takes the segment it falls in.
	segs := []common.BaselineSpan{{From: 0, To: 3 * time.Second, Rate: 100}, {From: 3 * time.Second, To: 6 * time.Second, Rate: 300}}
	if got := BaselineColumns(segs, 0, 1, 6); !sameFloats(got, []float64{100, 100, 100, 300, 300, 300}) {
		t.Errorf("segments: %v", got)
	}
}

func TestBaselineRowsScaleAsTheChart(t *testing.T) {
	got := BaselineRows([]float64{0, 50, 100, 101, math.NaN(), -1}, 100, 10, 9)
	want := []int{9, 4, -1, -1, -1, -1} // 100 would be row -1: off the graph
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("BaselineRows = %v, want %v", got, want)
		}
	}
}

// plainModel draws without colours: the lines tell apart by their corners
// (the live line's are round, the baseline's square).
func plainModel(bl *common.Baseline) *Model {
	r := lipgloss.NewRenderer(nil)
	r.SetColorProfile(termenv.Ascii)
	th, _ := themes.Get("")
	return &Model{ctx: &common.Context{Styles: themes.NewStylesWithRenderer(r, th), Baseline: bl}, Window: DefaultWindow}
}

// rowsWith are the rows of lines that hold a run of three '─'.
func rowsWith(lines []string) []int {
	var out []int
	for i, l := range lines {
		if strings.Contains(ansi.Strip(l)[labelW+1:], "───") {
			out = append(out, i)
		}
	}
	return out
}

// The baseline at a value is drawn on the row the live line takes at that
// value, on the same scale.
func TestBaselineDrawnOnTheLiveScale(t *testing.T) {
	const w, h = 40, 12
	n := w - labelW - 1
	flat := func(v float64, k int) []float64 {
		out := make([]float64, k)
		for i := range out {
			out[i] = v
		}
		return out
	}
	// The live line at 800 then at 400: its two rows.
	live := append(flat(800, n/2), flat(400, n-n/2)...)
	ref := rowsWith(plainModel(nil).chart(live, flat(0, n), nil, w, h))
	if len(ref) != 2 {
		t.Fatalf("reference chart: rows with a line %v, want 2", ref)
	}
	// The live line at 800, the baseline at 400: the baseline's row is
	// the live line's row at 400.
	lines := plainModel(&common.Baseline{Name: "b"}).chart(flat(800, n), flat(0, n), flat(400, n), w, h)
	got := rowsWith(lines)
	if len(got) != 2 || got[0] != ref[0] || got[1] != ref[1] {
		t.Fatalf("rows with a line %v, want %v:\n%s", got, ref, strings.Join(lines, "\n"))
	}
	// And it stays behind: where both are at 800 only the live line shows.
	same := plainModel(&common.Baseline{Name: "b"}).chart(flat(800, n), flat(0, n), flat(800, n), w, h)
	if r := rowsWith(same); len(r) != 1 || r[0] != ref[0] {
		t.Fatalf("baseline at the live value: rows %v, want only %d", r, ref[0])
	}
}
