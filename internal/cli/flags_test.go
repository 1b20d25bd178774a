package cli

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"benchtop/results/steps"
)

// Bad input: one line on stderr naming the flag or property, the value and
// what is allowed; exit status 2; nothing on stdout; no stack trace.
func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A directory cannot be read as a file, even by root.
	unreadable := filepath.Join(dir, "noread")
	if err := os.Mkdir(unreadable, 0o755); err != nil {
		t.Fatal(err)
	}
	binary := filepath.Join(dir, "random.bin")
	rng := rand.New(rand.NewPCG(3, 4))
	junk := make([]byte, 4096)
	for i := range junk {
		junk[i] = byte(rng.UintN(256))
	}
	if err := os.WriteFile(binary, junk, 0o644); err != nil {
		t.Fatal(err)
	}
	latin1 := filepath.Join(dir, "latin1")
	if err := os.WriteFile(latin1, []byte("recordcount=10\n# caf\xe9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want []string // substrings of the one error line
	}{
		{"--threads= empty", []string{"run", "memory", "--threads="}, []string{"--threads", `""`, "1 to 4096"}},
		{"-threads= empty", []string{"run", "memory", "-threads="}, []string{"-threads", `""`, "1 to 4096"}},
		{"-threads blank", []string{"run", "memory", "-threads", " "}, []string{"-threads", `" "`}},
		{"--target= empty", []string{"run", "memory", "--target="}, []string{"--target", `""`, "ops/s"}},
		{"-target empty", []string{"run", "memory", "-target", ""}, []string{"-target", `""`}},
		{"-P= empty", []string{"run", "memory", "-P="}, []string{"-P", `""`, "property file"}},
		{"-p= empty", []string{"run", "memory", "-p="}, []string{"-p", `""`, "key=value"}},
		{"--json= empty", []string{"run", "memory", "--json="}, []string{"--json", `""`, "file"}},
		{"--timeseries= empty", []string{"run", "memory", "--timeseries="}, []string{"--timeseries", `""`}},
		{"--hdr-log= empty", []string{"run", "memory", "--hdr-log="}, []string{"--hdr-log", `""`}},
		{"--theme= empty", []string{"run", "memory", "--theme="}, []string{"--theme", `""`}},
		{"--at= empty", []string{"run", "memory", "--at="}, []string{"--at", `""`}},
		{"--sweep= empty", []string{"run", "memory", "--sweep="}, []string{"--sweep", `""`}},
		{"--step= empty", []string{"run", "memory", "--sweep", "threads=1,2", "--step="}, []string{"--step", `""`}},
		{"-db= empty", []string{"run", "memory", "-db="}, []string{"-db", `""`}},
		{"-s with a value", []string{"run", "memory", "-s=true"}, []string{"-s", "takes no value"}},
		{"--headless with a value", []string{"run", "memory", "--headless=no"}, []string{"--headless", "takes no value"}},
		{"binary -P file", []string{"run", "memory", "-P", binary}, []string{"-P", "random.bin", "line ", "not a text file"}},
		{"-P not UTF-8", []string{"run", "memory", "-P", latin1}, []string{"-P", "latin1", "line 2", "UTF-8"}},
		{"-P /dev/zero", []string{"run", "memory", "-P", "/dev/zero"}, []string{"-P", "/dev/zero", "line 1", "longer than 1 MiB"}},
		{"json is a directory", []string{"run", "memory", "--json", dir}, []string{"--json", "is a directory"}},
		{"timeseries into missing dir", []string{"run", "memory", "--timeseries", filepath.Join(dir, "no", "x.csv")}, []string{"--timeseries", "no such file"}},
		{"unknown subcommand", []string{"frobnicate"}, []string{"frobnicate", "load, run"}},
		{"unknown adapter", []string{"run", "nosuchdb"}, []string{"nosuchdb", "memory", "mongodb"}},
		{"unknown flag", []string{"run", "memory", "-bogus"}, []string{"-bogus"}},
		{"-p without =", []string{"run", "memory", "-p", "recordcount"}, []string{"-p", "recordcount", "key=value"}},
		{"-p empty key", []string{"run", "memory", "-p", "=5"}, []string{"key=value"}},
		{"-p missing value", []string{"run", "memory", "-p"}, []string{"-p", "needs a value"}},
		{"missing -P file", []string{"run", "memory", "-P", filepath.Join(dir, "nope")}, []string{"-P", "nope", "no such file"}},
		{"unreadable -P file", []string{"run", "memory", "-P", unreadable}, []string{"-P", "noread"}},
		{"threads 0", []string{"run", "memory", "-threads", "0"}, []string{"-threads", "\"0\"", "1 to 4096"}},
		{"threads negative", []string{"run", "memory", "-threads", "-3"}, []string{"-threads", "-3"}},
		{"threads not a number", []string{"run", "memory", "-threads", "many"}, []string{"-threads", "many"}},
		{"threads too many", []string{"run", "memory", "-threads", "5000"}, []string{"-threads", "5000"}},
		{"target negative", []string{"run", "memory", "-target", "-1"}, []string{"-target", "-1"}},
		{"target not a number", []string{"run", "memory", "-target", "fast"}, []string{"-target", "fast"}},
		{"recordcount not a number", []string{"run", "memory", "-p", "recordcount=lots"}, []string{"recordcount", "lots", "whole number"}},
		{"recordcount negative", []string{"run", "memory", "-p", "recordcount=-5"}, []string{"recordcount", "-5"}},
		{"operationcount negative", []string{"run", "memory", "-p", "operationcount=-1"}, []string{"operationcount", "-1"}},
		{"proportions sum to 0", []string{"run", "memory", "-p", "readproportion=0", "-p", "updateproportion=0"}, []string{"proportion", "more than 0"}},
		{"negative proportion", []string{"run", "memory", "-p", "readproportion=-0.5"}, []string{"readproportion", "-0.5"}},
		{"unknown distribution", []string{"run", "memory", "-p", "requestdistribution=gaussian"}, []string{"requestdistribution", "gaussian", "zipfian"}},
		{"unknown field length distribution", []string{"run", "memory", "-p", "fieldlengthdistribution=normal"}, []string{"fieldlengthdistribution", "normal"}},
		{"unknown insertorder", []string{"run", "memory", "-p", "insertorder=random"}, []string{"insertorder", "random", "hashed"}},
		{"bad boolean", []string{"run", "memory", "-p", "readallfields=maybe"}, []string{"readallfields", "maybe", "true or false"}},
		{"status interval too short", []string{"run", "memory", "-p", "status.interval=0.01"}, []string{"status.interval", "0.01"}},
		{"status interval too long", []string{"run", "memory", "-p", "status.interval=60"}, []string{"status.interval", "60"}},
		{"bad measurement interval", []string{"run", "memory", "-p", "measurement.interval=sometimes"}, []string{"measurement.interval", "sometimes", "both"}},
		{"bad percentiles", []string{"run", "memory", "-p", "hdrhistogram.percentiles=50,abc"}, []string{"hdrhistogram.percentiles"}},
		{"partitions 0", []string{"run", "memory", "-p", "partitions=0"}, []string{"partitions", "\"0\""}},
		{"unknown workload class", []string{"run", "memory", "-p", "workload=site.ycsb.workloads.TimeSeriesWorkload"}, []string{"workload", "TimeSeriesWorkload"}},
		{"minscanlength above max", []string{"run", "memory", "-p", "minscanlength=10", "-p", "maxscanlength=5"}, []string{"minscanlength", "10"}},
		{"maxexecutiontime garbage", []string{"run", "memory", "-p", "maxexecutiontime=soon"}, []string{"maxexecutiontime", "soon"}},
		{"--at unknown key", []string{"run", "memory", "--at", "5s:colour=red"}, []string{"--at", "colour"}},
		{"--at bad offset", []string{"run", "memory", "--at", "soon:threads=4"}, []string{"--at", "soon", "offset"}},
		{"--at no colon", []string{"run", "memory", "--at", "threads=4"}, []string{"--at", "OFFSET:key=value"}},
		{"--at threads 0", []string{"run", "memory", "--at", "5s:threads=0"}, []string{"--at", "threads", "\"0\""}},
		{"--at pause with value", []string{"run", "memory", "--at", "5s:pause=yes"}, []string{"--at", "pause takes no value"}},
		{"--sweep unknown key", []string{"run", "memory", "--sweep", "colour=1,2"}, []string{"--sweep", "colour"}},
		{"--sweep bad value", []string{"run", "memory", "--sweep", "threads=1,x"}, []string{"--sweep", "\"x\""}},
		{"--step without sweep", []string{"run", "memory", "--step", "5s"}, []string{"--step", "--sweep"}},
		{"--step too short", []string{"run", "memory", "--sweep", "threads=1,2", "--step", "1ms"}, []string{"--step", "1ms"}},
		{"unknown theme", []string{"run", "memory", "--theme", "neon"}, []string{"--theme", "neon", "dark"}},
		{"stray argument", []string{"run", "memory", "extra"}, []string{"extra"}},
		{"json into missing dir", []string{"run", "memory", "--json", filepath.Join(dir, "no", "such", "x.json")}, []string{"--json"}},
		{"memory bad partitions property type", []string{"run", "memory", "-p", "partitions=two"}, []string{"partitions", "two"}},
		{"dataintegrity with uniform lengths", []string{"run", "memory", "-p", "dataintegrity=true", "-p", "fieldlengthdistribution=uniform"}, []string{"fieldlengthdistribution", "constant"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, &out, &errb)
			if code != 2 {
				t.Fatalf("exit status %d, want 2; stderr: %s", code, errb.String())
			}
			msg := errb.String()
			lines := strings.Split(strings.TrimRight(msg, "\n"), "\n")
			if len(lines) != 1 {
				t.Errorf("want one line on stderr, got %d:\n%s", len(lines), msg)
			}
			if strings.Contains(msg, "goroutine") || strings.Contains(msg, "panic") {
				t.Errorf("stack trace on stderr:\n%s", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q does not mention %q", msg, w)
				}
			}
			if out.Len() != 0 {
				t.Errorf("stdout not empty: %q", out.String())
			}
		})
	}
}

