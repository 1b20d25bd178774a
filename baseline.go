package main

// --baseline FILE: an earlier run shown beside this one. The live screen
// draws its throughput behind the live line, the --html report is the
// comparison `benchtop report --compare` makes, the JSON summary names
// it, and the text report ends with a "# baseline:" line.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"benchtop/engine"
	"benchtop/engine/report"
	"benchtop/htmlreport"
	"benchtop/tui/common"
)

// baselineRun is the run given with --baseline, read before anything
// starts.
type baselineRun struct {
	json, csv, hlog string // the files as given
	run             *htmlreport.Run
}

// baselineKind tells which export of benchtop's a file is by its content:
// "json", "csv" or "hlog"; "" when none.
func baselineKind(b []byte) string {
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

// loadBaseline reads the --baseline files: one JSON summary (--json) and,
// if given, that run's CSV time series (--timeseries) or HDR log
// (--hdr-log) for its throughput per interval. Errors are usage errors.
func loadBaseline(paths []string) (*baselineRun, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	b := &baselineRun{}
	data := map[string][]byte{}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			return nil, usagef("--baseline %s: %v", p, unwrapPathErr(err))
		}
		kind := baselineKind(raw)
		slot := map[string]*string{"json": &b.json, "csv": &b.csv, "hlog": &b.hlog}[kind]
		if slot == nil {
			return nil, usagef("--baseline %s: not a file benchtop wrote (expected the JSON summary of --json, or its --timeseries CSV or --hdr-log)", p)
		}
		if *slot != "" {
			return nil, usagef("--baseline %s: a second %s after %s (one baseline run: its JSON summary, and its CSV time series or HDR log if you like)", p, kindName(kind), *slot)
		}
		*slot = p
		data[kind] = raw
	}
	if b.json == "" {
		other, kind := b.csv, "csv"
		if other == "" {
			other, kind = b.hlog, "hlog"
		}
		return nil, usagef("--baseline %s: the %s needs its run's JSON summary too (--baseline RUN.json, written by --json)", other, kindName(kind))
	}
	run, err := htmlreport.ReadJSON(bytes.NewReader(data["json"]))
	if err != nil {
		return nil, usagef("--baseline %s: %v", b.json, oneLine(err))
	}
	if run.Summary.Throughput <= 0 && len(run.Summary.Segments) == 0 {
		return nil, usagef("--baseline %s: that run measured nothing (no throughput, no segment): nothing to compare with", b.json)
	}
	if b.csv != "" {
		if err := run.ReadCSV(bytes.NewReader(data["csv"])); err != nil {
			return nil, usagef("--baseline %s: %v", b.csv, oneLine(err))
		}
	}
	if b.hlog != "" {
		if err := run.ReadHDRLog(bytes.NewReader(data["hlog"])); err != nil {
			return nil, usagef("--baseline %s: %v", b.hlog, oneLine(err))
		}
	}
	b.run = run
	return b, nil
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

// name labels the baseline on screen and in reports: its JSON's file name.
func (b *baselineRun) name() string { return filepath.Base(b.json) }

// screen is the baseline as the live screen draws it; nil without one.
func (b *baselineRun) screen() *common.Baseline {
	if b == nil {
		return nil
	}
	sb := &common.Baseline{Name: b.name(), PerInterval: b.run.PerInterval(), OpsPerSec: b.run.Summary.Throughput, Summary: &b.run.Summary,
		PhaseRates: map[string]float64{}}
	for _, ph := range b.run.Summary.Phases {
		sb.PhaseRates[ph.Phase] = ph.Throughput
	}
	for _, sp := range htmlreport.ThroughputSpans(b.run) {
		sb.Spans = append(sb.Spans, common.BaselineSpan{From: secs(sp.FromS), To: secs(sp.ToS), Rate: sp.Rate})
	}
	return sb
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// baselineJSON is the JSON summary's "baseline" member: which run this one
// was compared with.
type baselineJSON struct {
	JSON       string    `json:"json"`
	TimeSeries string    `json:"timeseries,omitempty"`
	HDRLog     string    `json:"hdr_log,omitempty"`
	Start      time.Time `json:"start"`
	Command    string    `json:"command_line,omitempty"`
	Throughput float64   `json:"throughput_ops_per_sec"`
}

func (b *baselineRun) jsonMember() *baselineJSON {
	s := &b.run.Summary
	j := &baselineJSON{JSON: b.json, TimeSeries: b.csv, HDRLog: b.hlog, Start: s.Start, Throughput: s.Throughput}
	if s.Run != nil {
		j.Command = s.Run.CommandLine
	}
	return j
}

// compare is the comparison of results against the baseline, as `benchtop
// report --compare` makes it from the JSON summaries alone.
func (b *baselineRun) compare(results []*engine.PhaseResult, info engine.Info, runName string) *htmlreport.Report {
	run := &htmlreport.Run{Summary: *report.BuildSummary(results, info)}
	return htmlreport.Compare(b.run, run, b.json, runName)
}

// writeComment writes the text report's "# baseline:" line: the
// comparison's headline figures (throughput and p99 per operation, the
// baseline's, this run's and the change).
func (b *baselineRun) writeComment(w io.Writer, results []*engine.PhaseResult, info engine.Info) {
	if b == nil || len(results) == 0 {
		return
	}
	var parts []string
	for _, f := range b.compare(results, info, "this run").Headline {
		parts = append(parts, f.Label+" "+f.Note+" ("+f.Value+")")
	}
	fmt.Fprintf(w, "# baseline: %s: %s\n", b.name(), strings.Join(parts, "; "))
}
