package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"benchtop/engine"
)

// `benchtop report` on a run's JSON, HDR log and CSV writes the very page
// that --html wrote at the end of that run.
func TestReportReproducesTheHTMLExport(t *testing.T) {
	if testing.Short() {
		t.Skip("runs of seconds (go test -short skips it)")
	}
	t.Parallel()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	var out, errb bytes.Buffer
	// Paced: flat out the run took the two cores for its 2 s.
	code := run([]string{"run", "memory", "-p", "recordcount=2000", "-p", "operationcount=0", "-p", "maxexecutiontime=2",
		"-threads", "2", "-target", "2000", "--at", "1s:threads=3", "--at", "1500ms:mark=half", "--headless",
		"--json", p("r.json"), "--hdr-log", p("r.hlog"), "--timeseries", p("r.csv"), "--html", p("live.html")}, &out, &errb)
	if code != 0 {
		t.Fatalf("run exited %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "wrote "+p("live.html")) {
		t.Errorf("run did not say it wrote the page: %s", errb.String())
	}
	errb.Reset()
	code = runReport([]string{p("r.json"), "--hdr-log", p("r.hlog"), "--timeseries", p("r.csv"), "-o", p("later.html"), "--png", p("png")}, &out, &errb)
	if code != 0 {
		t.Fatalf("report exited %d: %s", code, errb.String())
	}
	live, err1 := os.ReadFile(p("live.html"))
	later, err2 := os.ReadFile(p("later.html"))
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if !bytes.Equal(live, later) {
		t.Errorf("the report from the files (%d bytes) differs from --html's (%d bytes)", len(later), len(live))
	}
	for _, want := range []string{`id="segments"`, `id="chart-throughput"`, "threads 2→3", "half", `id="limits"`} {
		if !bytes.Contains(live, []byte(want)) {
			t.Errorf("page lacks %q", want)
		}
	}
	if pngs, _ := filepath.Glob(p("png/*.png")); len(pngs) < 4 {
		t.Errorf("--png wrote %d charts", len(pngs))
	}

	// Two runs side by side.
	errb.Reset()
	if code := runReport([]string{"--compare", p("r.json"), p("r.json"), "--hdr-log", p("r.hlog"), "--hdr-log", p("r.hlog"), "-o", p("cmp.html")}, &out, &errb); code != 0 {
		t.Fatalf("report --compare exited %d: %s", code, errb.String())
	}
	cmp, _ := os.ReadFile(p("cmp.html"))
	for _, want := range []string{"What changed", "Δ ops/s", "baseline: r.json", `id="chart-compare-throughput"`} {
		if !bytes.Contains(cmp, []byte(want)) {
			t.Errorf("comparison lacks %q", want)
		}
	}
}

func TestReportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "x.json")
	os.WriteFile(notJSON, []byte("hello"), 0o644)
	otherJSON := filepath.Join(dir, "o.json")
	os.WriteFile(otherJSON, []byte(`{"a": 1}`), 0o644)
	good := filepath.Join(dir, "g.json")
	os.WriteFile(good, []byte(`{"tool": "benchtop", "start": "2026-01-01T00:00:00Z"}`), 0o644)
	out := filepath.Join(dir, "r.html")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no input", []string{"-o", out}, "expected one JSON summary"},
		{"no -o", []string{good}, "-o FILE is required"},
		{"unknown flag", []string{good, "-o", out, "--bogus"}, `unknown flag "--bogus"`},
		{"missing file", []string{filepath.Join(dir, "nope.json"), "-o", out}, "no such file"},
		{"not JSON", []string{notJSON, "-o", out}, "not a benchtop JSON summary"},
		{"other JSON", []string{otherJSON, "-o", out}, `no "tool": "benchtop"`},
		{"not an HDR log", []string{good, "--hdr-log", notJSON, "-o", out}, "HDR log"},
		{"not a CSV", []string{good, "--timeseries", notJSON, "-o", out}, "no elapsed_s column"},
		{"compare with one", []string{"--compare", good, "-o", out}, "expected two JSON summaries"},
		{"two without compare", []string{good, good, "-o", out}, "--compare"},
		{"too many logs", []string{good, "--hdr-log", "a", "--hdr-log", "b", "-o", out}, "2 --hdr-log files for 1 runs"},
		{"output dir missing", []string{good, "-o", filepath.Join(dir, "no", "r.html")}, "-o"},
		{"-o needs a value", []string{good, "-o"}, "needs a value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(append([]string{"report"}, tc.args...), &stdout, &stderr)
			if code != 2 {
				t.Errorf("exit %d, want 2 (stderr %q)", code, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.want) {
				t.Errorf("stderr = %q, want one line with %q", stderr.String(), tc.want)
			}
		})
	}
	// A JSON summary alone, with nothing else, still makes a page.
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", good, "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("minimal JSON: exit %d: %s", code, stderr.String())
	}
}

