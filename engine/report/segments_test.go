package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
)

func TestSegmentExtrasInJSONAndTable(t *testing.T) {
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
	WriteSegments(&b, res.Segments)
	if !strings.Contains(b.String(), "rows/s") || !strings.Contains(b.String(), "2,500,000") || !strings.Contains(b.String(), "551") {
		t.Errorf("segments table lacks the extra columns:\n%s", b.String())
	}
}
