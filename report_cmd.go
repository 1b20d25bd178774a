package main

// `benchtop report` and the --html export of a live run.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"benchtop/engine"
	"benchtop/htmlreport"
)

const reportUsage = `usage: benchtop report RUN.json [--hdr-log RUN.hlog] [--timeseries RUN.csv] -o REPORT.html [--png DIR]
       benchtop report --compare BASELINE.json RUN.json [--hdr-log B.hlog --hdr-log R.hlog] [--timeseries B.csv --timeseries R.csv] -o REPORT.html`

// reportArgs is the parsed command line of `benchtop report`.
type reportArgs struct {
	jsons, hlogs, csvs []string
	out, png           string
	compare            bool
}

func parseReportArgs(args []string) (*reportArgs, error) {
	a := &reportArgs{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.jsons = append(a.jsons, arg)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		need := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", usagef("report: flag -%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var err error
		var v string
		switch name {
		case "o", "output":
			v, err = need()
			a.out = v
		case "hdr-log":
			v, err = need()
			a.hlogs = append(a.hlogs, v)
		case "timeseries":
			v, err = need()
			a.csvs = append(a.csvs, v)
		case "png":
			v, err = need()
			a.png = v
		case "compare":
			a.compare = true
		case "h", "help":
			return nil, usagef("%s", reportUsage)
		default:
			return nil, usagef("report: unknown flag %q (allowed: -o, --hdr-log, --timeseries, --png, --compare)", arg)
		}
		if err != nil {
			return nil, err
		}
	}
	want := 1
	if a.compare {
		want = 2
	}
	switch {
	case len(a.jsons) != want && a.compare:
		return nil, usagef("report --compare: expected two JSON summaries (baseline, then run), got %d", len(a.jsons))
	case len(a.jsons) != want:
		return nil, usagef("report: expected one JSON summary (benchtop run --json FILE), got %d (two runs: --compare)", len(a.jsons))
	case a.out == "":
		return nil, usagef("report: -o FILE is required (the HTML page to write)")
	case len(a.hlogs) > want:
		return nil, usagef("report: %d --hdr-log files for %d runs", len(a.hlogs), want)
	case len(a.csvs) > want:
		return nil, usagef("report: %d --timeseries files for %d runs", len(a.csvs), want)
	}
	if err := checkWritable(a.out); err != nil {
		return nil, usagef("report: -o %s: %v", a.out, err)
	}
	return a, nil
}

// runReport is `benchtop report`: it renders saved exports as HTML.
func runReport(args []string, stdout, stderr io.Writer) int {
	a, err := parseReportArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	var runs []*htmlreport.Run
	for i, path := range a.jsons {
		run, err := readRun(path, at(a.hlogs, i), at(a.csvs, i))
		if err != nil {
			fmt.Fprintf(stderr, "benchtop: report: %v\n", oneLine(err))
			return 2
		}
		runs = append(runs, run)
	}
	var rep *htmlreport.Report
	if a.compare {
		rep = htmlreport.Compare(runs[0], runs[1], a.jsons[0], a.jsons[1])
	} else {
		rep = htmlreport.Build(runs[0])
	}
	if err := htmlreport.WriteFile(a.out, rep); err != nil {
		fmt.Fprintf(stderr, "benchtop: report: %v\n", oneLine(err))
		return 1
	}
	fmt.Fprintf(stderr, "benchtop: wrote %s\n", a.out)
	if a.png != "" {
		paths, err := htmlreport.WritePNGs(rep, a.png)
		if err != nil {
			fmt.Fprintf(stderr, "benchtop: report: --png %s: %v\n", a.png, oneLine(err))
			return 1
		}
		fmt.Fprintf(stderr, "benchtop: wrote %d charts into %s\n", len(paths), a.png)
	}
	return 0
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}

// readRun reads one run's JSON summary and, when given, its HDR log and
// CSV time series.
func readRun(jsonPath, hlogPath, csvPath string) (*htmlreport.Run, error) {
	f, err := os.Open(jsonPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", jsonPath, unwrapPathErr(err))
	}
	run, err := htmlreport.ReadJSON(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", jsonPath, err)
	}
	read := func(path string, into func(io.Reader) error) error {
		if path == "" {
			return nil
		}
		f, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("%s: %v", path, unwrapPathErr(err))
		}
		defer f.Close()
		if err := into(f); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	if err := read(hlogPath, run.ReadHDRLog); err != nil {
		return nil, err
	}
	if err := read(csvPath, run.ReadCSV); err != nil {
		return nil, err
	}
	return run, nil
}

// htmlOutput is the --html export of a live run.
type htmlOutput struct {
	path string
	rec  *htmlreport.Recorder
	// baseline, with --baseline: the report is the comparison with it,
	// this run labelled runName.
	baseline *baselineRun
	runName  string
}

// newHTMLOutput checks the path and starts recording; start is the
// start time of the --hdr-log writer.
func newHTMLOutput(path string, start time.Time) (*htmlOutput, error) {
	if err := checkWritable(path); err != nil {
		return nil, fmt.Errorf("--html %s: %v", path, err)
	}
	return &htmlOutput{path: path, rec: htmlreport.NewRecorder(start)}, nil
}

// render writes the report of results to w.
func (h *htmlOutput) render(w io.Writer, results []*engine.PhaseResult, info engine.Info) error {
	if len(results) == 0 {
		return errors.New("nothing measured yet")
	}
	var rep *htmlreport.Report
	var err error
	if h.baseline != nil {
		rep, err = h.rec.Compare(h.baseline.run, h.baseline.json, h.runName, results, info)
	} else {
		rep, err = h.rec.Report(results, info)
	}
	if err != nil {
		return err
	}
	return htmlreport.Render(w, rep)
}