func TestCommandLineMasksSecrets(t *testing.T) {
	t.Parallel()
	got := engine.CollectMeta(maskArgs([]string{"run", "mongodb", "-p", "mongodb.url=mongodb://u:hunter2@h:27017/db", "-p", "password=hunter2", "-p", "recordcount=5", "-p", "label=a b", "--agents-url", "http://u:hunter2@h:1/"})).CommandLine
	if strings.Contains(got, "hunter2") {
		t.Errorf("secret in %q", got)
	}
	for _, want := range []string{"benchtop run mongodb", "recordcount=5", "password=****", "'label=a b'"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
}

// report --png writes its charts as every output is written: into a
// folder that is not a link, each chart over a regular file only, never
// over an input or another output; a refusal exits 2 before anything is
// written. A regular old chart is replaced.
func TestReportPNGsAreGuarded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	var out, errb bytes.Buffer
	if code := run([]string{"run", "memory", "-p", "recordcount=100", "-p", "operationcount=0", "-p", "maxexecutiontime=1",
		"-threads", "1", "-target", "2000", "--headless", "--json", p("r.json"), "--timeseries", p("r.csv")}, &out, &errb); code != 0 {
		t.Fatalf("run exited %d: %s", code, errb.String())
	}
	victim := p("victim.txt")
	if err := os.WriteFile(victim, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	report := func(png string, extra ...string) (int, string) {
		errb.Reset()
		os.Remove(p("page.html"))
		args := append([]string{p("r.json"), "--timeseries", p("r.csv"), "-o", p("page.html"), "--png", png}, extra...)
		code := runReport(args, &out, &errb)
		return code, errb.String()
	}
	refused := func(name string, code int, msg, want string) {
		t.Helper()
		if code != exitUsage || !strings.Contains(msg, want) {
			t.Errorf("%s: exit %d, %q: want %d and %q", name, code, msg, exitUsage, want)
		}
		if _, err := os.Stat(p("page.html")); err == nil {
			t.Errorf("%s: the page was written before the refusal", name)
		}
		if b, _ := os.ReadFile(victim); string(b) != "keep me" {
			t.Errorf("%s: the file behind the link now holds %q", name, b)
		}
	}

	// The folder a link to another.
	target := p("target")
	os.Mkdir(target, 0o755)
	os.Symlink(target, p("linkdir"))
	code, msg := report(p("linkdir"))
	refused("folder link", code, msg, "is a symbolic link")
	if ents, _ := os.ReadDir(target); len(ents) != 0 {
		t.Errorf("the link's folder holds %d files", len(ents))
	}

	// A chart's name a link to another file, then a FIFO.
	charts := p("charts")
	os.Mkdir(charts, 0o755)
	chart := filepath.Join(charts, "throughput.png")
	os.Symlink(victim, chart)
	code, msg = report(charts)
	refused("chart link", code, msg, "symbolic link")
	if li, err := os.Lstat(chart); err != nil || li.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	os.Remove(chart)
	if err := syscall.Mkfifo(chart, 0o644); err != nil {
		t.Fatal(err)
	}
	code, msg = report(charts)
	refused("chart FIFO", code, msg, "a FIFO")
	os.Remove(chart)

	// A chart's name the page's, or an input's.
	code, msg = report(charts, "-o", chart)
	if code != exitUsage || !strings.Contains(msg, "-o") {
		t.Errorf("chart = -o: exit %d, %q", code, msg)
	}
	if err := os.Link(p("r.csv"), chart); err != nil {
		t.Fatal(err)
	}
	code, msg = report(charts)
	refused("chart = input", code, msg, "input")
	os.Remove(chart)

	// A regular old chart is replaced by the new one.
	os.WriteFile(chart, []byte("old"), 0o644)
	if code, msg = report(charts); code != exitOK {
		t.Fatalf("exit %d: %s", code, msg)
	}
	if b, _ := os.ReadFile(chart); !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("throughput.png not replaced by a PNG: %q", b[:min(len(b), 8)])
	}
	if tmps, _ := filepath.Glob(filepath.Join(charts, ".*.tmp")); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}
