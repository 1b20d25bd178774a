package report

import (
	"fmt"
	"sort"
	"strings"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/rundata/units"
)

// PhaseFailure is what a phase's failed operations come to: one line for
// stderr (counts by kind and the last cause), and whether they fail the
// run (exit status 1): a load with failed inserts (the data set is
// incomplete), a run phase in which no operation succeeded, or one that
// holds an outage.
type PhaseFailure struct {
	Phase engine.Phase
	// Fails: the run's data or operations failed (exit status 1);
	// Reason says why, "" when the failures do not fail the run (they
	// are gated with --threshold 'errors<...').
	Fails  bool
	Reason string
	// Line is the one stderr line: the reason when there is one, the
	// failed operations by operation and kind, the last cause.
	Line string
}

// Failures looks at each phase for failed operations and the verdicts
// they make; phases where nothing failed and nothing is wrong give none.
func Failures(results []*engine.PhaseResult) []PhaseFailure {
	var out []PhaseFailure
	for _, r := range results {
		if f, ok := phaseFailure(r); ok {
			out = append(out, f)
		}
	}
	return out
}

func phaseFailure(r *engine.PhaseResult) (PhaseFailure, bool) {
	set := r.Set
	f := PhaseFailure{Phase: r.Phase}
	counted := false // the reason gave the counts by kind
	switch {
	case r.Phase == engine.PhaseLoad && set.Failed > 0:
		f.Reason = fmt.Sprintf("%s of %s records failed to load", units.Count(set.Failed), units.Count(set.Ops))
		if by := byOpAndKind(r); by != "" {
			f.Reason += " (" + by + ")"
		}
		f.Reason += ": the data set is incomplete"
		if dup := kindCount(r, "duplicate"); dup > 0 {
			f.Reason += " (duplicate keys: the table held records of this range already; drop it, or load another insertstart/insertcount range)"
		}
		counted = true
	case r.Phase == engine.PhaseRun && set.OK() <= 0 && (set.Ops > 0 || set.CutOff > 0):
		f.Reason = "no operation succeeded"
		if set.Ops == 0 {
			f.Reason += fmt.Sprintf(" (%s cut off at the end, none completed)", units.Count(set.CutOff))
		}
	case r.Phase == engine.PhaseRun && len(r.Outages) > 0:
		o := r.Outages[0]
		f.Reason = fmt.Sprintf("outage: no operation succeeded from %s to %s (%d intervals)", clockTenths(o.Start), clockTenths(o.End), o.Intervals)
		if n := len(r.Outages); n > 1 {
			f.Reason += fmt.Sprintf(", and %d more", n-1)
		}
	}
	f.Fails = f.Reason != ""
	if set.Failed == 0 && !f.Fails {
		return f, false
	}
	var parts []string
	if f.Reason != "" {
		parts = append(parts, f.Reason)
	}
	if set.Failed > 0 && !counted {
		counts := fmt.Sprintf("%s of %s operations failed", units.Count(set.Failed), units.Count(set.Ops))
		if by := byOpAndKind(r); by != "" {
			counts += " (" + by + ")"
		}
		parts = append(parts, counts)
	}
	if kind, cause := lastCause(r); cause != "" {
		parts = append(parts, "last "+kind+": "+MaskCause(cause))
	}
	f.Line = string(r.Phase) + " phase: " + strings.Join(parts, "; ")
	return f, true
}

// byOpAndKind lists the failed operations by operation type and kind:
// "READ unavailable 63,512, UPDATE unavailable 62,826".
func byOpAndKind(r *engine.PhaseResult) string {
	var parts []string
	for op, m := range r.Set.Errors {
		if op >= len(r.OpNames) {
			continue
		}
		kinds := make([]string, 0, len(m))
		for k := range m {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			parts = append(parts, fmt.Sprintf("%s %s %s", r.OpNames[op], k, units.Count(m[k])))
		}
	}
	return strings.Join(parts, ", ")
}

// kindCount is how many operations of the phase failed with kind.
func kindCount(r *engine.PhaseResult, kind string) int64 {
	var n int64
	for _, m := range r.Set.Errors {
		n += m[kind]
	}
	return n
}

// lastCause is a cause of the most frequent error kind (the latest
// message kept for it), "" when there is none.
func lastCause(r *engine.PhaseResult) (kind, cause string) {
	var best int64
	for op, m := range r.Set.Errors {
		for k, n := range m {
			if c := r.Set.Causes[op][k]; c != "" && (n > best || (n == best && k < kind)) {
				best, kind, cause = n, k, c
			}
		}
	}
	return kind, cause
}

// NotFound counts the run phase's reads and those that came back
// NOT_FOUND; Mostly is true when at least 99 % of at least 100 reads did:
// the data was likely never loaded.
func NotFound(results []*engine.PhaseResult) (reads, notFound int64, mostly bool) {
	if len(results) == 0 {
		return 0, 0, false
	}
	r := results[len(results)-1]
	if r.Phase != engine.PhaseRun {
		return 0, 0, false
	}
	for op, name := range r.OpNames {
		if name != "READ" || op >= len(r.Set.Errors) {
			continue
		}
		if h := r.Set.H[measure.Slot(op, measure.OK)]; h != nil {
			reads += h.TotalCount()
		}
		for k, n := range r.Set.Errors[op] {
			reads += n
			if k == "not_found" {
				notFound += n
			}
		}
	}
	return reads, notFound, reads >= 100 && float64(notFound) >= 0.99*float64(reads)
}
