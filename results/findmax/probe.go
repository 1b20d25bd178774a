package findmax

import (
	"fmt"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/results/ci"
	"benchtop/results/thresholds"
	"benchtop/rundata/units"
)

// MaxIntervals is the most steady intervals a probe holds while its
// percentile's 95 % interval holds the bound: 4 times MinIntervals.
const MaxIntervals = 4 * MinIntervals

// The states of a probe in progress (engine.ProbeView.State).
const (
	stateWaiting    = "waiting" // its change not yet seen in a snapshot
	stateTransition = "transition"
	// stateDraining: after its transition, the operations of the probe
	// before it may still be in flight (drain): left out too.
	stateDraining = "draining"
	stateSteady   = "steady"
)

// probe is a probe in progress or judged.
type probe struct {
	Probe
	state string
	// expect are the events of its own change still to show.
	expect []expectation
	set    *measure.Set // its steady part's measurements
	secs   float64      // its steady part's length
	// batches are its steady intervals, for the confidence intervals;
	// conds the same per condition, of the condition's operation types
	// (a latency percentile's only).
	batches ci.Batches
	conds   []ci.Batches
	// retry: it is the second probe of a target the first left
	// undecided.
	retry bool
	// minSecs is the steady time a hold runs unless it fails first (0:
	// a bracket's probe, judged on its evidence); holdWant the hold's
	// full length when the budget cut minSecs short.
	minSecs, holdWant float64
	needIntervals     int // minSecs in intervals, for the screens
	// refuted: a pass that a failed hold at or below its target
	// overruled; the bracket no longer takes it for lo.
	refuted bool
	// capped says why it was judged before it had its evidence ("": it
	// was not).
	capped string
	// drain is how long after its change the previous probe's
	// operations may still be in flight (its longest service time), and
	// changeAt when its change came (since the run's start; 0: not
	// seen): what is left of the drain after its transition interval is
	// left out too.
	drain    time.Duration
	changeAt time.Duration
	sat      int // steady intervals in which the client was the limit
	cpuSum   float64
	cpuN     int
	// judged is its conditions as last judged.
	judged []judged
	// held is false when a paced probe fell short of its target.
	held     bool
	heldText string
	// started is when its change was asked for.
	started time.Time
	// serviceP99US is the p99 of its service time (µs, every type).
	serviceP99US float64
}

// expectation is an event a probe's change will cause.
type expectation struct{ kind, to string }

// newProbe is a probe of n at target with threads, waiting for expect.
func newProbe(n, threads int, target float64, expect []expectation) *probe {
	p := &probe{Probe: Probe{N: n, Threads: threads, TargetOpsSec: target}, state: stateWaiting, expect: expect,
		set: &measure.Set{}, held: true, started: time.Now()}
	if len(expect) == 0 {
		p.state = stateTransition
	}
	return p
}

// paced reports whether the probe sets a rate.
func (p *probe) paced() bool { return p.TargetOpsSec > 0 }

// rate is the probe's place in the bracket: its target, or for the
// unlimited probe the rate it reached.
func (p *probe) rate() float64 {
	if p.paced() {
		return p.TargetOpsSec
	}
	return p.GoodputOpsSec
}

// see consumes the events of the probe's own change in evs and returns
// the others (made by someone else).
func (p *probe) see(evs []engine.Event) []engine.Event {
	var other []engine.Event
	for _, e := range evs {
		i := -1
		for k, x := range p.expect {
			if x.kind == e.Kind && (x.to == "" || x.to == e.To) {
				i = k
				break
			}
		}
		if i < 0 {
			other = append(other, e)
			continue
		}
		p.expect = append(p.expect[:i], p.expect[i+1:]...)
		p.changeAt = max(p.changeAt, e.At)
	}
	return other
}

