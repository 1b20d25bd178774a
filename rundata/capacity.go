package rundata

// A capacity search's outcome (--find-max) as the outputs record it: the
// JSON summary's "capacity" member, the report's "# capacity" lines and
// the HTML report's section. results/findmax makes it and keeps its old
// names for these types as aliases.

import (
	"fmt"

	"benchtop/rundata/units"
)

// Outcomes of a search (CapacityResult.Outcome).
const (
	// Answer: a rate passed, and the bracket closed or the search ended
	// with one (then untrusted unless it closed).
	SearchAnswer = "answer"
	// None: no rate down to the floor meets the conditions.
	SearchNone = "none"
	// Unfinished: the search ended (budget, stop, the run's end) before
	// any rate passed and before the floor failed.
	SearchUnfinished = "unfinished"
)

// Outcomes of a probe (CapacityProbe.Outcome).
const (
	ProbePass     = "pass"
	ProbeFail     = "fail"
	ProbeVoid     = "void"     // a manual change or a pause cut it short
	ProbeUnjudged = "unjudged" // the search or the run ended before it was judged
	// ProbeUndecided: at its most intervals its percentile's 95 %
	// interval still held the bound; it is asked again once, then
	// counted a fail.
	ProbeUndecided = "undecided"
)

// Roles of a probe beside the bracket's own (CapacityProbe.Role).
const (
	// ProbeHold holds the answer's rate, the longer of 30 s and 6 probe
	// lengths, before the answer is given; a failure steps the search
	// down.
	ProbeHold = "hold"
	// ProbeThreadTest asks the failure that decided the bracket again
	// with twice the threads: the threads were the limit only if it
	// passes.
	ProbeThreadTest = "thread-test"
)

// CapacityProbe is one probe as the outputs record it (the JSON member
// "capacity"'s "probes").
type CapacityProbe struct {
	N            int     `json:"n"`
	Threads      int     `json:"threads"`
	TargetOpsSec float64 `json:"target_ops_sec"` // 0: unlimited
	// Segment is the segment the probe started (0: none, or not known).
	Segment int `json:"segment,omitempty"`
	// StartS is when its change showed (seconds since the run's start),
	// SteadyS the length of its steady part, EndS when it ended.
	StartS  float64 `json:"start_s"`
	SteadyS float64 `json:"steady_s"`
	EndS    float64 `json:"end_s"`
	// Role is what the probe was for beside the search's bracket:
	// ProbeHold (the answer held before it is given) or ProbeThreadTest
	// (the deciding failure asked again with more threads); "" for the
	// bracket's own probes.
	Role string `json:"role,omitempty"`
	// Intervals counts its steady intervals.
	Intervals int    `json:"intervals"`
	Outcome   string `json:"verdict"` // the JSON keeps its name
	// Decided is the condition that decided it with its figure
	// ("READ.p99 12.3ms > 10ms"); for a void, why.
	Decided string `json:"decided,omitempty"`
	// GoodputOpsSec is successful operations per second over its steady
	// part, FailedOpsSec failed ones; Operations and Errors count them.
	GoodputOpsSec float64 `json:"goodput_ops_sec"`
	FailedOpsSec  float64 `json:"failed_ops_sec"`
	// OpsPerSec is GoodputOpsSec under the segments' name, with its 95 %
	// confidence interval; P99US is the p99 of every operation type the
	// probe is judged on (intended when paced), with its interval, nil
	// when nothing succeeded (results/ci: batch means over its steady
	// intervals).
	RateCI
	Operations int64 `json:"operations"`
	Errors     int64 `json:"errors"`
	// Conditions are each condition's figure on the probe.
	Conditions []CapacityCondition `json:"conditions"`
	// MeanServiceUS is the successful operations' mean service time,
	// MeanIntendedUS their mean latency from the intended start (paced
	// probes), in µs; nil when no operation succeeded (a failed
	// operation's time is no latency).
	MeanServiceUS  *float64 `json:"mean_service_us"`
	MeanIntendedUS *float64 `json:"mean_intended_us,omitempty"`
	// ThreadsBusy is the share of the time the threads were busy, by
	// Little's law: goodput × mean service time ÷ threads.
	ThreadsBusy float64 `json:"threads_busy"`
	// ClientCPU is the client's mean CPU over the steady part, in percent
	// of the cores benchtop may use (a fleet: its busiest agent host's);
	// nil when unknown. ClientSaturated: the client was the limit in at
	// least half of its steady intervals, ClientNote says how.
	ClientCPU       *float64 `json:"client_cpu_percent,omitempty"`
	ClientSaturated bool     `json:"client_saturated,omitempty"`
	ClientNote      string   `json:"client_note,omitempty"`
}

