package output

import (
	"errors"
	"fmt"
	"io"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/results/report"
	"benchtop/rundata"
)

// Exports are the files of Paths. The streaming ones (--timeseries,
// --hdr-log) are written into a temporary file beside their final name
// and renamed at the end of the run, so that a file under the final name
// is always whole; nothing is created until Start. Their methods
// Snapshot, Interval and AgentInterval are the run's hooks (a run's hooks
// are filled in one place: internal/cli's hooks.go).
type Exports struct {
	paths    Paths
	name     string    // this run beside the baseline
	baseline *Baseline // --baseline, nil without
	series   *tempFile
	hdr      *tempFile
	seriesW  *report.TimeSeries
	hdrW     *report.HDRLog
	html     *liveHTML
	written  []string // the files written, for the "wrote" lines
	// capacity is the capacity search's report so far (nil: none), for
	// the live saves.
	capacity func() *rundata.Capacity
	// stdout takes the export whose path is "-" (IsStdout), written in
	// place; guard, when set, checks the files a save writes.
	stdout io.Writer
	guard  *Guard
}

// NewExports prepares the exports of p. name labels this run beside the
// baseline run (nil: none) in the --html comparison.
func NewExports(p Paths, name string, base *Baseline) *Exports {
	return &Exports{paths: p, name: name, baseline: base}
}

// SetStdout sets where an export to standard output ("-") goes, and the
// Guard that checked the outputs (the s key's saves are checked against
// it); Start writes nothing to standard output before it is set.
func (e *Exports) SetStdout(w io.Writer, g *Guard) {
	e.stdout, e.guard = w, g
}

// Baseline is the run the exports compare with; nil when none (or no
// exports).
func (e *Exports) Baseline() *Baseline {
	if e == nil {
		return nil
	}
	return e.baseline
}

// Written are the files Finish wrote.
func (e *Exports) Written() []string { return e.written }

// Snapshot writes the snapshot's row of the time series and records it
// for the page. It matches engine.Options.OnSnapshot.
func (e *Exports) Snapshot(s *engine.Snapshot) {
	if e.seriesW != nil {
		e.seriesW.Write(s)
	}
	if e.html != nil {
		e.html.rec.Snapshot(s)
	}
}

// Interval writes one interval's histograms into the HDR log and records
// them for the page. It matches engine.Options.OnInterval.
func (e *Exports) Interval(ph engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	if e.hdrW != nil {
		e.hdrW.Interval(ph, names, start, end, set)
	}
	if e.html != nil {
		e.html.rec.Interval(ph, names, start, end, set)
	}
}

// AgentInterval writes a fleet agent's own interval into the HDR log,
// tagged AGENT/OP (vm1/READ), next to the merged ones.
func (e *Exports) AgentInterval(agent string, ph engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	if e.hdrW == nil {
		return
	}
	tagged := make([]string, len(names))
	for i, n := range names {
		tagged[i] = agent + "/" + n
	}
	e.hdrW.Interval(ph, tagged, start, end, set)
}

// Start creates the temporary files of the streaming exports and starts
// recording the page: call it just before the run starts. runStart is the
// HDR log's start (and the page's).
func (e *Exports) Start(runStart time.Time) error {
	if p := e.paths.TimeSeries; IsStdout(p) {
		e.seriesW = report.NewTimeSeries(e.stdoutW())
	} else if p != "" {
		t, err := newTempFile(p)
		if err != nil {
			return fmt.Errorf("--timeseries %s: %v", p, PathCause(err))
		}
		e.series, e.seriesW = t, report.NewTimeSeries(t.f)
	}
	if p := e.paths.HDRLog; IsStdout(p) {
		e.hdrW = report.NewHDRLog(e.stdoutW(), runStart)
	} else if p != "" {
		t, err := newTempFile(p)
		if err != nil {
			e.Discard()
			return fmt.Errorf("--hdr-log %s: %v", p, PathCause(err))
		}
		e.hdr, e.hdrW = t, report.NewHDRLog(t.f, runStart)
	}
	if p := e.paths.HTML; p != "" {
		h, err := newLiveHTML(p, runStart, e.baseline, e.name)
		if err != nil {
			e.Discard()
			return err
		}
		e.html = h
	}
	return nil
}

// Finish writes the JSON summary doc and the page of results, and puts
// every export under its final name. Call it once the run is over and the
// report is complete.
func (e *Exports) Finish(results []*engine.PhaseResult, info engine.Info, doc *Summary) error {
	var errs []error
	if IsStdout(e.paths.TimeSeries) && e.seriesW != nil { // in place
		errs = append(errs, e.done("--timeseries", "-", e.seriesW.Flush()))
	}
	if IsStdout(e.paths.HDRLog) && e.hdrW != nil {
		errs = append(errs, e.done("--hdr-log", "-", e.hdrW.Flush()))
	}
	if e.series != nil {
		err := e.seriesW.Flush()
		if err == nil {
			err = e.series.commit()
		} else {
			e.series.discard()
		}
		errs = append(errs, e.done("--timeseries", e.series.final, err))
	}
	if e.hdr != nil {
		err := e.hdrW.Flush()
		if err == nil {
			err = e.hdr.commit()
		} else {
			e.hdr.discard()
		}
		errs = append(errs, e.done("--hdr-log", e.hdr.final, err))
	}
	if p := e.paths.JSON; p != "" {
		err := WriteFile(p, e.stdoutW(), doc.Write)
		errs = append(errs, e.done("--json", p, err))
	}
	if e.html != nil {
		err := WriteFile(e.html.path, e.stdoutW(), func(w io.Writer) error { return e.html.render(w, results, info, doc) })
		errs = append(errs, e.done("--html", e.html.path, err))
	}
	e.series, e.hdr, e.html = nil, nil, nil
	return errors.Join(errs...)
}

// done records a file written, or says which could not be.
func (e *Exports) done(flag, path string, err error) error {
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, PathCause(err))
	}
	if !IsStdout(path) {
		e.written = append(e.written, path)
	}
	return nil
}

// stdoutW is where an export to standard output goes.
func (e *Exports) stdoutW() io.Writer {
	if e.stdout == nil {
		return io.Discard
	}
	return e.stdout
}

// Discard removes what Start created: the run produced nothing to keep.
func (e *Exports) Discard() {
	for _, t := range []*tempFile{e.series, e.hdr} {
		if t != nil {
			t.discard()
		}
	}
	e.series, e.hdr = nil, nil
}
