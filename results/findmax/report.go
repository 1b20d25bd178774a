package findmax

import (
	"fmt"
	"math"
	"strings"
)

// result is b's outcome.
func (b *bracket) result(spec Spec) Result {
	res := Result{Threads: b.threads, Outcome: b.outcome, UpperOpsSec: b.upper, FloorOpsSec: b.floor}
	if res.Outcome == "" {
		res.Outcome = Unfinished
	}
	if b.lo != nil {
		v := b.lo.TargetOpsSec
		res.RateOpsSec, res.Bracket.LoOpsSec = &v, &v
	}
	if h := b.heldBy(); h != nil {
		res.HeldS = h.SteadyS
	}
	if b.hi != nil && b.hi.rate() > 0 {
		v := b.hi.rate()
		res.Bracket.HiOpsSec = &v
	}
	if w := b.width(); b.lo != nil && b.hi != nil && !math.IsInf(w, 1) {
		// No width (null) when nothing above the answer bounds it: the
		// answer passed above the unlimited probe's rate, nothing paced
		// failed (JSON has no +Inf: the summary would not be written).
		res.Bracket.Width = &w
	}
	// Without an answer the reasons say what else may have failed the
	// rates tried (the client, the threads): no rate down to the floor
	// may be the client's, not the database's.
	res.Reasons = b.reasons(spec, hasErrorsCondition(spec))
	res.Trusted = res.Outcome == Answer && len(res.Reasons) == 0
	res.Answer = b.answer(spec, res)
	return res
}

func hasErrorsCondition(spec Spec) bool {
	for _, c := range spec.Conditions {
		if strings.HasPrefix(c.Metric, "errors") {
			return true
		}
	}
	return false
}

// answer is b's outcome in one line: "sustainable 1,950 ops/s (p99
// 45.2ms, errors 0 %); 2,000 ops/s failed p99 121ms >= 100ms".
func (b *bracket) answer(spec Spec, res Result) string {
	var s string
	switch res.Outcome {
	case Answer:
		held, of := "", b.lo
		if h := b.heldBy(); h != nil {
			held, of = fmt.Sprintf("held %.0f s: ", h.SteadyS), h // the hold's figures: the longer evidence
		}
		s = "sustainable " + rateText(b.lo.TargetOpsSec) + " (" + held + figures(of) + ")"
		if b.hi != nil {
			s += "; " + failedText(b.hi)
		}
		if !res.Trusted {
			var why []string
			for _, r := range res.Reasons {
				why = append(why, reasonShort[r.Kind])
			}
			s += "; not trusted: " + strings.Join(why, ", ")
		}
	case None:
		if b.nothingSucceeded() {
			return "no answer: no operation succeeded even unlimited"
		}
		s = "no rate down to the floor (" + rateText(b.floor) + ") meets " + strings.Join(spec.Exprs(), ", ")
		if b.hi != nil {
			s += ": " + failedText(b.hi)
		}
		s += mayBe(res.Reasons)
	default:
		why := b.endedText()
		s = "no answer: " + why + " before any rate passed"
		if b.hi != nil {
			s += "; " + failedText(b.hi)
		}
		s += mayBe(res.Reasons)
	}
	return s
}

// mayBe is what else may have failed the rates of a search without an
// answer: "; not the database's alone: the client saturated".
func mayBe(rs []Reason) string {
	if len(rs) == 0 {
		return ""
	}
	var why []string
	for _, r := range rs {
		why = append(why, reasonShort[r.Kind])
	}
	return "; not the database's alone: " + strings.Join(why, ", ")
}

// reasonShort names each kind of reason in the answer line.
var reasonShort = map[string]string{
	ReasonClient:   "the client saturated",
	ReasonThreads:  "the threads were the limit",
	ReasonErrors:   "operations failed",
	ReasonUnclosed: "the bracket did not close",
	ReasonWakeup:   "the host's wake-up latency",
	ReasonLocal:    "the server is on this host",
	ReasonUnheld:   "the answer was not held",
}

// figures are a probe's conditions with their figures: "READ.p99 8.70ms,
// errors 0 %".
func figures(p *probe) string {
	var out []string
	for _, j := range p.judged {
		out = append(out, label(j.t)+" "+valueText(j))
	}
	return strings.Join(out, ", ")
}

// failedText is the failing rate above the answer and what failed it:
// "2,000 ops/s failed p99 121ms >= 100ms"; the unlimited probe's
// "unlimited (2,010 ops/s) failed ..." or "the unlimited probe reached
// 800 ops/s".
func failedText(p *probe) string {
	if !p.paced() && p.Outcome == Pass {
		return "the unlimited probe reached " + rateText(p.GoodputOpsSec) + " (" + figures(p) + ")"
	}
	return probeRate(p) + " failed " + p.Decided
}
