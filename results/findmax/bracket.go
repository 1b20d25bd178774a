package findmax

import (
	"math"
	"time"
)

// bracket is the search over one thread count: the unlimited probe's
// bound, the highest target that passed (lo) and the lowest that failed
// (hi), and how the next target is chosen. Both ends of a closed bracket
// are paced probes: the unlimited probe bounds the search, but its rate
// is confirmed paced before it ends a bracket (a client that hiccupped
// through it reaches less than the database can take).
type bracket struct {
	threads int // the thread count searched; 0: the run's own
	budget  time.Duration
	start   time.Time // when its first probe was asked for
	upper   float64   // the unlimited probe's goodput
	floor   float64
	// unlimited is its first probe; lo and hi bound the answer (hi is
	// the unlimited probe until a paced one fails).
	unlimited, lo, hi *probe
	// hiFails counts the failures at hi's target: a bracket closes on a
	// failure seen twice (a client's hiccup fails one probe, seldom two).
	hiFails int
	drops   int // paced probes that failed with no pass yet
	climbs  int // targets asked above the unlimited probe's rate
	probes  []*probe
	// threadTest is the deciding failure (tested) asked again with
	// twice the threads (nil: not asked); atOnce says why the first probes
	// showed the threads as the limit ("": they did not); unheld why
	// the answer was not held when no hold ran ("": unknown).
	threadTest *probe
	tested     *probe // the failure it asked again
	atOnce     string
	unheld     string
	outcome    string
	// ended says why it ended before the bracket closed: "budget",
	// "stopped" (the run ended), or a controller's error.
	ended string
}

// descent are the steps down from the lowest failure while no target has
// passed: 10 % below it, then 25 %, 50 %, 75 %, 90 % (the floor stops it).
var descent = []float64{0.10, 0.25, 0.50, 0.75, 0.90}

// ascent are the steps up from the highest pass when it reached the
// unlimited probe's rate and no paced target has failed yet.
var ascent = []float64{0.10, 0.25, 0.50, 1.00}

// record takes a judged probe into the bracket. A pass is taken as it
// comes (the client's hiccups only add latency: they fail probes, they
// never pass one); a failure bounds the bracket until a pass at or above
// its target says it was the client's noise. A hold that fails overrules
// the passes at or above its target (they were short, it is long) and
// reopens the search below it; a thread test bounds nothing.
func (b *bracket) record(p *probe, spec Spec) {
	b.probes = append(b.probes, p)
	if p.Outcome != Pass && p.Outcome != Fail {
		return
	}
	switch {
	case p.Role == ThreadTest:
		b.threadTest = p
		return
	case p.Role == Hold && p.Outcome == Fail:
		for _, q := range b.probes {
			if q.paced() && q.Outcome == Pass && q.TargetOpsSec >= p.TargetOpsSec {
				q.refuted = true
			}
		}
		b.lo = nil
		for _, q := range b.probes {
			if q.paced() && q.Outcome == Pass && !q.refuted && (b.lo == nil || q.TargetOpsSec > b.lo.TargetOpsSec) {
				b.lo = q
			}
		}
		b.outcome = "" // the search goes on below the hold
	case !p.paced():
		b.unlimited = p
		b.upper = p.GoodputOpsSec
		b.floor = spec.Floor
		if b.floor <= 0 {
			b.floor = spec.FloorShare * b.upper
		}
		if b.nothingSucceeded() {
			b.outcome = None // nothing succeeded even unpaced
		}
	case p.Outcome == Pass && p.Role == "" && (b.lo == nil || p.TargetOpsSec > b.lo.TargetOpsSec):
		b.lo = p
	}
	b.bound()
	if p.paced() && p.Outcome == Fail && b.lo == nil && b.hi == p {
		b.drops++
	}
}

// bound sets hi, the lowest paced failure above lo (the unlimited probe
// when none), and how many times its target failed (a failed hold
// counts twice: it ran the longer of 30 s and 6 probes).
func (b *bracket) bound() {
	b.hi, b.hiFails = b.unlimited, 0
	for _, q := range b.probes {
		if !q.paced() || q.Outcome != Fail || q.Role == ThreadTest || (b.lo != nil && q.TargetOpsSec <= b.lo.TargetOpsSec) {
			continue
		}
		n := 1
		if q.Role == Hold {
			n = 2
		}
		switch {
		case b.hi == nil || !b.hi.paced() || q.TargetOpsSec < b.hi.TargetOpsSec:
			b.hi, b.hiFails = q, n
		case q.TargetOpsSec == b.hi.TargetOpsSec:
			b.hiFails += n
		}
	}
}

// nothingSucceeded reports whether no operation succeeded even in the
// unlimited probe: there is no rate to find.
func (b *bracket) nothingSucceeded() bool { return b.unlimited != nil && b.upper <= 0 }

// heldBy is the hold that passed at lo's target (nil: none).
func (b *bracket) heldBy() *probe { return b.holdAt(Pass) }

