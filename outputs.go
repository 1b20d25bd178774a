package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/engine/report"
	"benchtop/engine/steps"
)

// exports are the files asked for (--json, --timeseries, --hdr-log). Each
// is written into a temporary file beside its final name and renamed at
// the end of the run, so that a file under the final name is always
// whole; nothing is created until the run starts.
type exports struct {
	jsonPath string
	series   *tempFile
	hdr      *tempFile
	seriesW  *report.TimeSeries
	hdrW     *report.HDRLog
	html     *htmlOutput  // html report: report_cmd.go
	baseline *baselineRun // --baseline (baseline.go)
	paths    []string     // written, for the "wrote" lines
}

// tempFile is a file being written beside its final name.
type tempFile struct {
	final string
	f     *os.File
	w     *bufio.Writer
}

// checkExports refuses export paths that cannot be written, before
// anything touches the database: the directory must exist and take a new
// file, and the name must not be a directory. It leaves nothing behind.
func checkExports(o *cliOptions) error {
	for _, e := range []struct{ flag, path string }{{"--json", o.JSON}, {"--timeseries", o.TimeSeries}, {"--hdr-log", o.HDRLog}, {"--html", o.HTML}} {
		if e.path == "" {
			continue
		}
		if err := checkWritable(e.path); err != nil {
			return usagef("%s %s: %v", e.flag, e.path, err)
		}
	}
	return nil
}

func checkWritable(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %v", dir, unwrapPathErr(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("is a directory")
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %v", dir, unwrapPathErr(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

func newTempFile(final string) (*tempFile, error) {
	f, err := os.CreateTemp(filepath.Dir(final), "."+filepath.Base(final)+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &tempFile{final: final, f: f, w: bufio.NewWriter(f)}, nil
}

// commit flushes, closes and renames the file to its final name.
func (t *tempFile) commit() error {
	err := t.w.Flush()
	if err == nil {
		err = t.f.Chmod(0o644)
	}
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(t.f.Name(), t.final)
	}
	if err != nil {
		os.Remove(t.f.Name())
	}
	return err
}

// discard removes the temporary file.
func (t *tempFile) discard() {
	t.f.Close()
	os.Remove(t.f.Name())
}

// writeFileAtomic writes a whole file through a temporary file beside it.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	t, err := newTempFile(path)
	if err != nil {
		return err
	}
	if err := write(t.w); err != nil {
		t.discard()
		return err
	}
	return t.commit()
}

// hooks wires the streaming exports into the runner's options; they write
// nothing until start.
func (e *exports) hooks(opts *engine.Options) {
	opts.OnSnapshot = append(opts.OnSnapshot, func(s *engine.Snapshot) {
		if e.seriesW != nil {
			e.seriesW.Write(s)
		}
	})
	opts.OnInterval = append(opts.OnInterval, func(ph engine.Phase, names []string, start, end time.Time, set *measure.Set) {
		if e.hdrW != nil {
			e.hdrW.Interval(ph, names, start, end, set)
		}
		if e.html != nil { // html report
			e.html.rec.Interval(ph, names, start, end, set)
		}
	})
	opts.OnSnapshot = append(opts.OnSnapshot, func(s *engine.Snapshot) {
		if e.html != nil { // html report
			e.html.rec.Snapshot(s)
		}
	})
}

// start creates the temporary files of the streaming exports: call it
// just before the run starts.
func (e *exports) start(o *cliOptions, runStart time.Time) error {
	if o.TimeSeries != "" {
		t, err := newTempFile(o.TimeSeries)
		if err != nil {
			return fmt.Errorf("--timeseries %s: %v", o.TimeSeries, unwrapPathErr(err))
		}
		e.series, e.seriesW = t, report.NewTimeSeries(t.f)
	}
	if o.HDRLog != "" {
		t, err := newTempFile(o.HDRLog)
		if err != nil {
			e.discard()
			return fmt.Errorf("--hdr-log %s: %v", o.HDRLog, unwrapPathErr(err))
		}
		e.hdr, e.hdrW = t, report.NewHDRLog(t.f, runStart)
	}
	if o.HTML != "" { // html report: the same start as the --hdr-log file's
		h, err := newHTMLOutput(o.HTML, runStart)
		if err != nil {
			e.discard()
			return err
		}
		e.html = h
	}
	e.jsonPath = o.JSON
	e.baseline = o.Baseline
	if e.html != nil && o.Baseline != nil { // --baseline: the comparison
		e.html.baseline, e.html.runName = o.Baseline, runName(o)
	}
	return nil
}

// runName labels this run beside a baseline: its JSON summary's name, or
// "this run".
func runName(o *cliOptions) string {
	if o.JSON != "" {
		return o.JSON
	}
	return "this run"
}

