package findmax

// What a closed bracket does before its answer is given: the thread test
// (the deciding failure again with twice the threads, when Little's law
// says they were busy) and the hold (the answer's rate for the longer of
// 30 s and 6 probe lengths); and the first probes' verdict on the
// threads, said at once.

import (
	"fmt"
	"math"

	"benchtop/engine"
)

const (
	// testBusy is the threads' busy share (Little's law) at the deciding
	// failure from which it is asked again with twice the threads.
	testBusy = 0.8
	// allBusy is the unlimited probe's busy share read as every thread
	// busy; heldLatency how far its mean service time and the first
	// paced probe's may be apart for the database to have kept its
	// latency (within 10 %, either way).
	allBusy     = 0.9
	heldLatency = 1.10
	// holdIntervals is the shortest hold, in intervals: 30 s at the
	// default 1 s status interval (the search's timescale, as its probes'
	// MinIntervals are); holdProbes the probe lengths it lasts when they
	// are longer.
	holdIntervals = 30
	holdProbes    = 6
)

// threadsAtOnce says, after the first paced probe, whether the
// unlimited probe had every thread busy while the database kept the
// latency it had at the lighter paced probe: then the threads, not the
// database, were the limit from the start. Headless the search ends there
// (the answer untrusted, exit status 4); on the screen it goes on with
// the reason kept. --find-max-over searches the threads itself.
func (s *Search) threadsAtOnce(snap *engine.Snapshot) bool {
	b := s.b
	if len(s.spec.Threads) > 0 || b.atOnce != "" || b.unlimited == nil || b.outcome != "" {
		return false
	}
	var paced []*probe
	for _, q := range b.probes {
		if q.paced() && q.Role == "" && (q.Outcome == Pass || q.Outcome == Fail) {
			paced = append(paced, q)
		}
	}
	if len(paced) != 1 {
		return false
	}
	u, p := b.unlimited, paced[0]
	// A saturated client keeps its threads busy too: its CPU, not their
	// number, is then the limit (reasons: "the client saturated").
	if u.ClientSaturated || u.ThreadsBusy < allBusy || u.serviceUS() <= 0 || p.serviceUS() <= 0 ||
		u.serviceUS() > heldLatency*p.serviceUS() || p.serviceUS() > heldLatency*u.serviceUS() {
		return false
	}
	perThread := 1e6 / u.serviceUS()
	b.atOnce = fmt.Sprintf("the unlimited probe had all %d threads busy (%.0f %% by Little's law) at %s, and the database's latency held (mean %s there, %s at %s): the threads were the limit from the first probe; each thread gives about %s, so %d threads would reach about %s if the database's latency holds",
		u.Threads, 100*u.ThreadsBusy, rateText(u.GoodputOpsSec), fmtUS(u.serviceUS()), fmtUS(p.serviceUS()), rateText(p.TargetOpsSec),
		rateText(perThread), 2*u.Threads, rateText(2*float64(u.Threads)*perThread))
	if !s.spec.StopOnThreads {
		return false
	}
	b.end("threads")
	s.finish(snap, "threads", true)
	return true
}

// testThreads asks the failure that closed the bracket again with twice
// the threads (at most engine.MaxThreads) when Little's law says they
// were busy at it, or it failed a latency condition from the intended
// start that its service time passed (its operations waited for a
// thread, each thread paced on its own schedule, however busy on
// average): the threads were the limit only if it then passes. It
// reports whether it asked.
func (s *Search) testThreads(snap *engine.Snapshot) bool {
	b := s.b
	hi := b.hi
	if len(s.spec.Threads) > 0 || b.threadTest != nil || hi == nil || !hi.paced() || hi.Outcome != Fail || hi.ClientSaturated {
		return false // a saturated client is the limit named: more threads would only crowd it
	}
	if hi.ThreadsBusy < testBusy && !waitedForThread(hi) {
		return false
	}
	base := b.baseThreads()
	n := min(2*base, engine.MaxThreads)
	if base <= 0 || n <= base {
		return false
	}
	b.tested = hi
	s.ask(hi.TargetOpsSec, n, snap)
	s.cur.Role = ThreadTest
	return true
}

// hold asks for the answer's rate at the bracket's threads for the
// longer of holdIntervals and holdProbes times the answer's probe, within
// the budget; a hold that passes gives the answer, one that fails steps the
// search down (bracket.record). It reports whether it asked; when the
// budget leaves too little, the answer is given unheld, with the reason.
func (s *Search) hold(snap *engine.Snapshot) bool {
	b := s.b
	lo := b.lo
	if lo == nil || b.heldBy() != nil || b.holdAt(Undecided) != nil || b.threadsLimited() {
		return false
	}
	want := max(holdIntervals*snap.Interval.Seconds(), holdProbes*lo.SteadyS)
	// The hold's transition and the interval after its last are not
	// held.
	left := (b.budget - snap.Time.Sub(b.start) - 2*snap.Interval).Seconds()
	if left < MinIntervals*snap.Interval.Seconds() {
		b.unheld = fmt.Sprintf("the budget left %.0f s and a hold takes %.0f s", max(0, left), want)
		return false
	}
	s.ask(lo.TargetOpsSec, b.baseThreads(), snap)
	s.cur.Role, s.cur.minSecs = Hold, min(want, left)
	s.cur.needIntervals = max(MinIntervals, int(math.Ceil(s.cur.minSecs/snap.Interval.Seconds()-1e-9)))
	if left < want {
		s.cur.holdWant = want
	}
	return true
}

// unheldText is why b's answer was not held ("": it was, or no answer
// needs it).
func (b *bracket) unheldText() string {
	if b.outcome != Answer || b.lo == nil || b.threadsLimited() {
		return ""
	}
	if h := b.heldBy(); h != nil {
		if h.holdWant > 0 {
			return fmt.Sprintf("%s was held %.0f s of the %.0f s a hold takes: the budget ran out", rateText(h.TargetOpsSec), h.SteadyS, h.holdWant)
		}
		return ""
	}
	if h := b.holdAt(Undecided); h != nil {
		return fmt.Sprintf("the hold of %s was undecided over %.0f s (%s)", rateText(h.TargetOpsSec), h.SteadyS, h.Decided)
	}
	if q := b.holdAt(Unjudged); q != nil {
		return fmt.Sprintf("%s during the hold of %s (%.0f s of %.0f s held)", b.endedText(), rateText(q.TargetOpsSec), q.secs, max(q.minSecs, q.holdWant))
	}
	if b.unheld != "" {
		return b.unheld
	}
	return b.endedText() + " before the answer was held"
}

// waitedForThread reports whether p failed a latency condition from the
// intended start that its service time passed.
func waitedForThread(p *probe) bool {
	for _, c := range p.Conditions {
		if !c.Pass && c.Basis == "intended" && c.ServicePass != nil && *c.ServicePass {
			return true
		}
	}
	return false
}
