package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestDurationFlag(t *testing.T) {
	t.Parallel()
	o, err := parseArgs([]string{"run", "memory", "-p", "operationcount=5", "-p", "maxexecutiontime=3", "--duration", "1m30s"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Props["operationcount"] != "0" || o.Props["maxexecutiontime"] != "90" {
		t.Errorf("--duration 1m30s: operationcount=%q maxexecutiontime=%q, want 0 and 90", o.Props["operationcount"], o.Props["maxexecutiontime"])
	}
	if _, err := parseArgs([]string{"run", "memory", "--duration", "soon"}); err == nil || !strings.Contains(err.Error(), "--duration") {
		t.Errorf("--duration soon: %v", err)
	}
}

func TestRunFlagsRefusedInOneLine(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run", "memory", "--threshold", "READ.p99"},
		{"run", "memory", "--threshold", "READ.p99<soon"},
		{"run", "memory", "--duration", "-5s"},
		{"run", "memory", "-p", "measurementtype=raw"},
		{"run", "memory", "-p", "exporter=site.ycsb.measurements.exporter.CSVExporter"},
		{"run", "memory", "-p", "exportfile=" + filepath.Join(t.TempDir(), "no", "such", "dir", "x.json")},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if lines := strings.Count(stderr.String(), "\n"); lines != 1 || stdout.Len() > 0 {
			t.Errorf("%v: want one line on stderr and nothing on stdout, got %q / %q", args, stderr.String(), stdout.String())
		}
	}
}

func TestMaskArgs(t *testing.T) {
	t.Parallel()
	got := strings.Join(maskArgs([]string{"run", "mongodb", "-p", "mongodb.url=mongodb://u:hunter2@h/db", "-p=redis.password=hunter2",
		"--token", "hunter2", "--agent-token=hunter2", "-p", "recordcount=10"}), " ")
	if strings.Contains(got, "hunter2") {
		t.Errorf("a secret is left: %s", got)
	}
	if !strings.Contains(got, "recordcount=10") || !strings.Contains(got, "mongodb://u:") {
		t.Errorf("masked too much: %s", got)
	}
}

func TestVersionFlag(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--version"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if out := stdout.String(); !strings.HasPrefix(out, "benchtop ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("--version: %q", out)
	}
}

// shortRun is a run on the memory store that ends by itself quickly.
func shortRun(extra ...string) []string {
	return append([]string{"run", "memory", "-p", "recordcount=100", "-p", "operationcount=2000", "--headless"}, extra...)
}

func TestThresholdsGateTheExitStatus(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		threshold string
		code      int
	}{{"ops>1e12", 99}, {"ops>1", 0}, {"READ.p99<1h", 0}, {"Intended-READ.p99<1h", 99}, {"errors<0.1%", 0}} {
		var stdout, stderr bytes.Buffer
		code := run(shortRun("--threshold", c.threshold), &stdout, &stderr)
		if code != c.code {
			t.Errorf("--threshold %s: exit %d, want %d (stderr %q)", c.threshold, code, c.code, stderr.String())
		}
		if !strings.Contains(stdout.String(), "# Thresholds: ") {
			t.Errorf("--threshold %s: no verdict table in the report", c.threshold)
		}
	}
	// An operation the workload cannot produce is refused before the run.
	for _, th := range []string{"REED.p99<10ms", "SCAN.p99<1h"} {
		var stdout, stderr bytes.Buffer
		if code := run(shortRun("--threshold", th), &stdout, &stderr); code != 2 || stdout.Len() > 0 ||
			strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "it produces READ, UPDATE") {
			t.Errorf("--threshold %s: exit %d, stdout %d bytes, stderr %q; want 2 and one line", th, code, stdout.Len(), stderr.String())
		}
	}
}

func TestExportFileAndJSONSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, sum := filepath.Join(dir, "out.json"), filepath.Join(dir, "summary.json")
	var stdout, stderr bytes.Buffer
	code := run(shortRun("-target", "50000", "--json", sum, "--threshold", "ops>1",
		"-p", "exportfile="+out, "-p", "exporter=site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter"), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var arr []struct {
		Metric, Measurement string
		Value               any
	}
	b, err := os.ReadFile(out)
	if err != nil || json.Unmarshal(b, &arr) != nil {
		t.Fatalf("exportfile: %v %q", err, b)
	}
	found := false
	for _, m := range arr {
		found = found || m.Metric == "OVERALL" && m.Measurement == "RunTime(ms)"
	}
	if !found {
		t.Errorf("exportfile has no [OVERALL], RunTime(ms): %s", b)
	}
	if !strings.Contains(stdout.String(), "[OVERALL], RunTime(ms), ") {
		t.Errorf("with exportfile, stdout still has the text report")
	}
	var s struct {
		Target      float64 `json:"target"`
		Description string  `json:"description"`
		Run         struct {
			CommandLine string `json:"command_line"`
			Version     struct{ Go string }
			Host        struct {
				Cores int `json:"cores"`
			}
		} `json:"run"`
		Thresholds []struct{ Pass bool } `json:"thresholds"`
	}
	b, err = os.ReadFile(sum)
	if err != nil || json.Unmarshal(b, &s) != nil {
		t.Fatalf("--json: %v", err)
	}
	if s.Target != 50000 || !strings.Contains(s.Description, "in-process") || !strings.Contains(s.Run.CommandLine, "-target 50000") ||
		s.Run.Version.Go == "" || s.Run.Host.Cores < 1 || len(s.Thresholds) != 1 || !s.Thresholds[0].Pass {
		t.Errorf("JSON summary: %+v", s)
	}
}

func TestJSONExporterOnStdoutAndHDRFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir() + "/"
	var stdout, stderr bytes.Buffer
	code := run(shortRun("-p", "exporter=site.ycsb.measurements.exporter.JSONMeasurementsExporter",
		"-p", "hdrhistogram.fileoutput=true", "-p", "hdrhistogram.output.path="+dir), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	out := stdout.String()
	// YCSB's lines only: the [LOAD] lines benchtop adds are comments.
	if !strings.HasPrefix(out, "{\n  \"metric\" : \"OVERALL\",") || strings.Contains(out, "#") || strings.Contains(out, "LOAD") {
		t.Errorf("stdout is not the JSON exporter's output alone:\n%s", out)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	n := 0
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("object %d: %v", n, err)
		}
		n++
	}
	if n < 10 {
		t.Errorf("%d objects", n)
	}
	b, err := os.ReadFile(dir + "READ.hdr")
	if err != nil || !strings.HasPrefix(string(b), "#[Logging for: READ]\n") || !strings.Contains(string(b), "\"StartTimestamp\"") {
		t.Errorf("READ.hdr: %v\n%s", err, b)
	}
	if _, err := os.Stat(dir + "INSERT.hdr"); err == nil {
		t.Error("the load phase was logged in a run's HDR files")
	}
}
