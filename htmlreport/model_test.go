package htmlreport

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// loadFixture reads testdata/NAME.json with its HDR log and CSV: the
// exports of a real run (see testdata/README).
func loadFixture(t *testing.T, name string, withHDR, withCSV bool) *Run {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	run, err := ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	if withHDR {
		h, err := os.Open(filepath.Join("testdata", name+".hlog"))
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if err := run.ReadHDRLog(h); err != nil {
			t.Fatal(err)
		}
	}
	if withCSV {
		c, err := os.Open(filepath.Join("testdata", name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if err := run.ReadCSV(c); err != nil {
			t.Fatal(err)
		}
	}
	return run
}

// The data model of the page, field by field: refresh with
// go test ./htmlreport -run TestModelGolden -update, and read the diff.
func TestModelGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		fixture      string
		withHDR, csv bool
	}{
		{"sweep", "sweep", true, true},
		{"sweep-json-only", "sweep", false, false},
		{"stream", "stream", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Build(loadFixture(t, tc.fixture, tc.withHDR, tc.csv))
			b, err := json.MarshalIndent(r, "", " ")
			if err != nil {
				t.Fatal(err)
			}
			golden.RequireEqual(t, append(b, '\n'))
		})
	}
}

// The HDR log's intervals sit where the CSV's are on the time axis: both
// count from the run's start.
func TestHDRLogAndCSVShareTheTimeAxis(t *testing.T) {
	t.Parallel()
	run := loadFixture(t, "sweep", true, true)
	if len(run.Rows) == 0 || len(run.Intervals) == 0 {
		t.Fatal("fixture has no rows or intervals")
	}
	for _, iv := range run.Intervals {
		best := math.Inf(1)
		for _, r := range run.Rows {
			best = min(best, math.Abs(r.ElapsedS-iv.EndS))
		}
		// The CSV rounds to the millisecond and its snapshot is taken a
		// moment after the interval closes.
		if best > 0.05 {
			t.Fatalf("HDR interval %s ending at %.3f s has no CSV row within 50 ms (nearest %.3f s off)", iv.Op, iv.EndS, best)
		}
	}
}

func TestThroughputFromEachSource(t *testing.T) {
	t.Parallel()
	var notes []string
	csv := throughputChart(loadFixture(t, "sweep", false, true), &notes)
	hlog := throughputChart(loadFixture(t, "sweep", true, false), &notes)
	segs := throughputChart(loadFixture(t, "sweep", false, false), &notes)
	pts := func(c *Chart) []XY {
		for _, s := range c.Series {
			if s.Name == "ops/s" || s.Name == "ops/s per segment" {
				return s.Points
			}
		}
		t.Fatalf("chart %s has no ops/s series: %+v", c.ID, c.Series)
		return nil
	}
	a, b := pts(csv), pts(hlog)
	if len(a) != len(b) {
		t.Fatalf("CSV gives %d run intervals, the HDR log %d", len(a), len(b))
	}
	for i := range a {
		// The same intervals counted two ways: equal within the HDR log's
		// millisecond timestamps.
		if rel := math.Abs(a[i].Y-b[i].Y) / a[i].Y; rel > 0.02 {
			t.Errorf("interval %d: %.0f ops/s from the CSV, %.0f from the HDR log", i, a[i].Y, b[i].Y)
		}
	}
	if got := len(pts(segs)); got != 2*len(loadFixture(t, "sweep", false, false).Summary.Segments) {
		t.Errorf("per-segment steps: %d points", got)
	}
	if len(notes) != 1 {
		t.Errorf("notes = %q, want one saying the chart is per segment", notes)
	}
}

func TestFindSweep(t *testing.T) {
	t.Parallel()
	run := loadFixture(t, "sweep", false, false)
	sw := findSweep(run.Summary.Segments)
	if sw == nil || sw.Key != "threads" {
		t.Fatalf("sweep = %+v, want threads", sw)
	}
	want := []float64{1, 2, 4, 8}
	if len(sw.Values) != len(want) {
		t.Fatalf("values %v, want %v", sw.Values, want)
	}
	for i := range want {
		if sw.Values[i] != want[i] || float64(sw.Segs[i].Threads) != want[i] {
			t.Errorf("value %d = %v (segment threads %d), want %v", i, sw.Values[i], sw.Segs[i].Threads, want[i])
		}
	}
	st := loadFixture(t, "stream", false, false)
	if sw := findSweep(st.Summary.Segments); sw == nil || sw.Key != "partitions" {
		t.Fatalf("stream sweep = %+v, want partitions", sw)
	}
}
