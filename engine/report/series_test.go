package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
)

func TestTimeSeriesCSV(t *testing.T) {
	var b bytes.Buffer
	ts := NewTimeSeries(&b)
	s := &engine.Snapshot{Time: time.Unix(0, 0), Elapsed: time.Second, Interval: time.Second, Phase: engine.PhaseRun, Threads: 4, Partitions: 2,
		Total: engine.OpSnapshot{Interval: engine.Stats{Count: 10, Rate: 10}},
		Ops:   []engine.OpSnapshot{{Name: "READ", Interval: engine.Stats{Count: 10, P99: 3 * time.Microsecond}}}}
	ts.Write(s)
	ts.Write(s)
	if err := ts.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want header + 2 rows, got %d lines", len(lines))
	}
	cols := len(strings.Split(lines[0], ","))
	for _, l := range lines[1:] {
		if n := len(strings.Split(l, ",")); n != cols {
			t.Errorf("row has %d columns, header %d: %q", n, cols, l)
		}
	}
	if !strings.Contains(lines[1], ",run,4,2,") || !strings.Contains(lines[1], ",10,0,0,3,") {
		t.Errorf("row content: %q", lines[1])
	}
}
