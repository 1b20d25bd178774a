package cli

// What a run's failed operations come to: the stderr lines that say so,
// and exit status 1 when the run's data or operations failed (the policy:
// exit.go, docs/exit-status.md).

import (
	"strings"

	"benchtop/engine"
	"benchtop/results/report"
	"benchtop/rundata/units"
)

// runFailures tells on stderr, one line per phase, what its failed
// operations come to (why they fail the run when they do, the counts by
// operation and kind, the last cause), a data-integrity failure, and the
// hint to load first when nearly every read was NOT_FOUND. It returns
// exitFailure when the run's data or operations failed, else exitOK
// (other failure rates are gated with --threshold 'errors<...').
func runFailures(st *State, o *options, results []*engine.PhaseResult) int {
	if len(results) == 0 {
		return exitOK
	}
	code := exitOK
	for _, f := range report.Failures(results) {
		st.tell("%s", f.Line)
		if f.Fails {
			code = exitFailure
		}
	}
	last := results[len(results)-1]
	if mis, miss := last.Set.Integrity, last.Set.Missing; mis > 0 || miss > 0 {
		st.tell("data integrity failed: %s mismatches, %s missing (records the run loaded and did not delete that read NOT_FOUND)",
			units.Count(mis), units.Count(miss))
		code = exitFailure
	}
	if reads, nf, ok := report.NotFound(results); ok {
		if load := results[0]; load.Phase == engine.PhaseLoad {
			// This run loaded first (an in-process store): the keys read
			// are not those it loaded.
			st.tell("hint: %s of %s reads were NOT_FOUND, though this run loaded %s records first: check recordcount, insertstart and insertcount",
				units.Count(nf), units.Count(reads), units.Count(load.Set.OK()))
		} else {
			st.tell("hint: %s of %s reads were NOT_FOUND: was the data loaded? %s", units.Count(nf), units.Count(reads), loadCommand(o))
		}
	}
	return code
}

// loadCommand is the load that goes with the run o describes: the same
// adapter, property files and properties (secrets masked) and agents.
func loadCommand(o *options) string {
	out := []string{"benchtop", "load", o.DB}
	args := maskArgs(o.Args)
	keep := func(name string) bool {
		_, fleetFlag := fleetFlagNames[name]
		return name == "P" || name == "p" || name == "threads" || (fleetFlag && name != "token")
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, _, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !keep(name) {
			continue
		}
		if inline || (name == "ssh-copy") {
			out = append(out, shellQuote(a))
			continue
		}
		out = append(out, a)
		if i+1 < len(args) {
			i++
			out = append(out, shellQuote(args[i]))
		}
	}
	return strings.Join(out, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_./:=,@%+-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
