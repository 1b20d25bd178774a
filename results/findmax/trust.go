package findmax

import (
	"fmt"
	"math"
	"strings"
)

// Thresholds of the trust rules.
const (
	// busyThreads is the threads' busy share (Little's law) at the answer
	// from which the threads are taken as the limit: threads ÷ mean
	// latency is then within 1/0.6 of the rate found.
	busyThreads = 0.6
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
	lo, hi := b.lo, b.hi
	// The client: saturated at the answer or at the rate that failed.
	for _, p := range []*probe{lo, hi} {
		if p != nil && p.ClientSaturated && !hasKind(out, ReasonClient) {
			add(ReasonClient, "the client saturated at %s (%s): the limit may be the client's, not the database's", probeRate(p), p.ClientNote)
		}
	}
	// The threads, unless the host's wake-up failed every paced probe
	// (below): the unlimited probe passing then says nothing of them.
	u := b.unlimited
	wakeup := u != nil && u.Outcome == Pass && lo == nil && hi != nil && hi.paced() && hi.Outcome == Fail
	switch {
	case wakeup:
	case u != nil && u.Outcome == Pass && !hasKind(out, ReasonClient) && b.heldAt(u):
		add(ReasonThreads, "the unlimited probe passed (%s with all %d threads busy) and the database's latency held (mean %s): the threads were the limit; more threads would go further",
			rateText(u.GoodputOpsSec), u.Threads, fmtUS(u.serviceUS()))
	case lo != nil && lo.ThreadsBusy >= busyThreads:
		add(ReasonThreads, "by Little's law the %d threads were busy %.0f %% of the time at %s (threads ÷ mean latency %s = %s): more threads would go further",
			lo.Threads, 100*lo.ThreadsBusy, probeRate(lo), fmtUS(lo.serviceUS()), rateText(float64(lo.Threads)/(lo.serviceUS()/1e6)))
	case hi != nil && hi.paced() && hi.Outcome == Fail:
		if c, ok := b.waitedForThreads(hi); ok {
			add(ReasonThreads, "at %s the database's own latency held (%s %s on service time) while operations waited for a thread (%s from the intended start): more threads would go further",
				probeRate(hi), label0(c.Expr), c.ServiceText, c.Text)
		}
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
	if lo != nil && !b.closed(spec) {
		why := b.endedText()
		if w := b.width(); math.IsInf(w, 1) {
			add(ReasonUnclosed, "%s before the bracket closed: %s passed, above the unlimited probe's %s, and no paced rate failed above it", why,
				rateText(lo.TargetOpsSec), rateText(hi.rate()))
		} else {
			add(ReasonUnclosed, "%s before the bracket closed: %s to %s is %.1f %% wide (asked: %.1f %%)", why,
				rateText(lo.TargetOpsSec), rateText(hi.rate()), 100*w, 100*spec.Precision)
		}
	}
	// A server on this host shares its cores with the client: said with
	// whatever else makes the answer untrusted (or leaves none).
	if spec.Local != "" && (len(out) > 0 || b.outcome != Answer) {
		add(ReasonLocal, "the server is on this host (%s): the answer is the pair's, not the database's", spec.Local)
	}
	return out
}

// waitedForThreads reports whether hi failed on a latency condition that
// its service time passed, while the database's own mean latency stayed
// within heldService of the lightest probe's: the operations waited for
// a thread, not for the database. It returns that condition.
func (b *bracket) waitedForThreads(hi *probe) (Condition, bool) {
	if !b.heldAt(hi) {
		return Condition{}, false
	}
	for _, c := range hi.Conditions {
		if !c.Pass && c.Basis == "intended" && c.ServicePass != nil && *c.ServicePass {
			return c, true
		}
	}
	return Condition{}, false
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

// label0 is an expression's metric ("READ.p99" of "READ.p99<10ms").
func label0(expr string) string {
	if i := strings.IndexAny(expr, "<>"); i >= 0 {
		return strings.TrimSpace(expr[:i])
	}
	return expr
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
