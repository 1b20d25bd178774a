package findmax

import (
	"fmt"
	"math"
)

// Thresholds of the trust rules.
const (
	// heldService is how much the database's own latency may grow from
	// the lightest probe's for it to count as "held" at hi.
	heldService = 1.25
)

// reasons are why b's answer cannot be trusted (none: it can). hasErrors
// says the conditions judge errors themselves.
func (b *bracket) reasons(spec Spec, hasErrors bool) []Reason {
	var out []Reason
	add := func(kind, format string, a ...any) {
		out = append(out, Reason{Kind: kind, Text: fmt.Sprintf(format, a...)})
	}
	if b.nothingSucceeded() {
		// Every operation failed even unlimited: the errors and their
		// causes (in the run's report) say why; a busy client or a
		// loopback server makes no operation fail.
		return nil
	}
	lo, hi := b.lo, b.hi
	// The client: saturated at the answer or at the rate that failed.
	for _, p := range []*probe{lo, hi} {
		if p != nil && p.ClientSaturated && !hasKind(out, ReasonClient) {
			add(ReasonClient, "the client saturated at %s (%s): the limit may be the client's, not the database's", probeRate(p), p.ClientNote)
		}
	}
	// The threads: seen at once by the first probes, or tested by the
	// deciding failure asked again with twice the threads; unless the
	// host's wake-up failed every paced probe (below): the unlimited
	// probe passing then says nothing of them.
	u := b.unlimited
	wakeup := u != nil && u.Outcome == Pass && lo == nil && hi != nil && hi.paced() && hi.Outcome == Fail
	tt := b.threadTest
	switch {
	case b.atOnce != "":
		// Every thread busy with the database's latency held: paced
		// operations waited for a thread, not for the host's wake-up.
		wakeup = false
		add(ReasonThreads, "%s", b.atOnce)
	case wakeup:
	case tt != nil && tt.Outcome == Pass:
		f := b.tested
		add(ReasonThreads, "%s failed with %d threads (busy %.0f %% by Little's law) and passed with %d (%s): the threads were the limit; more threads would go further",
			rateText(tt.TargetOpsSec), f.Threads, 100*f.ThreadsBusy, tt.Threads, figures(tt))
	case u != nil && u.Outcome == Pass && !hasKind(out, ReasonClient) && b.heldAt(u) && len(spec.Threads) > 0:
		add(ReasonThreads, "the unlimited probe passed (%s with all %d threads busy) and the database's latency held (mean %s): the threads were the limit; more threads would go further",
			rateText(u.GoodputOpsSec), u.Threads, fmtUS(u.serviceUS()))
	}
	// Errors at the answer's rate, unless the conditions judge them.
	if lo != nil && lo.Errors > 0 && !hasErrors {
		add(ReasonErrors, "%d of %d operations failed at %s (%s)", lo.Errors, lo.Operations, probeRate(lo),
			percentText(100*float64(lo.Errors)/math.Max(float64(lo.Operations), 1)))
	}
	// The host's wake-up latency: unpaced, the database met the
	// conditions; paced, at every rate down to the floor, not.
	if wakeup {
		add(ReasonWakeup, "the unlimited probe passed at %s but no paced probe did: the host's wake-up latency (p99 %s, intended less service at %s) dominates at this bound",
			rateText(u.GoodputOpsSec), fmtUS(hi.wakeP99US()), rateText(hi.TargetOpsSec))
	}
	// The bracket.
	if lo != nil && !b.closed(spec) && b.ended != "threads" { // ended by the threads: said above
		why := b.endedText()
		if w := b.width(); math.IsInf(w, 1) {
			add(ReasonUnclosed, "%s before the bracket closed: %s passed, above the unlimited probe's %s, and no paced rate failed above it", why,
				rateText(lo.TargetOpsSec), rateText(hi.rate()))
		} else {
			add(ReasonUnclosed, "%s before the bracket closed: %s to %s is %.1f %% wide (asked: %.1f %%)", why,
				rateText(lo.TargetOpsSec), rateText(hi.rate()), 100*w, 100*spec.Precision)
		}
	}
	// The answer's hold.
	if why := b.unheldText(); why != "" {
		add(ReasonUnheld, "the answer was not held: %s", why)
	}
	// A server on this host shares its cores with the client: said with
	// whatever else makes the answer untrusted (or leaves none).
	if spec.Local != "" && (len(out) > 0 || b.outcome != Answer) {
		add(ReasonLocal, "the server is on this host (%s): the answer is the pair's, not the database's", spec.Local)
	}
	return out
}

func hasKind(rs []Reason, kind string) bool {
	for _, r := range rs {
		if r.Kind == kind {
			return true
		}
	}
	return false
}

// probeRate is a probe's rate as the reasons name it.
func probeRate(p *probe) string {
	if !p.paced() {
		return "unlimited (" + rateText(p.GoodputOpsSec) + ")"
	}
	return rateText(p.TargetOpsSec)
}

func fmtUS(us float64) string {
	switch {
	case us >= 1e6:
		return fmt.Sprintf("%.2fs", us/1e6)
	case us >= 1e3:
		return fmt.Sprintf("%.3gms", us/1e3)
	}
	return fmt.Sprintf("%.3gµs", us)
}

// heldAt reports whether the database's own mean latency at p stayed
// within heldService of the lightest judged probe's: it did not queue,
// so what limited p was not the database. A probe with nothing lighter
// to compare with did not hold.
func (b *bracket) heldAt(p *probe) bool {
	lightest := math.Inf(1)
	for _, q := range b.probes {
		if q != p && q.paced() && (q.Outcome == Pass || q.Outcome == Fail) && q.serviceUS() > 0 {
			lightest = math.Min(lightest, q.serviceUS())
		}
	}
	return !math.IsInf(lightest, 1) && p.serviceUS() > 0 && p.serviceUS() <= heldService*lightest
}
