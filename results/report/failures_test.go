package report

import (
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
)

// phase is a phase of ok successful and failed failed operations of type
// 0 (READ), failed ones of kind, with outages.
func phase(name engine.Phase, ok, failed int64, kind string, outages ...engine.Outage) *engine.PhaseResult {
	set := &measure.Set{Ops: ok + failed, Failed: failed}
	set.RecordN(measure.Slot(0, measure.OK), 1000, ok)
	if failed > 0 {
		set.RecordN(measure.Slot(0, measure.Failed), 1000, failed)
		set.AddError(0, kind, failed)
		set.SetCause(0, kind, "the cause of "+kind)
	}
	op := "READ"
	if name == engine.PhaseLoad {
		op = "INSERT"
	}
	return &engine.PhaseResult{Phase: name, RunTime: time.Second, Set: set, OpNames: []string{op}, Outages: outages}
}

func TestFailures(t *testing.T) {
	t.Parallel()
	outage := engine.Outage{Start: 4 * time.Second, End: 10 * time.Second, Intervals: 6}
	for _, c := range []struct {
		name  string
		res   []*engine.PhaseResult
		fails bool
		line  []string // parts of the one line, "" for none
	}{
		{"clean", []*engine.PhaseResult{phase(engine.PhaseRun, 1000, 0, "")}, false, nil},
		{"a few errors: told, exit 0", []*engine.PhaseResult{phase(engine.PhaseRun, 9990, 10, "timeout")}, false,
			[]string{"run phase: 10 of 10,000 operations failed (READ timeout 10); last timeout: the cause of timeout"}},
		{"nothing succeeded", []*engine.PhaseResult{phase(engine.PhaseRun, 0, 2000, "not_found")}, true,
			[]string{"run phase: no operation succeeded; 2,000 of 2,000 operations failed (READ not_found 2,000)"}},
		{"an outage", []*engine.PhaseResult{phase(engine.PhaseRun, 50000, 60000, "unavailable", outage)}, true,
			[]string{"outage: no operation succeeded from 00:04.0 to 00:10.0 (6 intervals)", "READ unavailable 60,000"}},
		{"duplicates at load", []*engine.PhaseResult{phase(engine.PhaseLoad, 0, 1000, "duplicate")}, true,
			[]string{"load phase: 1,000 of 1,000 records failed to load (INSERT duplicate 1,000): the data set is incomplete (duplicate keys"}},
		{"a load before a clean run", []*engine.PhaseResult{phase(engine.PhaseLoad, 990, 10, "error"), phase(engine.PhaseRun, 5000, 0, "")}, true,
			[]string{"load phase: 10 of 1,000 records failed to load"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := Failures(c.res)
			fails := false
			var lines []string
			for _, f := range fs {
				fails = fails || f.Fails
				lines = append(lines, f.Line)
			}
			if fails != c.fails {
				t.Errorf("fails %v, want %v: %q", fails, c.fails, lines)
			}
			if len(c.line) == 0 && len(lines) > 0 {
				t.Errorf("lines %q, want none", lines)
			}
			for _, part := range c.line {
				if !strings.Contains(strings.Join(lines, "\n"), part) {
					t.Errorf("lines %q lack %q", lines, part)
				}
			}
			if len(lines) > len(c.res) {
				t.Errorf("%d lines for %d phases: %q", len(lines), len(c.res), lines)
			}
		})
	}
}

// At least 99 % of at least 100 reads NOT_FOUND: the data was likely
// never loaded.
func TestNotFound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ok, nf int64
		want   bool
	}{{0, 2000, true}, {10, 990, true}, {11, 989, false}, {0, 99, false}, {1000, 0, false}} {
		if _, _, got := NotFound([]*engine.PhaseResult{phase(engine.PhaseRun, c.ok, c.nf, "not_found")}); got != c.want {
			t.Errorf("%d OK, %d NOT_FOUND: %v, want %v", c.ok, c.nf, got, c.want)
		}
	}
}
