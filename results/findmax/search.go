package findmax

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/rundata"
)

// Search is a capacity search over one run. Wire OnPhase, OnInterval and
// OnSnapshot into the run's hooks (OnSnapshot before the hooks that write
// or draw the snapshot: it sets Snapshot.Search and the segments' best
// and knee), Bind the controller before the run starts, and Close when
// the run is over; Report then gives the outcome.
type Search struct {
	spec  Spec
	phase engine.Phase
	tell  func(string)

	mu       sync.Mutex
	ctl      *controls
	bound    bool
	closed   bool
	names    []string
	pending  *measure.Set // the interval's measurements, until its snapshot
	started  bool
	start    time.Time
	brackets []*bracket
	b        *bracket // the bracket being searched
	cur      *probe   // the probe in progress
	n        int      // probes asked for so far
	// paused is the settings of a probe a pause voided, to ask for again
	// once the run resumes.
	paused *probe
	done   bool
	final  *Report
}

// New is a search of spec over phase (the run phase). tell, if not nil,
// is given a line for each probe judged and for the outcome (the
// headless run's stderr).
func New(spec Spec, phase engine.Phase, tell func(string)) *Search {
	return &Search{spec: spec, phase: phase, tell: tell, ctl: newControls(), pending: &measure.Set{}}
}

// Bind sets the controller the search acts through. Call it before the
// phase starts.
func (s *Search) Bind(c engine.Controller) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bound || s.closed {
		return
	}
	s.bound = true
	s.ctl.start(c)
}

// SetLocal says the server is on the client's host at addr (loopback;
// "": not): an untrusted answer then says the answer is the pair's.
// Call it before the phase starts.
func (s *Search) SetLocal(addr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.spec.Local = addr
}

// Close ends the search's controller calls; no call is made after it
// returns.
func (s *Search) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	bound := s.bound
	s.mu.Unlock()
	s.ctl.close(bound)
}

// OnPhase matches engine.Options.OnPhase; the search starts with its
// phase's first snapshot.
func (s *Search) OnPhase(engine.Phase) {}

// OnInterval takes an interval's measurements (engine.Options.OnInterval):
// they join the probe in progress when the interval's snapshot says it
// was steady.
func (s *Search) OnInterval(ph engine.Phase, names []string, _, _ time.Time, set *measure.Set) {
	if ph != s.phase {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names = names
	s.pending.Merge(set)
}

// OnSnapshot advances the search by one interval (engine.Options.
// OnSnapshot): the probe in progress is fed, judged when it holds enough,
// and the next one asked for; the snapshot gets the search's view and,
// once there are verdicts, the segments' best and knee by them.
func (s *Search) OnSnapshot(snap *engine.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.pending.Reset()
	if snap.Phase != s.phase {
		return
	}
	if !s.started {
		s.begin(snap)
	}
	if !s.done {
		s.step(snap)
		if snap.Done {
			s.finish(snap, "stopped", false)
		}
	}
	snap.Search = s.view(snap)
	s.mark(snap)
}

// Report is the search's outcome; a search still running reports what it
// has (as if stopped now).
func (s *Search) Report() *Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.started {
		return nil
	}
	if !s.done {
		return s.report(time.Now())
	}
	return s.final
}

// begin starts the search with its phase's first snapshot: the first
// probe, unlimited, is already in force, and this interval is its
// transition.
func (s *Search) begin(snap *engine.Snapshot) {
	s.started = true
	s.start = snap.Time.Add(-snap.Interval)
	s.b = s.newBracket(0, s.start)
	s.n = 1
	p := newProbe(1, snap.Threads, 0, nil)
	p.StartS = (snap.Elapsed - snap.Interval).Seconds()
	s.cur = p
}

// newBracket starts the search over the i-th thread count at now, with
// its share of the budget left.
func (s *Search) newBracket(i int, now time.Time) *bracket {
	b := &bracket{start: now}
	if len(s.spec.Threads) > 0 {
		b.threads = s.spec.Threads[i]
	}
	left := s.spec.Budget - now.Sub(s.start)
	b.budget = left / time.Duration(max(1, len(s.spec.Threads)-i))
	s.brackets = append(s.brackets, b)
	return b
}

