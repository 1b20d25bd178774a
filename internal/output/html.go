package output

import (
	"errors"
	"fmt"
	"io"
	"time"

	"benchtop/engine"
	"benchtop/htmlreport"
)

// liveHTML is the --html page of a live run: htmlreport's Recorder takes
// the run's series as it goes, and the page is made from them and the
// results at the end (or on a save).
type liveHTML struct {
	path string
	rec  *htmlreport.Recorder
	// baseline, with --baseline: the page is the comparison with it,
	// this run labelled name.
	baseline *Baseline
	name     string
}

// newLiveHTML checks the path (standard output is written in place at
// the end) and starts recording; start is the start time of the
// --hdr-log writer.
func newLiveHTML(path string, start time.Time, base *Baseline, name string) (*liveHTML, error) {
	if !IsStdout(path) {
		if err := CheckWritable(path); err != nil {
			return nil, fmt.Errorf("--html %s: %v", path, err)
		}
	}
	return &liveHTML{path: path, rec: htmlreport.NewRecorder(start), baseline: base, name: name}, nil
}

// render writes the page of results to w, with the members of doc the
// run's figures do not hold: a fleet's agents, the capacity search.
func (h *liveHTML) render(w io.Writer, results []*engine.PhaseResult, info engine.Info, doc *Summary) error {
	if len(results) == 0 {
		return errors.New("nothing measured yet")
	}
	var rep *htmlreport.Report
	if h.baseline != nil {
		var err error
		if rep, err = h.rec.Compare(h.baseline.Run, h.baseline.JSON, h.name, results, info); err != nil {
			return err
		}
	} else {
		run, err := h.rec.Run(results, info)
		if err != nil {
			return err
		}
		run.Agents = doc.htmlAgents()
		run.Capacity = doc.Capacity
		rep = htmlreport.Build(run)
	}
	return htmlreport.Render(w, rep)
}
