package cli

// The exit statuses. A signal gives 128 + its number (130 for SIGINT, 143
// for SIGTERM; State.signalStatus), and wins over the others.
const (
	exitOK      = 0
	exitFailure = 1 // an error, a data-integrity mismatch, a workload's or an agent's problem, a failed verdict
	exitUsage   = 2 // bad input: one line says which flag or key, which value, what is allowed
	// exitIncomplete: a fleet run lost an agent; the figures cover the
	// agents that stayed.
	exitIncomplete = 3
	// exitThresholds: a run crossed a --threshold (k6's convention).
	exitThresholds = 99
)