// step is one interval of the search.
func (s *Search) step(snap *engine.Snapshot) {
	if err := s.ctl.failed(); err != nil {
		s.finish(snap, "the controller refused: "+err.Error(), true)
		return
	}
	others := snap.Events
	if s.cur != nil {
		others = s.cur.see(snap.Events)
	}
	if why, pause := interfered(others, snap.Paused); why != "" && (s.cur != nil || pause) {
		if s.cur != nil {
			p := s.cur
			s.cur = nil
			p.Outcome, p.Decided = Void, why
			p.EndS = snap.Elapsed.Seconds()
			s.b.record(p, s.spec)
			s.say("find-max probe " + rundata.ProbeLine(p.Probe))
			if pause {
				s.paused = p
			} else {
				s.ask(p.TargetOpsSec, s.b.threads, snap)
			}
		}
	} else if s.paused != nil && !snap.Paused {
		p := s.paused
		s.paused = nil
		s.ask(p.TargetOpsSec, s.b.threads, snap)
	} else if p := s.cur; p != nil {
		s.feed(p, snap)
	}
	if !s.done && snap.Time.Sub(s.b.start) >= s.b.budget {
		s.endBracket(snap, "budget")
	}
}

// interfered says why the events of others void a probe ("" when they do
// not), and whether it is a pause.
func interfered(others []engine.Event, paused bool) (string, bool) {
	for _, e := range others {
		switch e.Kind {
		case "target", "threads", "partitions":
			return "a manual change: " + e.String(), false
		case "pause":
			return "paused", true
		}
	}
	if paused {
		return "paused", true
	}
	return "", false
}

// feed gives the probe this interval: its change showing (the transition
// interval, left out), or a steady interval, after which it may be
// judged.
func (s *Search) feed(p *probe, snap *engine.Snapshot) {
	switch p.state {
	case stateWaiting:
		if len(p.expect) > 0 {
			return // the change has not shown yet
		}
		p.StartS = (snap.Elapsed - snap.Interval).Seconds()
		fallthrough
	case stateTransition:
		p.state = stateSteady
		// What the transition interval did not hold of the drain (all of
		// it when the change's time is unknown).
		if p.changeAt > 0 {
			p.drain -= snap.Elapsed - p.changeAt
		}
		if p.drain > snap.Interval/100 { // less is the histogram's resolution
			p.state = stateDraining
		}
		if n := len(snap.Segments); n > 0 {
			p.Segment = snap.Segments[n-1].Index
		}
	case stateDraining:
		// The previous probe's backlog drains: no operation of it is
		// timed in this one.
		p.drain -= snap.Interval
		if p.drain <= 0 {
			p.state = stateSteady
		}
	case stateSteady:
		p.add(s.pending, snap.Interval.Seconds(), client(snap), s.spec.Conditions, s.names)
		// The time left once this interval's snapshot is published: the
		// bracket ends at its budget, an interval after the next at most.
		left := s.b.budget - snap.Time.Sub(s.b.start) - snap.Interval
		v := p.evaluate(s.spec.Conditions, s.names, left)
		if v == "" {
			return
		}
		if v == Undecided && p.Role == Hold {
			// Its estimate passes, its interval holds the bound: no
			// evidence that the answer fails, none that it holds. The
			// answer stands, untrusted (unheldText), and the search
			// does not step down on noise.
			s.settle(p, Undecided, snap)
			s.advance(snap)
			return
		}
		if v == Undecided {
			if !p.retry && p.capped == "" {
				// Asked again once: the same target and threads, a
				// fresh probe.
				s.settle(p, Undecided, snap)
				s.ask(p.TargetOpsSec, p.Threads, snap)
				s.cur.retry, s.cur.Role = true, p.Role
				return
			}
			v = Fail
			why := strings.TrimPrefix(p.Decided, "undecided: ")
			if p.capped != "" {
				p.Decided = "undecided, counted a fail: " + why + "; " + p.capped
			} else {
				p.Decided = "undecided twice, counted a fail: " + why
			}
		}
		s.settle(p, v, snap)
		s.advance(snap)
	}
}

