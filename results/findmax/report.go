package findmax

import (
	"fmt"
	"math"
	"strings"
)

// Report is a capacity search's outcome: the JSON summary's "capacity"
// member, the report's "# capacity" lines and the screen's end. Its own
// fields are the answer (the best thread count's, with
// --find-max-over); PerThreads holds each thread count's.
type Report struct {
	Result
	// Conditions are the --find-max expressions; Precision the
	// bracket's relative width asked for; BudgetS and ElapsedS the time
	// budget and the time the search took.
	Conditions []string `json:"conditions"`
	Precision  float64  `json:"precision"`
	BudgetS    float64  `json:"budget_s"`
	ElapsedS   float64  `json:"elapsed_s"`
	// Probes are every probe in order (each with its thread count).
	Probes []Probe `json:"probes"`
	// PerThreads are --find-max-over's searches, one per thread count.
	PerThreads []Result `json:"per_threads,omitempty"`
}

// Result is one search's outcome (over one thread count).
type Result struct {
	// Threads is the thread count searched (0: the run's own, which the
	// probes record).
	Threads int `json:"threads,omitempty"`
	// Outcome is Answer, None or Unfinished.
	Outcome string `json:"outcome"`
	// RateOpsSec is the answer: the highest target that passed (nil:
	// none).
	RateOpsSec *float64 `json:"rate_ops_sec"`
	Bracket    Bracket  `json:"bracket"`
	// UpperOpsSec is the unlimited probe's rate (the upper bound),
	// FloorOpsSec the lowest target tried.
	UpperOpsSec float64 `json:"upper_ops_sec"`
	FloorOpsSec float64 `json:"floor_ops_sec"`
	// Trusted: an answer that nothing else could have set; Reasons say
	// why not.
	Trusted bool     `json:"trusted"`
	Reasons []Reason `json:"reasons,omitempty"`
	// Answer is the outcome in one line, as the screen and the report
	// give it.
	Answer string `json:"answer"`
}

// Bracket is the highest target that passed and the lowest rate that
// failed, and the relative width between them; nil where there is none.
type Bracket struct {
	LoOpsSec *float64 `json:"lo_ops_sec"`
	HiOpsSec *float64 `json:"hi_ops_sec"`
	Width    *float64 `json:"width"`
}

// Statuses of a search, which the exit status follows.
const (
	StatusTrusted   = "trusted"   // an answer that can be trusted
	StatusUntrusted = "untrusted" // an answer that cannot, or none found in time
	StatusNone      = "none"      // no rate down to the floor meets the conditions
)

// Status is the search's status.
func (r *Report) Status() string {
	switch {
	case r.Outcome == None:
		return StatusNone
	case r.Outcome == Answer && r.Trusted:
		return StatusTrusted
	}
	return StatusUntrusted
}

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
		s = "sustainable " + rateText(b.lo.TargetOpsSec) + " (" + figures(b.lo) + ")"
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
		if b.upper <= 0 && b.unlimited != nil {
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

// TextLines are the report's lines of the search, without their "#
// capacity" prefix: the answer, whether it can be trusted and why not,
// and one line per probe.
func (r *Report) TextLines() (answer []string, probes []string) {
	answer = append(answer, r.Answer)
	switch {
	case r.Outcome != Answer:
	case r.Trusted:
		answer = append(answer, "trusted: "+bracketText(r.Result)+fmt.Sprintf("; %d probes in %.1f s", len(r.Probes), r.ElapsedS))
	default:
		answer = append(answer, "not trusted: "+bracketText(r.Result)+fmt.Sprintf("; %d probes in %.1f s", len(r.Probes), r.ElapsedS))
		for _, x := range r.Reasons {
			answer = append(answer, "not trusted: "+x.Text)
		}
	}
	for _, t := range r.PerThreads {
		answer = append(answer, fmt.Sprintf("threads %d: %s", t.Threads, t.Answer))
	}
	for _, p := range r.Probes {
		probes = append(probes, ProbeLine(p))
	}
	return answer, probes
}

// bracketText is "bracket 1,950 to 2,000 ops/s (2.6 % wide)".
func bracketText(r Result) string {
	b := r.Bracket
	if b.LoOpsSec == nil || b.HiOpsSec == nil || b.Width == nil {
		return "no bracket"
	}
	return fmt.Sprintf("bracket %s to %s (%.1f %% wide)", rateText(*b.LoOpsSec), rateText(*b.HiOpsSec), 100**b.Width)
}

// ProbeLine is one probe in a line: "3: 1,810 ops/s, 64 threads: pass
// (p99 45.2ms < 100ms), 1,809 ops/s over 6.0 s".
func ProbeLine(p Probe) string {
	s := fmt.Sprintf("%d: %s, %d threads: %s", p.N, TargetText(p.TargetOpsSec), p.Threads, p.Outcome)
	if p.Decided != "" {
		s += " (" + p.Decided + ")"
	}
	if p.Outcome == Pass || p.Outcome == Fail {
		s += fmt.Sprintf(", %s over %.1f s", rateText(p.GoodputOpsSec), p.SteadyS)
		if p.Errors > 0 {
			s += fmt.Sprintf(", %d failed", p.Errors)
		}
		if p.ClientSaturated {
			s += ", client saturated"
		}
	}
	return s
}
