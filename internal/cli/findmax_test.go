package cli

import (
	"bytes"
	"strings"
	"testing"
)

// --find-max's bad input: one line naming the flag, exit status 2,
// before anything is opened.
func TestFindMaxRefused(t *testing.T) {
	t.Parallel()
	fm := []string{"run", "memory", "--find-max", "p99<10ms"}
	with := func(extra ...string) []string { return append(append([]string(nil), fm...), extra...) }
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"bad expression", []string{"run", "memory", "--find-max", "p99<<10ms"}, []string{"--find-max", "p99<<10ms"}},
		{"-target", with("-target", "500"), []string{"-target", "500", "--find-max", "sets the target itself"}},
		{"-p target", with("-p", "target=500"), []string{"target=", "500", "sets the target itself"}},
		{"--sweep", with("--sweep", "target=1,2"), []string{"--sweep", "--find-max"}},
		{"--threshold", with("--threshold", "p99<5ms"), []string{"--threshold", "p99<5ms", "--find-max"}},
		{"--duration", with("--duration", "30s"), []string{"--duration", "--find-max-time"}},
		{"--at target", with("--at", "5s:target=100"), []string{"--at", "5s:target=100", "--find-max"}},
		{"load", []string{"load", "memory", "--find-max", "p99<10ms"}, []string{"--find-max", "benchtop run"}},
		{"measurement op", with("-p", "measurement.interval=op"), []string{"measurement.interval=op", "intended start"}},
		{"time too short", with("--find-max-time", "1s"), []string{"--find-max-time", "1s", "at least 10s"}},
		{"bad precision", with("--find-max-precision", "90%"), []string{"--find-max-precision", "90%", "0.1%"}},
		{"bad floor", with("--find-max-min", "-3"), []string{"--find-max-min", "-3"}},
		{"bad over", with("--find-max-over", "partitions=1,2"), []string{"--find-max-over", "threads=N1,N2"}},
		{"over with -threads", with("--find-max-over", "threads=4,8", "-threads", "4"), []string{"-threads", "--find-max-over"}},
		{"flag without --find-max", []string{"run", "memory", "--find-max-time", "1m"}, []string{"--find-max-time", "without --find-max"}},
		// An operation the run cannot produce: refused at once, as
		// --threshold refuses it, not searched for until the budget.
		{"typo REED", []string{"run", "memory", "--find-max", "REED.p99<10ms", "--find-max-time", "10s"},
			[]string{`--find-max "REED.p99<10ms": this run produces no REED operation (it produces READ, UPDATE; TOTAL for all)`}},
		{"UPDATE on workload C", []string{"run", "memory", "-P", "../../workloads/workloadc", "--find-max", "UPDATE.p99<10ms", "--find-max-time", "10s"},
			[]string{`--find-max "UPDATE.p99<10ms": this run produces no UPDATE operation (it produces READ; TOTAL for all)`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(c.args, &out, &errb); code != exitUsage {
				t.Fatalf("exit status %d, want %d; stderr: %s", code, exitUsage, errb.String())
			}
			msg := errb.String()
			if n := strings.Count(msg, "\n"); n != 1 {
				t.Errorf("%d lines on stderr: %q", n, msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("stderr %q does not say %q", msg, w)
				}
			}
		})
	}
}

// A database on which every operation fails: the search ends after its
// first probe's intervals, not its budget; stderr says there is no rate
// to find, and that the run's failure (1) ranks before find-max's 99.
func TestFindMaxNothingSucceeds(t *testing.T) {
	t.Parallel()
	o := runScenario(t, []string{"run", "sim", "-P", "../../workloads/workloada", "-p", "recordcount=100", "-p", "sim.errors=1",
		"-p", "status.interval=100ms", "-threads", "2", "--find-max", "READ.p99<50ms", "--find-max-time", "10s", "--headless"})
	if o.code != exitFailure {
		t.Fatalf("exit %d, want %d\n%s", o.code, exitFailure, o.stderr)
	}
	for _, want := range []string{
		"find-max probe 1: unlimited, 2 threads: fail (no operation succeeded: ",
		"find-max: no operation succeeded even unlimited: there is no rate to find (exit status 1, before find-max's 99)",
	} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	if strings.Count(o.stderr, "find-max probe ") != 1 {
		t.Errorf("more than the unlimited probe:\n%s", o.stderr)
	}
}