// settle gives p its outcome v, takes it into the bracket and says it.
func (s *Search) settle(p *probe, v string, snap *engine.Snapshot) {
	p.Outcome, p.EndS = v, snap.Elapsed.Seconds()
	s.cur = nil
	s.b.record(p, s.spec)
	s.say("find-max probe " + rundata.ProbeLine(p.Probe))
}

// advance asks for the next probe, or the next thread count's search,
// or ends the search. A bracket that closed has its deciding failure
// asked again with twice the threads when they may have been the limit,
// then its answer held, before the answer is given.
func (s *Search) advance(snap *engine.Snapshot) {
	if s.threadsAtOnce(snap) {
		return
	}
	if r, ok := s.b.next(s.spec); ok {
		s.ask(r, s.b.threads, snap)
		return
	}
	if s.b.outcome == Answer && (s.testThreads(snap) || s.hold(snap)) {
		return
	}
	s.nextBracket(snap)
}

// nextBracket starts the next thread count's search, or ends the search
// after the last.
func (s *Search) nextBracket(snap *engine.Snapshot) {
	if len(s.spec.Threads) > 0 {
		s.say(fmt.Sprintf("find-max, threads %d: %s", s.b.threads, s.b.result(s.spec).Answer))
	}
	if i := len(s.brackets); i < len(s.spec.Threads) {
		s.b = s.newBracket(i, snap.Time)
		s.ask(0, s.b.threads, snap)
		return
	}
	s.finish(snap, "", true)
}

// endBracket ends the current thread count's search early (why:
// "budget", "stopped" or an error), the probe in progress unjudged.
func (s *Search) endBracket(snap *engine.Snapshot, why string) {
	if p := s.cur; p != nil {
		s.cur = nil
		p.Outcome, p.EndS = Unjudged, snap.Elapsed.Seconds()
		if p.Decided == "" {
			p.Decided = "the search ended (" + why + ")"
		}
		s.b.probes = append(s.b.probes, p)
	}
	s.paused = nil
	s.b.end(why)
	if why == "budget" {
		s.nextBracket(snap)
		return
	}
	s.finish(snap, why, why != "stopped")
}

// finish ends the search: an unfinished bracket ends with why, the
// report is made, and with stopRun the run is stopped.
func (s *Search) finish(snap *engine.Snapshot, why string, stopRun bool) {
	if s.done {
		return
	}
	if s.b.outcome == "" {
		if p := s.cur; p != nil {
			s.cur = nil
			p.Outcome, p.EndS = Unjudged, snap.Elapsed.Seconds()
			p.Decided = "the run ended"
			s.b.probes = append(s.b.probes, p)
		}
		s.b.end(why)
	}
	s.done = true
	s.final = s.report(snap.Time)
	s.say("find-max: " + s.final.Answer)
	if stopRun {
		s.ctl.do(stop)
	}
}

// ask asks for a probe at rate with threads (0: the run's own), from the
// controls in force at snap.
func (s *Search) ask(rate float64, threads int, snap *engine.Snapshot) {
	var exp []expectation
	th := snap.Threads
	if threads > 0 && threads != snap.Threads {
		s.ctl.do(setThreads(threads))
		exp = append(exp, expectation{"threads", strconv.Itoa(threads)})
		th = threads
	}
	if rate != snap.Target {
		s.ctl.do(setTarget(rate))
		exp = append(exp, expectation{"target", engine.FormatTarget(rate)})
	} else if len(exp) == 0 {
		s.ctl.do(newSegment)
		exp = append(exp, expectation{"segment", ""})
	}
	s.n++
	prev := s.cur
	if prev == nil && s.b != nil && len(s.b.probes) > 0 {
		prev = s.b.probes[len(s.b.probes)-1]
	}
	s.cur = newProbe(s.n, th, rate, exp)
	if prev != nil {
		s.cur.drain = min(prev.maxService(), maxDrain*snap.Interval)
	}
}

// maxDrain is the most intervals a probe leaves out after its transition
// for the previous probe's backlog to drain.
const maxDrain = MinIntervals