// CapacityCondition is one condition's figure on a probe.
type CapacityCondition struct {
	Expr string `json:"expr"`
	Pass bool   `json:"pass"`
	// Actual is the figure (µs for latency, a count, a percentage or
	// ops/s), Text as people read it; nil with no data.
	Actual *float64 `json:"actual"`
	Unit   string   `json:"unit"`
	Text   string   `json:"text"`
	// Basis is what latency was judged on: "intended" (from the intended
	// start, a paced probe) or "service".
	Basis string `json:"basis,omitempty"`
	// Samples is the successful operations the latency was judged on.
	Samples int64 `json:"samples,omitempty"`
	// ServiceText is the same figure on service time, for a paced probe.
	ServiceText string `json:"service_text,omitempty"`
	ServicePass *bool  `json:"service_pass,omitempty"`
}

// TargetText is a probe's target as people read it: "unlimited" or
// "1,950 ops/s".
func TargetText(rate float64) string {
	if rate <= 0 {
		return "unlimited"
	}
	return RateText(rate)
}

// RateText is a rate in ops/s: "1,950 ops/s", "12.5 ops/s".
func RateText(r float64) string {
	if r < 100 && r != float64(int64(r)) {
		return fmt.Sprintf("%.3g ops/s", r)
	}
	return units.Count(int64(r+0.5)) + " ops/s"
}

// Capacity is a capacity search's outcome: the JSON summary's "capacity"
// member, the report's "# capacity" lines and the screen's end. Its own
// fields are the answer (the best thread count's, with
// --find-max-over); PerThreads holds each thread count's.
type Capacity struct {
	CapacityResult
	// Conditions are the --find-max expressions; Precision the
	// bracket's relative width asked for; BudgetS and ElapsedS the time
	// budget and the time the search took.
	Conditions []string `json:"conditions"`
	Precision  float64  `json:"precision"`
	BudgetS    float64  `json:"budget_s"`
	ElapsedS   float64  `json:"elapsed_s"`
	// Probes are every probe in order (each with its thread count).
	Probes []CapacityProbe `json:"probes"`
	// PerThreads are --find-max-over's searches, one per thread count.
	PerThreads []CapacityResult `json:"per_threads,omitempty"`
}

// CapacityResult is one search's outcome (over one thread count).
type CapacityResult struct {
	// Threads is the thread count searched (0: the run's own, which the
	// probes record).
	Threads int `json:"threads,omitempty"`
	// Outcome is SearchAnswer, SearchNone or SearchUnfinished.
	Outcome string `json:"outcome"`
	// RateOpsSec is the answer: the highest target that passed (nil:
	// none).
	RateOpsSec *float64        `json:"rate_ops_sec"`
	Bracket    CapacityBracket `json:"bracket"`
	// HeldS is how long the answer's rate was held, passing, before it
	// was given (0: it was not held).
	HeldS float64 `json:"held_s,omitempty"`
	// UpperOpsSec is the unlimited probe's rate (the upper bound),
	// FloorOpsSec the lowest target tried.
	UpperOpsSec float64 `json:"upper_ops_sec"`
	FloorOpsSec float64 `json:"floor_ops_sec"`
	// Trusted: an answer that nothing else could have set; Reasons say
	// why not.
	Trusted bool             `json:"trusted"`
	Reasons []CapacityReason `json:"reasons,omitempty"`
	// Answer is the outcome in one line, as the screen and the report
	// give it.
	Answer string `json:"answer"`
}

