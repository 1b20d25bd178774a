package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/tui/attach"
)

// A run says it will not end by itself when nothing but q or a signal
// ends it: no operation count, no time limit, no search, demo, sweep or
// stop step.
func TestRunsUntilStopped(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args    []string
		endless bool
	}{
		{[]string{"run", "memory", "-p", "operationcount=0"}, true},
		{[]string{"run", "memory", "-p", "workload=stream"}, true},
		{[]string{"run", "memory", "-P", "../../workloads/workloada"}, false},
		{[]string{"run", "memory", "-p", "operationcount=0", "--duration", "5s"}, false},
		{[]string{"run", "memory", "-p", "operationcount=0", "-p", "maxexecutiontime=5"}, false},
		{[]string{"run", "memory", "-p", "operationcount=0", "--sweep", "threads=1,2"}, false},
		{[]string{"run", "memory", "-p", "operationcount=0", "--at", "5s:stop"}, false},
		{[]string{"run", "memory", "--find-max", "READ.p99<10ms"}, false},
		{[]string{"load", "memory", "-p", "operationcount=0"}, false},
		{[]string{"demo", "memory"}, false},
	} {
		o, err := parseRun(c.args[0], c.args[1:], c.args)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		applyModeDefaults(o, false)
		cfg, _, err := engine.NewConfig(o.Command, o.DB, o.Props)
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got := runsUntilStopped(o, cfg); got != c.endless {
			t.Errorf("%s: runs until stopped %v, want %v", strings.Join(c.args, " "), got, c.endless)
		}
	}
}

// When the terminal goes, the line in the log says how long the run had
// run and whether it ends by itself.
func TestLostLine(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	h := &hangup{started: start, now: func() time.Time { return start.Add(62*time.Minute + 3*time.Second) }}
	if got, want := h.lostLine(), "terminal lost 1h02m03s into the run; the run goes on to its end"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
	h.endless = true
	if got := h.lostLine(); !strings.Contains(got, "1h02m03s") || !strings.Contains(got, "until stopped (no operationcount, --duration or maxexecutiontime)") {
		t.Errorf("%q", got)
	}
}

// benchtop attach --list says how long each run has run.
func TestAttachListRunning(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 12, 5, 10, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	writeRunsAt(&b, []attach.RunInfo{{ID: 42, Command: "run", Adapter: "memory", Workload: "workloada", Started: start, State: "detached"}},
		start.Add(3*time.Hour+4*time.Minute+5*time.Second))
	lines := strings.Split(b.String(), "\n")
	if !strings.Contains(lines[0], "RUNNING") || !strings.Contains(lines[1], " 3h04m05s ") {
		t.Errorf("list:\n%s", b.String())
	}
}
