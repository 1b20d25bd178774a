package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
)

func TestSegmentExtrasInJSONAndTable(t *testing.T) {
	t.Parallel()
	res := sampleResult(false, "op")
	res.Segments = []engine.Segment{{Index: 1, End: 10 * time.Second, Threads: 2, Partitions: 4, Ops: 100, OpsPerSec: 10,
		Extra: map[string]float64{"rows_per_sec": 2500000, "mb_per_sec": 550.5}}}
	res.Final = &engine.Snapshot{}
	var b bytes.Buffer
	if err := WriteJSON(&b, []*engine.PhaseResult{res}, engine.Info{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"rows_per_sec": 2500000`) || !strings.Contains(b.String(), `"mb_per_sec": 550.5`) {
		t.Errorf("segment extras not members of the segment:\n%s", b.String())
	}
	b.Reset()
	WriteSegments(&b, res.Segments, "", "")
	if !strings.Contains(b.String(), "rows/s") || !strings.Contains(b.String(), "2,500,000") || !strings.Contains(b.String(), "551") {
		t.Errorf("segments table lacks the extra columns:\n%s", b.String())
	}
}

// The segments table shows goodput, failed/s beside it, "–" where nothing
// succeeded, the state of a segment the rules could not judge and the
// note saying why best is undecided.
func TestSegmentsTableTellsFailuresApart(t *testing.T) {
	t.Parallel()
	segs := []engine.Segment{
		{Index: 1, End: 4 * time.Second, Threads: 4, Partitions: 1, Ops: 90000, OK: 90000, OpsPerSec: 30000, HasLatency: true,
			P50: 100 * time.Microsecond, P95: 200 * time.Microsecond, P99: 300 * time.Microsecond, Intervals: 3, State: "qualified"},
		{Index: 2, Start: 4 * time.Second, End: 10 * time.Second, Threads: 4, Partitions: 1, Ops: 180000, Errors: 180000,
			FailedPerSec: 31574, ErrorRate: 1, Intervals: 5, State: "errors", Note: "100 % of its operations failed"},
	}
	var b bytes.Buffer
	WriteSegments(&b, segs, "best and knee undecided: 1 of 2 qualifies", "")
	out := b.String()
	lines := strings.Split(out, "\n")
	var outage string
	for _, l := range lines {
		if strings.HasPrefix(strings.TrimSpace(l), "2 ") {
			outage = l
		}
	}
	if !strings.Contains(out, "failed/s") || !strings.Contains(outage, "31,574") {
		t.Errorf("no failed/s column with the outage's rate:\n%s", out)
	}
	if strings.Count(outage, NoLatency) != 3 || strings.Contains(outage, " 0ns") || !strings.Contains(outage, "(errors)") {
		t.Errorf("the outage row shows latency or no state: %q", outage)
	}
	if !strings.Contains(out, "# best and knee undecided: 1 of 2 qualifies") {
		t.Errorf("no note:\n%s", out)
	}
}
