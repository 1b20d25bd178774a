package stream

import (
	"strings"
	"testing"
)

// The stream's table is marked by the segments' rules (results/marks):
// best only when two rows held 3 clean intervals and no row was faster.
func TestScenariosMarkedByTheSegmentsRules(t *testing.T) {
	t.Parallel()
	rows := []Scenario{
		{Partitions: 1, Threads: 4, Rows: 5e6, StableRowsPerSec: 1e6, Intervals: 5},
		{Partitions: 2, Threads: 4, Rows: 9e6, StableRowsPerSec: 1.8e6, Intervals: 5},
		{Partitions: 4, Threads: 4, Rows: 3e6, StableRowsPerSec: 2.5e6, Intervals: 1},
	}
	note := markScenarios(rows)
	if rows[0].Best || rows[1].Best || rows[2].Best {
		t.Errorf("best marked though row 3 was faster: %+v", rows)
	}
	if rows[2].State != "too short" || !strings.Contains(note, "row 3 was faster") {
		t.Errorf("state %q, note %q", rows[2].State, note)
	}
	rows[2].Intervals = 4
	if note := markScenarios(rows); !rows[2].Best || note != "" {
		t.Errorf("with 4 intervals row 3 is not best: %+v, note %q", rows[2], note)
	}
	var b strings.Builder
	WriteScenarios(&b, rows)
	if !strings.Contains(b.String(), "★ best") {
		t.Errorf("table without the mark:\n%s", b.String())
	}
}
