package htmlreport

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/engine/report"
)

// Recorder keeps a live run's time series and interval log in memory,
// written by the same writers as --timeseries and --hdr-log, so that the
// report it makes at the end (or on a save) is the one `benchtop report`
// makes later from those files and the JSON summary.
type Recorder struct {
	mu   sync.Mutex
	csv  bytes.Buffer
	hlog bytes.Buffer
	ts   *report.TimeSeries
	hl   *report.HDRLog
}

// NewRecorder starts recording. start must be the start time given to
// the --hdr-log writer, if any, so that both logs carry the same times.
func NewRecorder(start time.Time) *Recorder {
	r := &Recorder{}
	r.ts = report.NewTimeSeries(&r.csv)
	r.hl = report.NewHDRLog(&r.hlog, start)
	return r
}

// Snapshot records one snapshot; it matches engine.Options.OnSnapshot.
func (r *Recorder) Snapshot(s *engine.Snapshot) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ts.Write(s)
}

// Interval records one interval's histograms; it matches
// engine.Options.OnInterval.
func (r *Recorder) Interval(phase engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hl.Interval(phase, names, start, end, set)
}

// Report builds the report of the run so far from the results: the JSON
// summary as --json writes it, and the recorded series, read back.
func (r *Recorder) Report(results []*engine.PhaseResult, info engine.Info) (*Report, error) {
	run, err := r.Run(results, info)
	if err != nil {
		return nil, err
	}
	return Build(run), nil
}

// Compare builds the report of the run so far against a baseline run, as
// `benchtop report --compare` does; the names label both runs.
func (r *Recorder) Compare(base *Run, baseName, runName string, results []*engine.PhaseResult, info engine.Info) (*Report, error) {
	run, err := r.Run(results, info)
	if err != nil {
		return nil, err
	}
	return Compare(base, run, baseName, runName), nil
}

// Run is the run so far as `benchtop report` reads it from the exports.
func (r *Recorder) Run(results []*engine.PhaseResult, info engine.Info) (*Run, error) {
	var js bytes.Buffer
	if err := report.WriteJSON(&js, results, info); err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	run, err := ReadJSON(&js)
	if err != nil {
		return nil, fmt.Errorf("html report: %w", err)
	}
	r.mu.Lock()
	errTS, errHL := r.ts.Flush(), r.hl.Flush()
	csv := bytes.Clone(r.csv.Bytes())
	hlog := bytes.Clone(r.hlog.Bytes())
	r.mu.Unlock()
	if errTS != nil || errHL != nil {
		return nil, fmt.Errorf("html report: recording: %v %v", errTS, errHL)
	}
	if len(csv) > 0 {
		if err := run.ReadCSV(bytes.NewReader(csv)); err != nil {
			return nil, err
		}
	}
	if err := run.ReadHDRLog(bytes.NewReader(hlog)); err != nil {
		return nil, err
	}
	return run, nil
}

// WriteFile writes the report of the run so far to path.
func (r *Recorder) WriteFile(path string, results []*engine.PhaseResult, info engine.Info) error {
	rep, err := r.Report(results, info)
	if err != nil {
		return err
	}
	return WriteFile(path, rep)
}

// WriteFile renders rep into path.
func WriteFile(path string, rep *Report) error {
	var b bytes.Buffer
	if err := Render(&b, rep); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
