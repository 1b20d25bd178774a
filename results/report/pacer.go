package report

import (
	"fmt"
	"io"
	"time"

	"benchtop/engine"
)

// PacerSummary is the pacer's own precision in the JSON summary: how
// late the paced operations started (actual start minus intended start,
// µs), and how many of them were due before their thread's previous
// operation ended (behind the schedule: after a late wake-up, or behind a
// slow database).
type PacerSummary struct {
	Ops       int64   `json:"operations"`
	Behind    int64   `json:"behind"`
	LateP50US float64 `json:"late_p50_us"`
	LateP99US float64 `json:"late_p99_us"`
	LateMaxUS float64 `json:"late_max_us"`
}

// pacerSummary is st for the JSON summary; nil when nothing was paced.
func pacerSummary(st *engine.PacerStats) *PacerSummary {
	if st == nil {
		return nil
	}
	s := &PacerSummary{Ops: st.Ops, Behind: st.Behind}
	if h := st.Late; h != nil && h.TotalCount() > 0 {
		s.LateP50US = float64(h.ValueAtQuantile(50)) / 1e3
		s.LateP99US = float64(h.ValueAtQuantile(99)) / 1e3
		s.LateMaxUS = float64(h.Max()) / 1e3
	}
	return s
}

// writePacer writes the `# pacer:` comment line: the pacer's lateness,
// beside the intended latency it is part of. Nothing when no operation
// was paced.
func writePacer(w io.Writer, res *engine.PhaseResult) {
	st := res.Pacer
	if st == nil {
		return
	}
	h := st.Late
	if h == nil || h.TotalCount() == 0 {
		return
	}
	fmt.Fprintf(w, "# pacer: %d paced operations started late by p50 %s, p99 %s, max %s (actual start minus intended start, part of their intended latency); %d of them behind the schedule (due before their thread's previous operation ended)\n",
		st.Ops, FormatDuration(time.Duration(h.ValueAtQuantile(50))), FormatDuration(time.Duration(h.ValueAtQuantile(99))),
		FormatDuration(time.Duration(h.Max())), st.Behind)
}