// finish writes the JSON summary and puts every export under its final
// name. Call it once the run is over and the report is complete.
func (e *exports) finish(results []*engine.PhaseResult, info engine.Info, failed []steps.Failure) error {
	var errs []error
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
	if e.jsonPath != "" {
		err := writeFileAtomic(e.jsonPath, func(w io.Writer) error { return writeJSON(w, results, info, failed, e.baseline) })
		errs = append(errs, e.done("--json", e.jsonPath, err))
	}
	if e.html != nil { // html report
		err := writeFileAtomic(e.html.path, func(w io.Writer) error { return e.html.render(w, results, info) })
		errs = append(errs, e.done("--html", e.html.path, err))
	}
	e.series, e.hdr, e.html = nil, nil, nil
	return errors.Join(errs...)
}

func (e *exports) done(flag, path string, err error) error {
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, path, unwrapPathErr(err))
	}
	e.paths = append(e.paths, path)
	return nil
}

// discard removes what start created: the run produced nothing to keep.
func (e *exports) discard() {
	for _, t := range []*tempFile{e.series, e.hdr} {
		if t != nil {
			t.discard()
		}
	}
	e.series, e.hdr = nil, nil
}

// writeFailedSteps writes one comment line per failed step after the
// report.
func writeFailedSteps(w io.Writer, failed []steps.Failure) {
	for _, f := range failed {
		fmt.Fprintf(w, "# step failed: %s\n", f)
	}
}

// failedStep is a failed step in the JSON summary.
type failedStep struct {
	Step   string  `json:"step"`
	AtS    float64 `json:"at_s"`
	Source string  `json:"source"`
	Error  string  `json:"error"`
}

// writeJSON writes the JSON summary, with a "failed_steps" member when
// a step failed and a "baseline" member with --baseline.
func writeJSON(w io.Writer, results []*engine.PhaseResult, info engine.Info, failed []steps.Failure, base *baselineRun) error {
	if len(failed) == 0 && base == nil {
		return report.WriteJSON(w, results, info)
	}
	var buf bytes.Buffer
	if err := report.WriteJSON(&buf, results, info); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		return err
	}
	if len(failed) > 0 {
		list := make([]failedStep, len(failed))
		for i, f := range failed {
			list[i] = failedStep{Step: f.Step.String(), AtS: f.Step.At.Seconds(), Source: f.Step.Source, Error: oneLine(f.Err)}
		}
		b, err := json.Marshal(list)
		if err != nil {
			return err
		}
		m["failed_steps"] = b
	}
	if base != nil {
		b, err := json.Marshal(base.jsonMember())
		if err != nil {
			return err
		}
		m["baseline"] = b
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// saveNow writes the report so far (YCSB text and JSON, and HTML with
// --html) into the current directory and returns where (the `s` key).
func saveNow(r *engine.Runner, e *exports) (string, error) {
	info := r.Info()
	return saveResults(r.Current(), info, e, func(w io.Writer, results []*engine.PhaseResult) {
		report.WriteText(w, results, info)
	}, func(w io.Writer, results []*engine.PhaseResult) error {
		return writeJSON(w, results, info, nil, e.baselineRun())
	})
}

// baselineRun is the --baseline run the exports compare with, nil when
// none (or no exports).
func (e *exports) baselineRun() *baselineRun {
	if e == nil {
		return nil
	}
	return e.baseline
}

// saveResults writes results as saveNow does, the text and JSON by the
// writers given (a fleet's have its agents).
func saveResults(results []*engine.PhaseResult, info engine.Info, e *exports,
	text func(io.Writer, []*engine.PhaseResult), js func(io.Writer, []*engine.PhaseResult) error) (string, error) {
	if len(results) == 0 {
		return "", errors.New("nothing measured yet")
	}
	// [screen] A live save is not an interrupted run: the run goes on.
	live := *results[len(results)-1]
	live.Interrupted = false
	results[len(results)-1] = &live
	base := "benchtop-report-" + time.Now().Format("20060102-150405")
	err := writeFileAtomic(base+".txt", func(w io.Writer) error {
		text(w, results)
		return nil
	})
	if err == nil {
		err = writeFileAtomic(base+".json", func(w io.Writer) error { return js(w, results) })
	}
	if err != nil {
		return "", fmt.Errorf("save report: %w", err)
	}
	if e != nil && e.html != nil { // html report
		err := writeFileAtomic(base+".html", func(w io.Writer) error { return e.html.render(w, results, info) })
		if err != nil {
			return "", fmt.Errorf("save report: %w", err)
		}
		return base + ".txt, .json and .html", nil
	}
	return base + ".txt and .json", nil
}

func unwrapPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
