package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// An agent with --once that no coordinator reaches within --idle-timeout
// exits 1, saying so in one line (the Kubernetes Job's pod fails rather
// than holding its CPUs for good).
func TestAgentIdleTimeoutExits(t *testing.T) {
	t.Parallel()
	var out, errb bytes.Buffer
	code := run([]string{"agent", "--listen", "127.0.0.1:0", "--once", "--idle-timeout", "200ms"}, &out, &errb)
	want := "benchtop agent: no coordinator within --idle-timeout 200ms: exiting (nothing ran)\n"
	if code != exitFailure || !strings.HasSuffix(errb.String(), want) || strings.Count(errb.String(), "no coordinator within") != 1 {
		t.Errorf("agent --once --idle-timeout 200ms, no coordinator: exit %d, stderr %q; want exit %d and the line %q once",
			code, errb.String(), exitFailure, want)
	}
	if !strings.Contains(errb.String(), "exits 1 if no coordinator comes within 200ms") {
		t.Errorf("the listening line does not say when the agent gives up: %q", errb.String())
	}
}

// --idle-timeout: its values, its default with --once, and what it goes
// with; bad input is one line, exit 2.
func TestAgentIdleTimeoutFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want time.Duration
		err  string
	}{
		{args: []string{"--once"}, want: defaultIdleTimeout},
		{args: []string{"--once", "--idle-timeout", "0"}, want: 0},
		{args: []string{"--once", "--idle-timeout=15m"}, want: 15 * time.Minute},
		{args: []string{"--listen", "127.0.0.1:0"}, want: 0}, // no --once: serves until stopped
		{args: []string{"--once", "--idle-timeout", "soon"}, err: `agent: --idle-timeout "soon": expected 0 (wait for ever) or a duration from 100ms to 168h, e.g. 15m`},
		{args: []string{"--once", "--idle-timeout", "-1s"}, err: `--idle-timeout "-1s": expected`},
		{args: []string{"--once", "--idle-timeout", "10ms"}, err: `--idle-timeout "10ms": expected`},
		{args: []string{"--once", "--idle-timeout", "200h"}, err: `--idle-timeout "200h": expected`},
		{args: []string{"--idle-timeout", "5s"}, err: "agent: --idle-timeout goes with --listen and --once"},
	} {
		args := append([]string{"--listen", "127.0.0.1:0"}, c.args...)
		o, err := parseAgentArgs(args)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v: error %v, want one line with %q", args, err, c.err)
			}
			continue
		}
		if err != nil || o.IdleTimeout != c.want {
			t.Errorf("%v: idle timeout %v (%v), want %s", args, o.IdleTimeout, err, c.want)
		}
	}
	for _, args := range [][]string{
		{"agent", "--stdio", "--once", "--idle-timeout", "5s"},
		{"agent", "--listen", "127.0.0.1:0", "--idle-timeout", "x"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "--idle-timeout") {
			t.Errorf("%v: exit %d, %q; want exit 2 and one line naming --idle-timeout", args, code, errb.String())
		}
	}
}
