package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
)

func TestTimeSeriesCSV(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	ts := NewTimeSeries(&b)
	s := &engine.Snapshot{Time: time.Unix(0, 0), Elapsed: time.Second, Interval: time.Second, Phase: engine.PhaseRun, Threads: 4, Partitions: 2,
		Total: engine.OpSnapshot{Interval: engine.Stats{Count: 10, OK: 10, Rate: 10}},
		Ops:   []engine.OpSnapshot{{Name: "READ", Interval: engine.Stats{Count: 10, OK: 10, P99: 3 * time.Microsecond}}}}
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

// An interval where nothing succeeded has empty latency columns, never 0,
// and its failures in failed_per_sec, not in ops_per_sec.
func TestTimeSeriesCSVFailedInterval(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	ts := NewTimeSeries(&b)
	failed := engine.Stats{Count: 900, Errors: 900, FailedRate: 900}
	ts.Write(&engine.Snapshot{Time: time.Unix(0, 0), Elapsed: time.Second, Interval: time.Second, Phase: engine.PhaseRun, Threads: 4,
		Total: engine.OpSnapshot{Interval: failed}, Ops: []engine.OpSnapshot{{Name: "READ", Interval: failed}}})
	if err := ts.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	col := map[string]string{}
	for i, h := range head {
		col[h] = row[i]
	}
	for _, k := range []string{"p50_us", "p95_us", "p99_us", "max_us", "read_p50_us", "read_p99_us"} {
		if col[k] != "" {
			t.Errorf("%s = %q, want empty (nothing succeeded)", k, col[k])
		}
	}
	if col["ops_per_sec"] != "0" || col["failed_per_sec"] != "900" || col["errors"] != "900" {
		t.Errorf("ops_per_sec %q failed_per_sec %q errors %q", col["ops_per_sec"], col["failed_per_sec"], col["errors"])
	}
}
