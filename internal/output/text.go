package output

import (
	"fmt"
	"io"

	"benchtop/results/steps"
)

// WriteFailedSteps writes one comment line per failed step after the
// text report.
func WriteFailedSteps(w io.Writer, failed []steps.Failure) {
	for _, f := range failed {
		fmt.Fprintf(w, "# step failed: %s\n", f)
	}
}