// add adds one steady interval: its measurements, its length and the
// client's state in it; conds and names say which operation types each
// latency percentile condition judges.
func (p *probe) add(set *measure.Set, secs float64, c clientState, conds []thresholds.Threshold, names []string) {
	p.set.Merge(set)
	p.batches.Add(set)
	p.batches.Tick(secs)
	if len(p.conds) != len(conds) {
		p.conds = make([]ci.Batches, len(conds))
	}
	src := source{names: names}
	for i, t := range conds {
		if t.Metric == "latency" && t.Stat == "p" {
			p.conds[i].AddOps(set, src.ops(t.Op))
			p.conds[i].Tick(secs)
		}
	}
	p.secs += secs
	p.Intervals++
	if c.known {
		p.cpuSum += c.cpu
		p.cpuN++
	}
	if c.saturated {
		p.sat++
		p.ClientNote = c.note
	}
}

// evaluate judges the probe's conditions on what it gathered and fills
// its record's figures; it returns the verdict when there is one ("" to
// go on).
//
// left is the time left in the search's budget: a probe that would not
// gather its evidence in it is judged on what it has (its percentiles'
// intervals), at MinIntervals or when time is up.
func (p *probe) evaluate(conds []thresholds.Threshold, names []string, left time.Duration) string {
	src := source{set: p.set, names: names, secs: p.secs, paced: p.paced(), memo: map[histKey]*hdr.Histogram{}}
	p.judged = judge(conds, src)
	p.intervals(conds, src)
	p.fill(src)
	if p.Intervals < MinIntervals {
		return ""
	}
	if p.paced() {
		attempts := float64(p.set.Ops) / p.secs
		p.held = attempts >= heldShare*p.TargetOpsSec
		p.heldText = fmt.Sprintf("rate %s of the target %s", rateText(attempts), rateText(p.TargetOpsSec))
	}
	all := true
	for _, j := range p.judged {
		if j.failsEarly() && !j.straddles() {
			return p.decide(Fail, j)
		}
		if !j.evidence() {
			all = false
		}
	}
	if p.Errors > 0 && p.Errors == p.Operations {
		// No latency will come to judge: every operation failed. No
		// rate is sustained here (unlimited: there is no answer).
		p.Decided = "no operation succeeded: " + units.Count(p.Errors) + " failed"
		return Fail
	}
	if !p.held {
		p.Decided = p.heldText
		return Fail
	}
	if p.secs < p.minSecs {
		return "" // a hold runs its length unless it fails first
	}
	capped := false
	if have, need := p.evidenceOf(); !all && have > 0 && p.secs > 0 {
		// The time its evidence still takes at its rate, against the
		// time left: capped, it is judged on what it has.
		needs := time.Duration(float64(need-have) / (float64(have) / p.secs) * float64(time.Second))
		if capped = needs > left; capped {
			p.capped = fmt.Sprintf("judged on %s of the %s operations its percentile needs: the budget's time left (%s) is shorter",
				units.Count(have), units.Count(need), left.Round(100*time.Millisecond))
		}
	}
	if !all && !capped {
		return ""
	}
	// A percentile whose 95 % interval holds its bound is not known to
	// be on either side: the probe goes on, up to MaxIntervals (or the
	// time left).
	for _, j := range p.judged {
		if j.straddles() {
			if p.Intervals < MaxIntervals && !capped && p.Role != Hold {
				return ""
			}
			p.decide(Undecided, j)
			p.Decided = "undecided: " + p.Decided + " " + j.ivText()
			return Undecided
		}
	}
	v := Pass
	for _, j := range p.judged {
		if !j.res.Pass {
			v = p.decide(Fail, j)
			break
		}
	}
	if v == Pass {
		p.decide(Pass, closest(p.judged))
	}
	if capped {
		p.Decided += "; " + p.capped
	}
	return v
}

// heldShare is the share of its target a paced probe must attempt: below
// it, the client or the database did not keep the rate (the client
// bottleneck rule's 95 %).
const heldShare = 0.95

// decide sets the verdict and the condition that decided it.
func (p *probe) decide(v string, j judged) string {
	if j.t.Expr != "" {
		cmp := map[bool]string{true: j.t.Cmp, false: negate(j.t.Cmp)}[j.res.Pass]
		p.Decided = label(j.t) + " " + valueText(j) + " " + cmp + " " + boundText(j.t)
		if j.res.NoData {
			p.Decided = label(j.t) + ": no data"
		}
	}
	return v
}

