package cli

// The exit statuses, one table for every command (docs/exit-status.md
// says the same to users), and their precedence when several apply.
// SIGHUP stops no run (hangup.go): the run ends with its own status;
// other commands take it as SIGTERM (129 when they say so).
const (
	exitOK = 0
	// exitFailure: the run's data or operations failed (a load with
	// failed inserts, a run phase in which nothing succeeded or that
	// holds an outage, a data-integrity failure, a workload's closing
	// check, a failed verdict of benchtop verdict), an agent unreachable
	// or refusing the run, an output that could not be written.
	exitFailure = 1
	// exitUsage: bad input, before anything touched the database; one
	// line says which flag or key, which value, what is allowed.
	exitUsage = 2
	// exitIncomplete: a fleet run lost an agent; the figures cover the
	// agents that stayed.
	exitIncomplete = 3
	// exitUntrusted: find-max's answer cannot be trusted (client
	// saturated, threads at the limit, errors, bracket not closed).
	exitUntrusted = 4
	// exitThresholds: a run crossed a --threshold (k6's convention);
	// find-max: no rate down to the floor meets the conditions.
	exitThresholds = 99
	// A signal that stopped the run gives 128 + its number: 130 for
	// SIGINT, 131 for SIGQUIT, 143 for SIGTERM (State.signalStatus).
	exitSignalBase = 128
)

// statusRank orders the statuses when several apply, first wins: 2 (bad
// input stops before anything runs), 1 (the data or operations failed:
// what a CI run must not miss, whatever else happened), 3 (an agent was
// lost), the signals' (the run was stopped), 99 (a threshold crossed), 4
// (find-max's untrusted answer), 0.
func statusRank(code int) int {
	switch {
	case code == exitUsage:
		return 0
	case code == exitFailure:
		return 1
	case code == exitIncomplete:
		return 2
	case code > exitSignalBase:
		return 3
	case code == exitThresholds:
		return 4
	case code == exitUntrusted:
		return 5
	case code == exitOK:
		return 7
	}
	return 6 // a status this table does not know: after the known ones, before 0
}

// exitStatus is the status that wins among codes (exitOK for none).
func exitStatus(codes ...int) int {
	out := exitOK
	for _, c := range codes {
		if statusRank(c) < statusRank(out) {
			out = c
		}
	}
	return out
}
