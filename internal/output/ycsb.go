package output

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/results/report"
)

// YCSB writes the final report where YCSB's client properties say:
// through the exporter (text, json, jsonarray) to exportfile or, without
// one, to stdout; and YCSB's own HDR files (hdrhistogram.fileoutput).
type YCSB struct {
	out engine.Output
	hdr *report.HDRFiles
}

// NewYCSB checks the paths of cfg's outputs with g's rules (recording
// them there) before anything touches the database; the error names the
// property and the path. exportfile=- (or /dev/stdout) is standard
// output, as no exportfile is.
func NewYCSB(cfg *engine.Config, g *Guard) (*YCSB, error) {
	y := &YCSB{out: cfg.Output}
	if f := cfg.Output.ExportFile; f != "" {
		if err := g.Output("exportfile", f); err != nil {
			return nil, err
		}
		if IsStdout(f) {
			y.out.ExportFile = ""
		}
	}
	if cfg.Output.HDRFiles && cfg.Output.MeasurementType == "hdrhistogram" {
		prefix := cfg.Output.HDRPath
		if err := g.OutputFamily("hdrhistogram.output.path", prefix, ".hdr"); err != nil {
			return nil, err
		}
		phase := engine.PhaseRun
		if cfg.Command == "load" {
			phase = engine.PhaseLoad
		}
		y.hdr = report.NewHDRFiles(prefix, phase, cfg.MeasurementIntvl, time.Now())
		// Each file is written beside its name and renamed when complete.
		y.hdr.Create = func(path string) (io.WriteCloser, error) {
			t, err := newTempFile(path)
			if err != nil {
				return nil, err
			}
			return committer{t}, nil
		}
	}
	return y, nil
}

// committer is a temporary file whose Close puts it under its name.
type committer struct{ t *tempFile }

func (c committer) Write(p []byte) (int, error) { return c.t.w.Write(p) }
func (c committer) Close() error                { return c.t.commit() }
func (c committer) Discard()                    { c.t.discard() }

// Interval writes one interval into the HDR files, if asked for. It
// matches engine.Options.OnInterval.
func (y *YCSB) Interval(ph engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	if y.hdr != nil {
		y.hdr.Interval(ph, names, start, end, set)
	}
}

// Write writes the final report: without exportfile, the exporter's form
// on stdout (YCSB's behaviour); with it, the text report on stdout and the
// exporter's form in the file (written whole, then renamed into place).
// It returns the files written.
func (y *YCSB) Write(stdout io.Writer, results []*engine.PhaseResult, info engine.Info) ([]string, error) {
	var text bytes.Buffer
	report.WriteText(&text, results, info)
	var paths []string
	var err error
	if y.hdr != nil {
		var hdrPaths []string
		hdrPaths, err = y.hdr.Close()
		paths = append(paths, hdrPaths...)
	}
	if y.out.ExportFile == "" {
		if e := report.Export(stdout, text.Bytes(), y.out.Exporter); e != nil && err == nil {
			err = e
		}
		return paths, err
	}
	stdout.Write(text.Bytes())
	var exp bytes.Buffer
	if e := report.Export(&exp, text.Bytes(), y.out.Exporter); e != nil {
		return paths, e
	}
	if e := writeFileAtomic(y.out.ExportFile, func(w io.Writer) error { _, err := w.Write(exp.Bytes()); return err }); e != nil {
		return paths, fmt.Errorf("exportfile %s: %w", y.out.ExportFile, PathCause(e))
	}
	return append(paths, y.out.ExportFile), err
}
