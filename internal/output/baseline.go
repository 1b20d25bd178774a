package output

// --baseline FILE: an earlier run shown beside this one. The live screen
// draws its throughput behind the live line (internal/cli's screen.go),
// the --html page is the comparison `benchtop report --compare` makes,
// the JSON summary names it, and the text report ends with a
// "# baseline:" line.

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"benchtop/engine"
	"benchtop/htmlreport"
	"benchtop/internal/infile"
	"benchtop/results/report"
)

// Baseline is the run given with --baseline, read before anything
// starts.
type Baseline struct {
	JSON, CSV, HLog string // the files as given ("" for none)
	Run             *htmlreport.Run
}

// ReadBaseline reads the --baseline files: one JSON summary (--json) and,
// if given, that run's CSV time series (--timeseries) or HDR log
// (--hdr-log) for its throughput per interval. No files: nil. Every
// error names --baseline and the file: it is the user's input.
func ReadBaseline(paths []string) (*Baseline, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	b := &Baseline{}
	data := map[string][]byte{}
	for _, p := range paths {
		raw, err := infile.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("--baseline %s: %v", p, PathCause(err))
		}
		kind := exportKind(raw)
		slot := map[string]*string{"json": &b.JSON, "csv": &b.CSV, "hlog": &b.HLog}[kind]
		if slot == nil {
			return nil, fmt.Errorf("--baseline %s: not a file benchtop wrote (expected the JSON summary of --json, or its --timeseries CSV or --hdr-log)", p)
		}
		if *slot != "" {
			return nil, fmt.Errorf("--baseline %s: a second %s after %s (one baseline run: its JSON summary, and its CSV time series or HDR log if you like)", p, kindName(kind), *slot)
		}
		*slot = p
		data[kind] = raw
	}
	if b.JSON == "" {
		other, kind := b.CSV, "csv"
		if other == "" {
			other, kind = b.HLog, "hlog"
		}
		return nil, fmt.Errorf("--baseline %s: the %s needs its run's JSON summary too (--baseline RUN.json, written by --json)", other, kindName(kind))
	}
	run, err := htmlreport.ReadJSON(bytes.NewReader(data["json"]))
	if err != nil {
		return nil, fmt.Errorf("--baseline %s: %v", b.JSON, OneLine(err))
	}
	if run.Summary.Throughput <= 0 && len(run.Summary.Segments) == 0 {
		return nil, fmt.Errorf("--baseline %s: that run measured nothing (no throughput, no segment): nothing to compare with", b.JSON)
	}
	if b.CSV != "" {
		if err := run.ReadCSV(bytes.NewReader(data["csv"])); err != nil {
			return nil, fmt.Errorf("--baseline %s: %v", b.CSV, OneLine(err))
		}
	}
	if b.HLog != "" {
		if err := run.ReadHDRLog(bytes.NewReader(data["hlog"])); err != nil {
			return nil, fmt.Errorf("--baseline %s: %v", b.HLog, OneLine(err))
		}
	}
	b.Run = run
	return b, nil
}

// exportKind tells which export of benchtop's a file is by its content:
// "json", "csv" or "hlog"; "" when none.
func exportKind(b []byte) string {
	t := bytes.TrimLeft(b, " \t\r\n\ufeff")
	switch {
	case bytes.HasPrefix(t, []byte("{")):
		return "json"
	case bytes.Contains(b, []byte("#[StartTime:")) || bytes.Contains(b, []byte("HISTF")):
		return "hlog"
	}
	first, _, _ := bytes.Cut(t, []byte("\n"))
	if bytes.Contains(first, []byte("elapsed_s")) && bytes.Contains(first, []byte("ops_per_sec")) {
		return "csv"
	}
	return ""
}

func kindName(kind string) string {
	switch kind {
	case "json":
		return "JSON summary"
	case "csv":
		return "CSV time series"
	case "hlog":
		return "HDR log"
	}
	return "file"
}

// Name labels the baseline on screen and in reports: its JSON's file
// name.
func (b *Baseline) Name() string { return filepath.Base(b.JSON) }

// BaselineMember is the JSON summary's "baseline" member: which run this
// one was compared with.
type BaselineMember struct {
	JSON       string    `json:"json"`
	TimeSeries string    `json:"timeseries,omitempty"`
	HDRLog     string    `json:"hdr_log,omitempty"`
	Start      time.Time `json:"start"`
	Command    string    `json:"command_line,omitempty"`
	Throughput float64   `json:"throughput_ops_per_sec"`
}

// member is the "baseline" member; nil without a baseline.
func (b *Baseline) member() *BaselineMember {
	if b == nil {
		return nil
	}
	s := &b.Run.Summary
	m := &BaselineMember{JSON: b.JSON, TimeSeries: b.CSV, HDRLog: b.HLog, Start: s.Start, Throughput: s.Throughput}
	if s.Run != nil {
		m.Command = s.Run.CommandLine
	}
	return m
}

// WriteComment writes the text report's "# baseline:" line: the
// comparison's headline figures (throughput and p99 per operation, the
// baseline's, this run's and the change). Nothing without a baseline.
func (b *Baseline) WriteComment(w io.Writer, results []*engine.PhaseResult, info engine.Info) {
	if b == nil || len(results) == 0 {
		return
	}
	// The comparison `benchtop report --compare` makes from the JSON
	// summaries alone.
	run := &htmlreport.Run{Summary: *report.BuildSummary(results, info)}
	var parts []string
	for _, f := range htmlreport.Compare(b.Run, run, b.JSON, "this run").Headline {
		parts = append(parts, f.Label+" "+f.Note+" ("+f.Value+")")
	}
	fmt.Fprintf(w, "# baseline: %s: %s\n", b.Name(), strings.Join(parts, "; "))
}