// holdAt is the hold at lo's target with outcome (nil: none, or no lo).
// A target is held once: a failed hold moves lo below it.
func (b *bracket) holdAt(outcome string) *probe {
	for _, q := range b.probes {
		if q.Role == Hold && q.Outcome == outcome && b.lo != nil && q.TargetOpsSec == b.lo.TargetOpsSec {
			return q
		}
	}
	return nil
}

// baseThreads is the thread count the bracket's probes run at: its own,
// or the run's as the unlimited probe had them.
func (b *bracket) baseThreads() int {
	if b.threads > 0 || b.unlimited == nil {
		return b.threads
	}
	return b.unlimited.Threads
}

// threadsLimited reports whether the threads were found the limit: at
// once by the first probes, or by the thread test's pass.
func (b *bracket) threadsLimited() bool {
	return b.atOnce != "" || (b.threadTest != nil && b.threadTest.Outcome == Pass)
}

// width is the bracket's relative width (hi-lo)/lo; +Inf without lo, or
// when lo passed above the unlimited probe's rate and nothing paced has
// failed.
func (b *bracket) width() float64 {
	if b.lo == nil || b.hi == nil || b.hi.rate() <= b.lo.TargetOpsSec {
		return math.Inf(1)
	}
	return (b.hi.rate() - b.lo.TargetOpsSec) / b.lo.TargetOpsSec
}

// closed reports whether the bracket is within the precision, between
// two paced probes, its failure confirmed.
func (b *bracket) closed(spec Spec) bool {
	return b.hi != nil && b.hi.paced() && b.hiFails >= 2 && b.width() <= spec.Precision
}

// next is the next target to probe; ok false when the search over this
// thread count is over (its outcome set).
func (b *bracket) next(spec Spec) (rate float64, ok bool) {
	if b.outcome != "" || b.hi == nil {
		return 0, false
	}
	digits := rateDigits(spec.Precision)
	if b.lo == nil {
		if b.hi.paced() && b.hi.TargetOpsSec <= b.floor*(1+1e-9) {
			if b.hiFails < 2 {
				return b.hi.TargetOpsSec, true // the floor's failure, confirmed
			}
			b.outcome = None
			return 0, false
		}
		d := descent[min(b.drops, len(descent)-1)]
		r := math.Max(roundSig(b.hi.rate()*(1-d), digits), b.floor)
		if r >= b.hi.rate() {
			r = b.floor
		}
		if r >= b.hi.rate() || r <= 0 {
			b.outcome = None
			return 0, false
		}
		return r, true
	}
	if b.closed(spec) {
		b.outcome = Answer
		return 0, false
	}
	lo, hi := b.lo.TargetOpsSec, b.hi.rate()
	if b.hi.paced() && b.width() <= spec.Precision {
		return b.hi.TargetOpsSec, true // closed but for the failure's confirmation
	}
	if !b.hi.paced() {
		switch {
		case lo >= hi*(1-1e-9):
			// Above the unlimited probe's rate and nothing paced failed:
			// climb.
			r := roundSig(lo*(1+ascent[min(b.climbs, len(ascent)-1)]), digits)
			b.climbs++
			return r, true
		case (hi-lo)/lo <= spec.Precision:
			// The bracket would close on the unlimited probe: confirm
			// its rate paced.
			if r := roundSig(hi, digits); r > lo {
				return r, true
			}
			return roundSig(lo*(1+spec.Precision), digits), true
		}
	}
	r := roundSig(math.Sqrt(lo*hi), digits)
	if r <= lo || r >= hi {
		if b.hi.paced() && b.hiFails < 2 {
			return b.hi.TargetOpsSec, true
		}
		b.outcome = Answer // no target left between them at this rounding
		return 0, false
	}
	return r, true
}

// end ends the search over this thread count early (why: "budget",
// "stopped", or an error's text).
func (b *bracket) end(why string) {
	if b.ended == "" {
		b.ended = why // for a hold it cut short too
	}
	if b.outcome != "" {
		return
	}
	b.outcome = Unfinished
	if b.lo != nil {
		b.outcome = Answer
	}
}

// endedText says why the search over this thread count ended early, for
// the answer and the reasons: "the budget ran out", "the run stopped",
// an error's text, or "the search ended".
func (b *bracket) endedText() string {
	switch b.ended {
	case "budget":
		return "the budget ran out"
	case "stopped":
		return "the run stopped"
	case "threads":
		return "the threads were the limit"
	case "":
		return "the search ended"
	}
	return b.ended
}

// rateDigits is the significant digits targets are rounded to: a tenth
// of the precision or finer (3 at 5 %).
func rateDigits(precision float64) int {
	return max(2, int(math.Ceil(math.Log10(10/precision)-1e-9)))
}

// roundSig rounds r to digits significant digits.
func roundSig(r float64, digits int) float64 {
	if r <= 0 {
		return 0
	}
	p := math.Pow(10, float64(digits)-math.Ceil(math.Log10(r)))
	return math.Round(r*p) / p
}
