package output

// The capacity search's outcome (--find-max) in the text report.

import (
	"fmt"
	"io"

	"benchtop/rundata"
)

// WriteCapacity writes the search's lines after the text report: "#
// capacity: " and the answer, whether it can be trusted and why not, then
// "# capacity probe N: " and each probe. Nothing without a search (nil).
func WriteCapacity(w io.Writer, r *rundata.Capacity) {
	if r == nil {
		return
	}
	answer, probes := r.TextLines()
	for _, l := range answer {
		fmt.Fprintf(w, "# capacity: %s\n", l)
	}
	for _, l := range probes {
		fmt.Fprintf(w, "# capacity probe %s\n", l)
	}
}

// WithCapacity adds the search's outcome as the "capacity" member (nil:
// none).
func (s *Summary) WithCapacity(r *rundata.Capacity) *Summary {
	s.Capacity = r
	return s
}

// SetCapacity gives the exports the search's report so far, for the
// saves of the live screen's s key.
func (e *Exports) SetCapacity(f func() *rundata.Capacity) { e.capacity = f }
