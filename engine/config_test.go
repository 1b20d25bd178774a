package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
)

// dotransactions decides the phase as YCSB's -load (false) and -t (true)
// do, and says so when it overrides the subcommand.
func TestDoTransactions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		command, value, want, warn string
	}{
		{"run", "false", "load", "dotransactions=false: running the load phase"},
		{"load", "true", "run", "dotransactions=true: running the transactions"},
		{"run", "true", "run", ""},
		{"load", "false", "load", ""},
		{"run", "", "run", ""},
	}
	for _, c := range cases {
		props := map[string]string{"recordcount": "10"}
		if c.value != "" {
			props["dotransactions"] = c.value
		}
		cfg, warns, err := NewConfig(c.command, "fake", props)
		if err != nil {
			t.Fatalf("%s dotransactions=%s: %v", c.command, c.value, err)
		}
		if cfg.Command != c.want {
			t.Errorf("%s dotransactions=%s: Command = %q, want %q", c.command, c.value, cfg.Command, c.want)
		}
		joined := strings.Join(warns, "\n")
		if (c.warn == "") != (joined == "") || !strings.Contains(joined, c.warn) {
			t.Errorf("%s dotransactions=%s: warnings %q, want %q", c.command, c.value, warns, c.warn)
		}
	}
	if _, _, err := NewConfig("run", "fake", map[string]string{"recordcount": "10", "dotransactions": "maybe"}); err == nil ||
		!strings.Contains(err.Error(), "dotransactions") {
		t.Errorf("dotransactions=maybe: err = %v, want one naming the property", err)
	}
}

// A load phase chosen by dotransactions=false runs through the Runner as
// a load, and the run's Info says so.
func TestDoTransactionsFalseLoads(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "run", map[string]string{"recordcount": "300", "dotransactions": "false"})
	db := &fakeDB{}
	r, done, _, _ := startRunner(t, cfg, db)
	res := waitResults(t, done)
	if len(res) != 1 || res[0].Phase != PhaseLoad || db.inserts.Load() != 300 || db.reads.Load() != 0 {
		t.Errorf("phases %d (%v), inserts %d, reads %d; want one load phase of 300 inserts", len(res), res[0].Phase, db.inserts.Load(), db.reads.Load())
	}
	if r.Info().Command != "load" {
		t.Errorf("Info().Command = %q, want load", r.Info().Command)
	}
}

// The YCSB core and client properties benchtop implements draw no
// warning; those it does not draw none either (they are listed), but an
// unknown name does.
func TestCorePropertiesAreRead(t *testing.T) {
	t.Parallel()
	props := map[string]string{"recordcount": "10", "readallfieldsbyname": "true",
		"core_workload_insertion_retry_limit": "3", "core_workload_insertion_retry_interval": "1",
		"fieldlengthdistribution": "constant", "fieldlengthhistogram": "hist.txt", "dotransactions": "true",
		"core_workload_insertion_retry_limt": "1"}
	_, warns, err := NewConfig("run", "fake", props)
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "core_workload_insertion_retry_limt") || !strings.Contains(warns[0], "core_workload_insertion_retry_limit") {
		t.Errorf("warnings = %q, want one for the misspelt name with its close match", warns)
	}
}

// pacing.grid: a duration (a bare number in µs), 0 to 10 ms, none when
// not given; anything else is a ConfigError naming it.
func TestPacingGrid(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{"": DefaultPacingGrid, "0": 0, "50": 50 * time.Microsecond, "1ms": time.Millisecond, "2.5us": 2500} {
		props := map[string]string{"recordcount": "10"}
		if v != "" {
			props["pacing.grid"] = v
		}
		c, _, err := NewConfig("run", "fake", props)
		if err != nil {
			t.Errorf("pacing.grid=%q: %v", v, err)
		} else if c.PacingGrid != want {
			t.Errorf("pacing.grid=%q: %v, want %v", v, c.PacingGrid, want)
		}
	}
	for _, v := range []string{"-1", "11ms", "soon"} {
		_, _, err := NewConfig("run", "fake", map[string]string{"recordcount": "10", "pacing.grid": v})
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != "pacing.grid" {
			t.Errorf("pacing.grid=%q: %v, want a ConfigError on pacing.grid", v, err)
		}
	}
}

// pacing.window: a duration (a bare number in µs), 0 to 10 ms, 200 µs
// when not given; anything else is a ConfigError naming it.
func TestPacingWindow(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]time.Duration{"": 0, "200": 200 * time.Microsecond, "50": 50 * time.Microsecond, "1ms": time.Millisecond} {
		props := map[string]string{"recordcount": "10"}
		if v != "" {
			props["pacing.window"] = v
		}
		c, _, err := NewConfig("run", "fake", props)
		if err != nil {
			t.Errorf("pacing.window=%q: %v", v, err)
		} else if c.PacingWindow != want {
			t.Errorf("pacing.window=%q: %v, want %v", v, c.PacingWindow, want)
		}
	}
	for _, v := range []string{"-1", "11ms", "soon"} {
		_, _, err := NewConfig("run", "fake", map[string]string{"recordcount": "10", "pacing.window": v})
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != "pacing.window" {
			t.Errorf("pacing.window=%q: %v, want a ConfigError on pacing.window", v, err)
		}
	}
}

// arrivals: even (YCSB's schedule) unless poisson is asked for; anything
// else is a ConfigError naming it.
func TestArrivals(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]string{"": "even", "even": "even", "poisson": "poisson"} {
		props := map[string]string{"recordcount": "10"}
		if v != "" {
			props["arrivals"] = v
		}
		c, _, err := NewConfig("run", "fake", props)
		if err != nil || c.Arrivals != want {
			t.Errorf("arrivals=%q: %q, %v; want %q", v, c.Arrivals, err, want)
		}
	}
	_, _, err := NewConfig("run", "fake", map[string]string{"recordcount": "10", "arrivals": "random"})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != "arrivals" {
		t.Errorf("arrivals=random: %v, want a ConfigError on arrivals", err)
	}
}