// CapacityBracket is the highest target that passed and the lowest rate that
// failed, and the relative width between them; nil where there is none.
type CapacityBracket struct {
	LoOpsSec *float64 `json:"lo_ops_sec"`
	HiOpsSec *float64 `json:"hi_ops_sec"`
	Width    *float64 `json:"width"`
}

// Statuses of a search, which the exit status follows.
const (
	CapacityTrusted   = "trusted"   // an answer that can be trusted
	CapacityUntrusted = "untrusted" // an answer that cannot, or none found in time
	CapacityNone      = "none"      // no rate down to the floor meets the conditions
)

// Status is the search's status.
func (r *Capacity) Status() string {
	switch {
	case r.Outcome == SearchNone:
		return CapacityNone
	case r.Outcome == SearchAnswer && r.Trusted:
		return CapacityTrusted
	}
	return CapacityUntrusted
}

// TextLines are the report's lines of the search, without their "#
// capacity" prefix: the answer, whether it can be trusted and why not,
// and one line per probe.
func (r *Capacity) TextLines() (answer []string, probes []string) {
	answer = append(answer, r.Answer)
	switch {
	case r.Outcome != SearchAnswer:
	case r.Trusted:
		answer = append(answer, "trusted: "+bracketText(r.CapacityResult)+fmt.Sprintf("; %d probes in %.1f s", len(r.Probes), r.ElapsedS))
	default:
		answer = append(answer, "not trusted: "+bracketText(r.CapacityResult)+fmt.Sprintf("; %d probes in %.1f s", len(r.Probes), r.ElapsedS))
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
func bracketText(r CapacityResult) string {
	b := r.Bracket
	if b.LoOpsSec == nil || b.HiOpsSec == nil || b.Width == nil {
		return "no bracket"
	}
	return fmt.Sprintf("bracket %s to %s (%.1f %% wide)", RateText(*b.LoOpsSec), RateText(*b.HiOpsSec), 100**b.Width)
}

// ProbeLine is one probe in a line: "3: 1,810 ops/s, 64 threads: pass
// (p99 45.2ms < 100ms), 1,809 ops/s over 6.0 s".
func ProbeLine(p CapacityProbe) string {
	s := fmt.Sprintf("%d: %s, %d threads", p.N, TargetText(p.TargetOpsSec), p.Threads)
	if p.Role != "" {
		s += ", " + p.Role
	}
	s += ": " + p.Outcome
	if p.Decided != "" {
		s += " (" + p.Decided + ")"
	}
	if p.Outcome == ProbePass || p.Outcome == ProbeFail {
		s += fmt.Sprintf(", %s over %.1f s", RateText(p.GoodputOpsSec), p.SteadyS)
		if p.Errors > 0 {
			s += fmt.Sprintf(", %d failed", p.Errors)
		}
		if p.ClientSaturated {
			s += ", client saturated"
		}
	}
	return s
}

// Kinds of reasons an answer cannot be trusted (CapacityReason.Kind).
const (
	ReasonClient   = "client"   // the client's CPU or NIC was the limit
	ReasonThreads  = "threads"  // the threads were the limit
	ReasonErrors   = "errors"   // operations failed at the answer's rate
	ReasonUnclosed = "unclosed" // the bracket did not close
	// ReasonWakeup: the unlimited probe passed and no paced one did: the
	// host's wake-up latency, not the database, failed them.
	ReasonWakeup = "wakeup"
	// ReasonLocal: the server is on the client's host (loopback): the
	// answer is the pair's.
	ReasonLocal = "local"
	// ReasonUnheld: the answer's rate was not held before the search
	// ended (the budget or the run ran out first).
	ReasonUnheld = "unheld"
)

// CapacityReason is why an answer cannot be trusted.
type CapacityReason struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}
