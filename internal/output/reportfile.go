package output

import (
	"fmt"
	"path/filepath"
	"time"
)

// The text report of a run whose terminal was lost (SIGHUP): what would
// have gone to the terminal goes to a file, so that nothing of the run is
// lost with the SSH session it ran in.

// ReportPath is where such a run's text report goes:
// benchtop-report-TIME.txt (TIME the run's start) in the folder of the
// first export that is a file (--json, --timeseries, --hdr-log, --html,
// then exportfile), or in the working directory when there is none. The
// path is absolute, for the JSON summary and `benchtop attach --list`.
func ReportPath(p Paths, exportFile string, start time.Time) string {
	dir := "."
	for _, f := range []string{p.JSON, p.TimeSeries, p.HDRLog, p.HTML, exportFile} {
		if f != "" && !IsStdout(f) {
			dir = filepath.Dir(f)
			break
		}
	}
	path := filepath.Join(dir, "benchtop-report-"+start.Format("20060102-150405")+".txt")
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return path
}

// ReportFile is the text report being written beside its name; Close
// puts it in place.
type ReportFile struct {
	t    *tempFile
	Path string
}

// CreateReport checks path with g's rules (nil: the running program is
// the only input) and starts writing it.
func CreateReport(path string, g *Guard) (*ReportFile, error) {
	if err := g.Check("the report", path); err != nil {
		return nil, err
	}
	t, err := newTempFile(path)
	if err != nil {
		return nil, fmt.Errorf("the report %s: %v", path, PathCause(err))
	}
	return &ReportFile{t: t, Path: path}, nil
}

// Write writes into the report.
func (r *ReportFile) Write(p []byte) (int, error) { return r.t.w.Write(p) }

// Close puts the report under its name; on an error nothing is left.
func (r *ReportFile) Close() error {
	if err := r.t.commit(); err != nil {
		return fmt.Errorf("the report %s: %v", r.Path, PathCause(err))
	}
	return nil
}
