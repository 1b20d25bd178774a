package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"benchtop/results/report"
	"benchtop/tui/common"
)

// fakeBaseline is an earlier run of the fake run's first two
// configurations: 2 threads at 200K ops/s for 10 s, then 4 threads at
// 400K, p99 40 µs and 50 µs.
func fakeBaseline() *common.Baseline {
	us := func(v float64) *float64 { return &v }
	b := &common.Baseline{Name: "base.json", PerInterval: true, OpsPerSec: 300_000,
		SegmentLike: BaselineSegments(&report.Summary{Throughput: 300_000, Segments: []report.SegmentSummary{
			{Index: 1, StartS: 0, DurationS: 10, Threads: 2, Partitions: 1, OpsPerSec: 200_000, P99US: us(40)},
			{Index: 2, StartS: 10, DurationS: 10, Threads: 4, Partitions: 1, OpsPerSec: 400_000, P99US: us(50)},
		}})}
	for s := 0; s < 20; s++ {
		rate := 200_000.0
		if s >= 10 {
			rate = 400_000
		}
		b.Spans = append(b.Spans, common.BaselineSpan{From: time.Duration(s) * time.Second, To: time.Duration(s+1) * time.Second, Rate: rate})
	}
	return b
}

// The live screen with --baseline: its legend on the chart at both sizes,
// and the Δ columns in the segments table where they fit (120 columns).
func TestGoldenBaseline(t *testing.T) {
	run := running(fakeRun(40, 0))
	withBase := func(o *Options) { o.Baseline = fakeBaseline() }
	for _, view := range []string{"main", "segments"} {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(view+"_"+itoa(size[0])+"x"+itoa(size[1]), func(t *testing.T) {
				var keys []string
				if view == "segments" {
					keys = []string{"tab"}
				}
				m, _ := frameAfter(t, size[0], size[1], run, withBase, keys...)
				for i, l := range strings.Split(m.frame, "\n") {
					if w := widthOf(l); w != size[0] {
						t.Fatalf("line %d is %d wide, want %d", i, w, size[0])
					}
				}
				if !strings.Contains(m.frame, "baseline: base.json") {
					t.Errorf("no baseline label:\n%s", m.frame)
				}
				if view == "main" && size[0] == 120 && !strings.Contains(m.frame, "300,000 ops/s") {
					t.Errorf("no baseline figure:\n%s", m.frame)
				}
				if view == "segments" && size[0] == 120 {
					// Segment 1 (2 threads) made 194,000 ops/s with p99
					// 41.2 µs against the baseline's 200,000 and 40 µs;
					// the baseline never ran 8 threads.
					var row1, row3 string
					for _, l := range strings.Split(m.frame, "\n") {
						switch {
						case strings.HasPrefix(l, "│   1 "):
							row1 = l
						case strings.HasPrefix(l, "│   3 "):
							row3 = l
						}
					}
					if !strings.Contains(m.frame, "Δ ops/s") || !strings.Contains(row1, "−3.0 %") || !strings.Contains(row1, "+3.1 %") {
						t.Errorf("segment 1 lacks its differences (Δ ops/s −3.0 %%, Δ p99 +3.1 %%): %q\n%s", row1, m.frame)
					}
					if strings.Contains(row3, " %") || !strings.Contains(row3, "-        -") {
						t.Errorf("segment 3 has differences against a configuration the baseline never held: %q", row3)
					}
				}
				golden.RequireEqual(t, []byte(m.frame))
			})
		}
	}
}
