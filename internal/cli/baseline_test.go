package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// baselineFiles runs a short headless run that writes the JSON summary
// and the CSV time series a later run takes as --baseline. Its runs are
// paced (-target): flat out they took the two cores for their 2 s.
func baselineFiles(t *testing.T, dir string) (jsonPath, csvPath string) {
	t.Helper()
	jsonPath, csvPath = filepath.Join(dir, "base.json"), filepath.Join(dir, "base.csv")
	var out, errb bytes.Buffer
	code := run([]string{"run", "memory", "-p", "recordcount=1000", "-p", "operationcount=0", "-p", "maxexecutiontime=2",
		"-threads", "1", "-target", "2000", "--at", "1s:threads=2", "--headless", "--json", jsonPath, "--timeseries", csvPath}, &out, &errb)
	if code != 0 {
		t.Fatalf("baseline run exited %d: %s", code, errb.String())
	}
	return jsonPath, csvPath
}

// Bad --baseline files: one line naming the flag and the file, exit 2,
// before anything runs.
func TestBaselineBadInput(t *testing.T) {
	if testing.Short() {
		t.Skip("runs of 2 s (go test -short skips it)")
	}
	t.Parallel()
	dir := t.TempDir()
	base, csv := baselineFiles(t, dir)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	notOurs := write("notes.txt", "hello\n")
	otherJSON := write("other.json", `{"a": 1}`)
	empty := write("empty.json", `{"tool": "benchtop", "start": "2026-01-01T00:00:00Z"}`)
	badCSV := write("bad.csv", "time,elapsed_s,ops_per_sec,cpu_percent\nx,one,2,3\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing file", []string{"--baseline", filepath.Join(dir, "nope.json")}, []string{"--baseline", "nope.json", "no such file"}},
		{"a directory", []string{"--baseline", dir}, []string{"--baseline", "is a directory"}},
		{"not benchtop's", []string{"--baseline", notOurs}, []string{"--baseline", "notes.txt", "not a file benchtop wrote"}},
		{"another tool's JSON", []string{"--baseline", otherJSON}, []string{"--baseline", "other.json", `no "tool": "benchtop"`}},
		{"a run that measured nothing", []string{"--baseline", empty}, []string{"--baseline", "empty.json", "measured nothing"}},
		{"a CSV without its JSON", []string{"--baseline", csv}, []string{"--baseline", "base.csv", "CSV time series", "JSON summary too"}},
		{"two JSON summaries", []string{"--baseline", base, "--baseline", base}, []string{"--baseline", "a second JSON summary", "base.json"}},
		{"a broken CSV", []string{"--baseline", base, "--baseline", badCSV}, []string{"--baseline", "bad.csv", "not a number"}},
		{"no value", []string{"--baseline"}, []string{"--baseline", "needs a value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			args := append([]string{"run", "memory", "--headless", "--json", filepath.Join(dir, "should-not-exist.json")}, tc.args...)
			code := run(args, &out, &errb)
			if code != 2 {
				t.Fatalf("exit status %d, want 2; stderr: %s", code, errb.String())
			}
			msg := errb.String()
			if n := strings.Count(strings.TrimRight(msg, "\n"), "\n"); n != 0 {
				t.Errorf("want one line on stderr, got %d:\n%s", n+1, msg)
			}
			for _, w := range tc.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q does not mention %q", msg, w)
				}
			}
			if out.Len() != 0 {
				t.Errorf("stdout not empty: %q", out.String())
			}
			if _, err := os.Stat(filepath.Join(dir, "should-not-exist.json")); err == nil {
				t.Error("the run started: its JSON summary was written")
			}
		})
	}
}

// A run with --baseline: its HTML report is the comparison, its JSON names
// the baseline, and the text report ends with the "# baseline:" line.
func TestBaselineInTheReports(t *testing.T) {
	if testing.Short() {
		t.Skip("two runs of 2 s (go test -short skips it)")
	}
	t.Parallel()
	dir := t.TempDir()
	base, csv := baselineFiles(t, dir)
	p := func(name string) string { return filepath.Join(dir, name) }
	var out, errb bytes.Buffer
	code := run([]string{"run", "memory", "-p", "recordcount=1000", "-p", "operationcount=0", "-p", "maxexecutiontime=2",
		"-threads", "1", "-target", "2000", "--at", "1s:threads=2", "--headless", "--baseline", base, "--baseline", csv,
		"--json", p("run.json"), "--html", p("run.html")}, &out, &errb)
	if code != 0 {
		t.Fatalf("run exited %d: %s", code, errb.String())
	}

	page, err := os.ReadFile(p("run.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"What changed", "baseline: base.json", "run: run.json", `id="chart-compare-throughput"`, "Δ ops/s", "Dashed: the baseline"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("the --html page lacks the comparison's %q", want)
		}
	}
	// The same page as `benchtop report --compare` makes from the files,
	// but for the live run's own series (recorded, not re-read): compare
	// the sections, not the bytes.
	var rOut, rErr bytes.Buffer
	if code := runReport([]string{"--compare", base, p("run.json"), "--timeseries", csv, "-o", p("later.html")}, &rOut, &rErr); code != 0 {
		t.Fatalf("report --compare exited %d: %s", code, rErr.String())
	}
	later, _ := os.ReadFile(p("later.html"))
	for _, id := range []string{`id="chart-compare-throughput"`, `id="segments"`, `id="operations"`} {
		if bytes.Contains(later, []byte(id)) != bytes.Contains(page, []byte(id)) {
			t.Errorf("section %s: in report --compare %v, in --html %v", id, bytes.Contains(later, []byte(id)), bytes.Contains(page, []byte(id)))
		}
	}

	var doc struct {
		Baseline *struct {
			JSON       string  `json:"json"`
			TimeSeries string  `json:"timeseries"`
			Throughput float64 `json:"throughput_ops_per_sec"`
		} `json:"baseline"`
	}
	var baseDoc struct {
		Throughput float64 `json:"throughput_ops_per_sec"`
	}
	js, _ := os.ReadFile(p("run.json"))
	bs, _ := os.ReadFile(base)
	if err := json.Unmarshal(js, &doc); err != nil || json.Unmarshal(bs, &baseDoc) != nil {
		t.Fatalf("JSON: %v", err)
	}
	if doc.Baseline == nil || doc.Baseline.JSON != base || doc.Baseline.TimeSeries != csv || doc.Baseline.Throughput != baseDoc.Throughput {
		t.Errorf("the JSON's baseline member = %+v, want %s, %s, %v ops/s", doc.Baseline, base, csv, baseDoc.Throughput)
	}

	var line string
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.HasPrefix(l, "# baseline: ") {
			line = l
		}
	}
	if line == "" {
		t.Fatalf("no '# baseline:' line in the text report:\n%s", out.String())
	}
	for _, want := range []string{"base.json", "throughput ", " ops/s (", "p99 READ ", "p99 UPDATE ", " %)"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q lacks %q", line, want)
		}
	}
}

// Without --baseline nothing changes: no member, no line.
func TestNoBaselineNoTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	jp := filepath.Join(dir, "r.json")
	if code := run([]string{"run", "memory", "-p", "recordcount=100", "-p", "operationcount=2000", "--headless", "--json", jp}, &out, &errb); code != 0 {
		t.Fatalf("run exited %d: %s", code, errb.String())
	}
	js, _ := os.ReadFile(jp)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	if _, ok := m["baseline"]; ok {
		t.Error("a JSON summary without --baseline has a baseline member")
	}
	if strings.Contains(out.String(), "# baseline:") {
		t.Error("a text report without --baseline has a baseline line")
	}
}
