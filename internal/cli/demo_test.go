package cli

import (
	"bytes"
	"strings"
	"testing"
)

// benchtop demo plays on the model server by default, with the model its
// captions describe; `demo memory` keeps the memory store's scenario; -p
// sizes the model and the steps follow it; the captions reach the screen.
func TestDemoStoreAndScenario(t *testing.T) {
	t.Parallel()
	o, err := parseArgs([]string{"demo"})
	if err != nil {
		t.Fatal(err)
	}
	if o.DB != "sim" || o.Demo == nil || o.Props["sim.capacity"] != "10000" || o.Props["sim.latency"] != "2ms" ||
		o.Props["recordcount"] != "500" || o.Props["sim.load"] != "modelled" {
		t.Fatalf("benchtop demo: db %q, props %v", o.DB, o.Props)
	}
	if !strings.Contains(o.Demo.Steps[0].Caption, "model server of 10,000 ops/s (20 servers × 2 ms)") || len(o.Steps) != 8 {
		t.Errorf("benchtop demo: %+v", o.Demo)
	}
	caps, end := demoCaptions(o)
	if len(caps) != 7 || caps[0].Kind != "start" || caps[3].Kind != "threads" || caps[3].To != "64" ||
		caps[4].Kind != "target" || caps[4].To != "8000" || caps[6].To != "unlimited" || !strings.Contains(end, "10,000 ops/s") {
		t.Errorf("captions %+v, end %q", caps, end)
	}

	o, err = parseArgs([]string{"demo", "memory"})
	if err != nil {
		t.Fatal(err)
	}
	if o.DB != "memory" || o.Demo == nil || o.Demo.Steps[3].N != 64 || o.Props["recordcount"] != "100000" {
		t.Errorf("benchtop demo memory: db %q, demo %+v, recordcount %q", o.DB, o.Demo, o.Props["recordcount"])
	}

	o, err = parseArgs([]string{"demo", "sim", "-p", "sim.capacity=2000", "-p", "sim.latency=4ms", "-p", "recordcount=50"})
	if err != nil {
		t.Fatal(err)
	}
	if p := o.Demo.Plan(); p[2].N != 8 || p[4].Rate != 1600 || o.Props["recordcount"] != "50" {
		t.Errorf("a model of 2,000 ops/s: %v, recordcount %q", p, o.Props["recordcount"])
	}

	o, err = parseArgs([]string{"run", "sim"})
	if err != nil || o.Demo != nil {
		t.Errorf("benchtop run sim: a demo %+v (%v)", o.Demo, err)
	}
	if caps, _ := demoCaptions(o); caps != nil {
		t.Errorf("captions outside the demo: %+v", caps)
	}
}

// A store the demo does not play on, or a model its steps do not fit: one
// line, exit status 2.
func TestDemoBadInput(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"demo", "redis"}, `demo "redis": the demo plays on sim (a model server, the default) or memory (allowed: sim, memory)`},
		{[]string{"demo", "-p", "sim.servers=2"}, "the demo's steps need one of at least 5 servers"},
		{[]string{"demo", "-p", "sim.capacity=100000"}, "at most 20000 ops/s"},
		{[]string{"demo", "-p", "sim.latency=-1"}, "sim.latency"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != exitUsage || len(lines) != 1 || !strings.Contains(lines[0], c.want) || stdout.Len() > 0 {
			t.Errorf("%q: exit %d, stderr %q, want one line with %q and status 2", c.args, code, stderr.String(), c.want)
		}
	}
}