func (s *Search) say(line string) {
	if s.tell != nil {
		s.tell(line)
	}
}

// report is the search's outcome at now: the best thread count's answer,
// each one's, every probe.
func (s *Search) report(now time.Time) *Report {
	r := &Report{Conditions: s.spec.Exprs(), Precision: s.spec.Precision, BudgetS: s.spec.Budget.Seconds(),
		ElapsedS: now.Sub(s.start).Seconds()}
	best := -1
	var results []Result
	for i, b := range s.brackets {
		res := b.result(s.spec)
		if b.outcome == "" && s.cur != nil && b == s.b {
			res.Outcome = Unfinished
		}
		results = append(results, res)
		if best < 0 || better(res, results[best]) {
			best = i
		}
		for _, p := range b.probes {
			r.Probes = append(r.Probes, p.Probe)
		}
	}
	if s.cur != nil {
		p := s.cur.Probe
		p.Outcome, p.Decided = Unjudged, "in progress"
		r.Probes = append(r.Probes, p)
	}
	if best >= 0 {
		r.CapacityResult = results[best]
	}
	if len(s.spec.Threads) > 0 {
		r.PerThreads = results
		if best >= 0 && r.Outcome == Answer {
			r.Answer = fmt.Sprintf("best at %d threads: %s", r.Threads, r.Answer)
		}
	}
	return r
}

// better reports whether a is a better answer than b: an answer over
// none, then the higher rate.
func better(a, b Result) bool {
	if (a.Outcome == Answer) != (b.Outcome == Answer) {
		return a.Outcome == Answer
	}
	if a.RateOpsSec == nil || b.RateOpsSec == nil {
		return a.RateOpsSec != nil
	}
	return *a.RateOpsSec > *b.RateOpsSec
}

// clientState is what the client's host showed in one interval.
type clientState struct {
	known, saturated bool
	cpu              float64 // percent of the cores benchtop may use (a fleet: the busiest agent's host)
	note             string
}

// hostFull is when the client is saturated besides its own CPU rule: the
// host's CPU full, whoever fills it. A database or another load on the
// client's cores starves benchtop's threads of CPU: they start and end
// operations late, which shows as latency however little benchtop itself
// uses (measured on sim with 0.5 ms of client work per operation on a
// shared 2-core host: latency blew up at 650 ops/s, benchtop at 20 % of
// its cores, against a model of 20,000 ops/s).
const hostFull = 95

// client is the client's state in snap's interval: its CPU (the engine's
// client-bottleneck rule), its host's CPU shared with another load, its
// NIC; a fleet's busiest agent host.
func client(snap *engine.Snapshot) clientState {
	var c clientState
	if len(snap.Agents) > 0 {
		for _, a := range snap.Agents {
			if a.CPU < 0 || (a.State != "running" && a.State != "late") {
				continue
			}
			if !c.known || a.CPU > c.cpu {
				c.known, c.cpu = true, a.CPU
				if a.CPU >= engine.ClientCPUBusy {
					c.saturated, c.note = true, fmt.Sprintf("agent %s's host CPU %.0f %%", a.Name, a.CPU)
				}
			}
		}
		return c
	}
	hs := snap.Host
	if pct, cores, ok := engine.ClientCPU(hs); ok {
		c.known, c.cpu = true, pct
		switch {
		case pct >= engine.ClientCPUBusy:
			c.saturated, c.note = true, fmt.Sprintf("benchtop's CPU %.0f %% of its %d cores", min(pct, 100), cores)
		case hs.CPUTotal >= hostFull:
			c.saturated, c.note = true, fmt.Sprintf("the host's CPU %.0f %%, benchtop's %.0f %% of its %d cores: another load shares them", hs.CPUTotal, pct, cores)
		}
	}
	for _, n := range hs.NICs {
		if u := n.Utilisation(); !n.Loopback && u >= engine.ClientNICFull {
			c.saturated, c.note = true, fmt.Sprintf("NIC %s at %.0f %% of its link", n.Name, 100*u)
		}
	}
	return c
}