func TestUnknownPropertyWarns(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run([]string{"run", "memory", "--headless", "-p", "recordcount=100", "-p", "operationcount=100", "-p", "colour=blue"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), `unknown property "colour"`) {
		t.Errorf("no warning for an unknown property: %q", errb.String())
	}
}

func TestPropertyPrecedence(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	b := filepath.Join(dir, "b")
	os.WriteFile(a, []byte("recordcount=10\nfieldcount=3\n"), 0o644)
	os.WriteFile(b, []byte("recordcount=20\n"), 0o644)
	// -p beats -P whatever the order; later -P beats earlier -P; later -p wins.
	o, err := parseArgs([]string{"run", "memory", "-p", "fieldcount=7", "-P", a, "-P", b, "-p", "operationcount=1", "-p", "operationcount=2", "-threads", "3", "-target", "50"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"recordcount": "20", "fieldcount": "7", "operationcount": "2", "threadcount": "3", "target": "50"}
	for k, v := range want {
		if o.Props[k] != v {
			t.Errorf("%s = %q, want %q", k, o.Props[k], v)
		}
	}
	if o.Workload != "b" {
		t.Errorf("workload label %q, want b", o.Workload)
	}
	// GNU style works too.
	o, err = parseArgs([]string{"run", "memory", "--threads=5", "--target", "7"})
	if err != nil || o.Props["threadcount"] != "5" || o.Props["target"] != "7" {
		t.Errorf("GNU-style flags: %v %v", err, o.Props)
	}
}

func TestSweepBuildsSteps(t *testing.T) {
	t.Parallel()
	o, err := parseArgs([]string{"run", "memory", "--sweep", "threads=1,2,4", "--step", "2s", "-p", "status.interval=200ms"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Steps) != 4 || o.Steps[2].N != 4 || o.Steps[2].At.Seconds() != 4 || o.Steps[3].Action != steps.Stop || o.Steps[3].At.Seconds() != 6 ||
		len(o.Notes) != 0 {
		t.Errorf("steps = %+v, notes %q", o.Steps, o.Notes)
	}
	// At status.interval 1s a segment needs 5 s to hold 3 steady
	// intervals: a 3 s step is lengthened, and said.
	o, err = parseArgs([]string{"run", "memory", "--sweep", "threads=1,2", "--step", "3s"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Steps[1].At != 5*time.Second || len(o.Notes) != 1 || !strings.Contains(o.Notes[0], "each value runs 5s") {
		t.Errorf("steps = %+v, notes %q", o.Steps, o.Notes)
	}
}

func TestYCSBWorkloadClassNames(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload"} {
		var out, errb bytes.Buffer
		code := run([]string{"run", "memory", "--headless", "-p", "workload=" + w, "-p", "recordcount=50", "-p", "operationcount=50"}, &out, &errb)
		if code != 0 || !strings.Contains(out.String(), "[OVERALL], RunTime(ms)") {
			t.Errorf("workload=%s: exit %d, stderr %s", w, code, errb.String())
		}
	}
}
