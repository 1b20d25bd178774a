package cli

// benchtop report: a run's saved exports rendered as the HTML page a live
// run's --html writes (internal/output reads them, htmlreport draws).

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"benchtop/htmlreport"
	"benchtop/internal/output"
)

const reportUsage = `usage: benchtop report RUN.json [--hdr-log RUN.hlog] [--timeseries RUN.csv] -o REPORT.html [--png DIR]
       benchtop report --compare BASELINE.json RUN.json [--hdr-log B.hlog --hdr-log R.hlog] [--timeseries B.csv --timeseries R.csv] -o REPORT.html`

// reportArgs is the parsed command line of `benchtop report`.
type reportArgs struct {
	jsons, hlogs, csvs []string
	out, png           string
	compare            bool
	guard              *output.Guard // the inputs and -o; the charts join once known
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
			return nil, errCommandHelp
		default:
			return nil, subFlagError("report", arg, name, reportFlags) // help.go
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
	// The page is a regular file that is none of the inputs (nor the
	// program), or standard output (-o -).
	g := output.NewGuard()
	for _, in := range [][]string{a.jsons, a.hlogs, a.csvs} {
		for _, f := range in {
			g.Input("report's input", f)
		}
	}
	if err := g.Output("-o", a.out); err != nil {
		return nil, usagef("report: %v", err)
	}
	if err := checkPNGDir(a.png); err != nil {
		return nil, usagef("report: --png %s: %v", a.png, err)
	}
	a.guard = g
	return a, nil
}

// checkPNGDir is the rule of --png's folder: a folder (created when
// missing), never a symbolic link to one, so that the charts land where
// the flag says and nowhere a link planted there points.
func checkPNGDir(dir string) error {
	if dir == "" {
		return nil
	}
	if output.IsStdout(dir) {
		return errors.New("is standard output; the charts need a folder")
	}
	li, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return output.PathCause(err)
	case li.Mode()&fs.ModeSymlink != 0:
		return errors.New("is a symbolic link; benchtop never writes through a link (name the folder it points to)")
	case !li.IsDir():
		return errors.New("is not a folder")
	}
	return nil
}

// checkPNGs checks each chart's file in dir as an output: a regular file
// or none, not an input or another output. A folder that does not exist
// yet holds none of them.
func checkPNGs(g *output.Guard, dir string, pngs []htmlreport.PNG) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	for _, p := range pngs {
		if err := g.Output("--png", filepath.Join(dir, p.Name)); err != nil {
			return err
		}
	}
	return nil
}

// writePNGs writes each chart into dir (created if missing), each file
// through a temporary file renamed over a regular file only, and returns
// how many it wrote.
func writePNGs(dir string, pngs []htmlreport.PNG) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, output.PathCause(err)
	}
	for i, p := range pngs {
		path := filepath.Join(dir, p.Name)
		if err := output.WriteFile(path, nil, p.Write); err != nil {
			return i, fmt.Errorf("%s: %v", path, output.PathCause(err))
		}
	}
	return len(pngs), nil
}

// reportCommand is `benchtop report`: it renders saved exports as HTML.
func reportCommand(st *State, args []string) int {
	a, err := parseReportArgs(args)
	if errors.Is(err, errCommandHelp) {
		fmt.Fprintln(st.Stdout, reportUsage)
		return exitOK
	}
	if err != nil {
		return st.fail(exitUsage, err)
	}
	var runs []*htmlreport.Run
	for i, path := range a.jsons {
		run, err := output.ReadRun(path, at(a.hlogs, i), at(a.csvs, i))
		if err != nil {
			st.tell("report: %s", output.OneLine(err))
			return exitUsage
		}
		runs = append(runs, run)
	}
	var rep *htmlreport.Report
	if a.compare {
		rep = htmlreport.Compare(runs[0], runs[1], a.jsons[0], a.jsons[1])
	} else {
		rep = htmlreport.Build(runs[0])
	}
	var pngs []htmlreport.PNG
	if a.png != "" {
		pngs = htmlreport.PNGs(rep)
		if err := checkPNGs(a.guard, a.png, pngs); err != nil {
			return st.fail(exitUsage, usagef("report: %v", err))
		}
	}
	if err := output.WriteFile(a.out, st.Stdout, func(w io.Writer) error { return htmlreport.Render(w, rep) }); err != nil {
		st.tell("report: -o %s: %s", a.out, output.OneLine(output.PathCause(err)))
		return exitFailure
	}
	if !output.IsStdout(a.out) {
		st.tell("wrote %s", a.out)
	}
	if a.png != "" {
		n, err := writePNGs(a.png, pngs)
		if err != nil {
			st.tell("report: --png %s: %s", a.png, output.OneLine(err))
			return exitFailure
		}
		st.tell("wrote %d charts into %s", n, a.png)
	}
	return exitOK
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return ""
}