// closest is the passing condition nearest its bound (the one a higher
// rate would fail first).
func closest(js []judged) judged {
	best, ratio := judged{}, -1.0
	for _, j := range js {
		if j.t.Value <= 0 || j.res.NoData {
			continue
		}
		r := actualOf(j) / j.t.Value
		if !isUpper(j.t.Cmp) {
			r = j.t.Value / max(actualOf(j), 1e-9)
		}
		if r > ratio {
			best, ratio = j, r
		}
	}
	if ratio < 0 && len(js) > 0 {
		return js[0]
	}
	return best
}

// actualOf is a condition's figure in the unit of its bound.
func actualOf(j judged) float64 {
	if j.t.Metric == "latency" {
		return j.res.Actual * 1e3 // µs to ns
	}
	return j.res.Actual
}

func isUpper(cmp string) bool { return cmp == "<" || cmp == "<=" }

func negate(cmp string) string {
	return map[string]string{"<": ">=", "<=": ">", ">": "<=", ">=": "<"}[cmp]
}

// boundText is a condition's bound as given: "10ms", "0.1%", "5000".
func boundText(t thresholds.Threshold) string {
	if i := strings.IndexAny(t.Expr, "<>"); i >= 0 {
		return strings.TrimSpace(strings.TrimLeft(t.Expr[i:], "<>="))
	}
	return fmt.Sprint(t.Value)
}

// serviceUS is the mean service time in µs, 0 when nothing succeeded.
func (p *probe) serviceUS() float64 {
	if p.MeanServiceUS == nil {
		return 0
	}
	return *p.MeanServiceUS
}

// fill computes the probe's record from its steady part.
func (p *probe) fill(src source) {
	set := p.set
	failed := failedOps(set)
	p.Operations, p.Errors = set.Ops, failed
	p.SteadyS = p.secs
	if p.secs > 0 {
		p.GoodputOpsSec = float64(set.Ops-failed) / p.secs
		p.FailedOpsSec = float64(failed) / p.secs
	}
	p.fillCI(src)
	svc := src
	svc.service = true
	p.MeanServiceUS = nil
	if h := svc.hist("TOTAL", measure.OK); h != nil {
		v := h.Mean() / 1e3
		p.MeanServiceUS = &v
	}
	p.MeanIntendedUS = nil
	if p.paced() {
		if h := src.hist("TOTAL", measure.OKIntended); h != nil {
			v := h.Mean() / 1e3
			p.MeanIntendedUS = &v
		}
	}
	p.ThreadsBusy = 0
	if p.Threads > 0 {
		p.ThreadsBusy = p.GoodputOpsSec * p.serviceUS() / 1e6 / float64(p.Threads)
	}
	p.ClientCPU = nil
	if p.cpuN > 0 {
		v := p.cpuSum / float64(p.cpuN)
		p.ClientCPU = &v
	}
	p.ClientSaturated = p.Intervals > 0 && 2*p.sat >= p.Intervals
	p.Conditions = p.Conditions[:0]
	for _, j := range p.judged {
		c := Condition{Expr: j.t.Expr, Pass: j.res.Pass, Unit: j.res.Unit, Text: valueText(j)}
		if !j.res.NoData {
			v := j.res.Actual
			c.Actual = &v
		}
		if j.t.Metric == "latency" {
			c.Basis, c.Samples = "service", j.ok
			if p.paced() {
				c.Basis = "intended"
			}
			if j.service != nil && !j.service.NoData {
				c.ServiceText = valueText(judged{t: j.t, res: *j.service})
				pass := j.service.Pass
				c.ServicePass = &pass
			}
		}
		p.Conditions = append(p.Conditions, c)
	}
}

// evidenceOf is the probe's scarcest percentile condition: its
// successful operations and how many it needs (0, 0 when none has a need).
func (p *probe) evidenceOf() (have, need int64) {
	worst := -1.0
	for _, j := range p.judged {
		if j.need <= 0 {
			continue
		}
		if r := float64(j.ok) / float64(j.need); worst < 0 || r < worst {
			worst, have, need = r, j.ok, j.need
		}
	}
	return have, need
}
