package findmax

import (
	"time"

	"benchtop/engine"
)

// view is the search's state for the screens.
func (s *Search) view(snap *engine.Snapshot) *engine.SearchView {
	v := &engine.SearchView{Conditions: s.spec.Exprs(), Precision: s.spec.Precision, Budget: s.spec.Budget,
		Elapsed: snap.Time.Sub(s.start)}
	if s.done {
		v.Elapsed = time.Duration(s.final.ElapsedS * float64(time.Second))
	}
	if b := s.b; b != nil {
		v.Upper, v.Floor = b.upper, b.floor
		if b.lo != nil {
			v.Lo = b.lo.TargetOpsSec
		}
		if b.hi != nil {
			v.Hi = b.hi.rate()
		}
	}
	for _, b := range s.brackets {
		for _, p := range b.probes {
			v.Probes = append(v.Probes, probeView(p))
		}
	}
	if s.cur != nil {
		pv := probeView(s.cur)
		v.Current = &pv
	}
	if s.done {
		v.Done, v.Answer, v.Trusted = true, s.final.Answer, s.final.Trusted && s.final.Outcome == Answer
		for _, r := range s.final.Reasons {
			v.Reasons = append(v.Reasons, r.Text)
		}
	}
	return v
}

// probeView is a probe as the screens show it.
func probeView(p *probe) engine.ProbeView {
	pv := engine.ProbeView{N: p.N, Threads: p.Threads, Target: p.TargetOpsSec, Segment: p.Segment, Role: p.Role,
		State: p.Outcome, Intervals: p.Intervals, NeedIntervals: MinIntervals, Goodput: p.GoodputOpsSec, Decided: p.Decided}
	if p.needIntervals > 0 {
		pv.NeedIntervals = p.needIntervals // a hold's
	}
	if pv.State == "" {
		pv.State = p.state
	}
	pv.Ops, pv.NeedOps = p.evidenceOf()
	return pv
}

// mark sets the segments' best and knee by the verdicts: best the
// segment of the highest target that passed (its hold's once held), knee that of the lowest rate
// that failed above it, judged against best (KneeFrom). The engine's own
// rules (results/marks, on goodput alone) do not apply in this mode; the
// note says why best is undecided while no probe has passed.
func (s *Search) mark(snap *engine.Snapshot) {
	best, knee := 0, 0
	if b := s.bestBracket(); b != nil {
		if b.lo != nil {
			best = b.lo.Segment
			if h := b.heldBy(); h != nil && h.Segment > 0 {
				best = h.Segment // its hold: the longer evidence
			}
		}
		if b.hi != nil && b.lo != nil {
			knee = b.hi.Segment
		}
	}
	for i := range snap.Segments {
		g := &snap.Segments[i]
		g.Best = best > 0 && g.Index == best
		g.Knee = knee > 0 && g.Index == knee
		g.KneeFrom = 0
		if g.Knee {
			g.KneeFrom = best
		}
	}
	switch {
	case best > 0:
		snap.SegmentsNote = ""
	case s.done:
		snap.SegmentsNote = "no probe of the capacity search met its conditions"
	default:
		snap.SegmentsNote = "no probe of the capacity search has met its conditions yet"
	}
}

// bestBracket is the thread count whose answer is best so far (nil
// before any).
func (s *Search) bestBracket() *bracket {
	var best *bracket
	for _, b := range s.brackets {
		if b.lo == nil {
			continue
		}
		if best == nil || b.lo.TargetOpsSec > best.lo.TargetOpsSec {
			best = b
		}
	}
	return best
}
