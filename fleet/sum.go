package fleet

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
)

// setSum adds the Sets of many agents' interval k into one, before the
// Assembler takes it: one addition per histogram instead of the
// Assembler's three (interval, run, segment) per agent. Histograms of one
// range and precision (the handshake made sure of it) add bucket by
// bucket, so they are summed as plain counts arrays, which is much
// cheaper than hdrhistogram-go's Merge (an iterator over every bucket);
// the result is the same histogram, bucket for bucket.
type setSum struct {
	acc  [measure.NumSlots][]int64
	used [measure.NumSlots]bool
	rest measure.Set // the counters: errors, causes, ops, integrity, lag
	n    int
	dec  v2Decoder
}

// add sums one Set in, and the histograms hists still encoded.
func (s *setSum) add(o *measure.Set, hists []encodedHist) error {
	s.n++
	for _, eh := range hists {
		if s.acc[eh.slot] == nil {
			s.acc[eh.slot] = make([]int64, countsLen)
		}
		if err := s.dec.addTo(s.acc[eh.slot], eh.data); err != nil {
			return err
		}
		s.used[eh.slot] = true
	}
	for slot, h := range o.H {
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		counts := h.Export().Counts
		if s.acc[slot] == nil || len(s.acc[slot]) != len(counts) {
			s.acc[slot] = make([]int64, len(counts))
		}
		acc := s.acc[slot]
		for i, c := range counts {
			acc[i] += c
		}
		s.used[slot] = true
	}
	// Everything but the histograms, by the Set's own rules (which count
	// out-of-range values only next to a histogram: added here).
	saved := o.H
	o.H = [measure.NumSlots]*hdr.Histogram{}
	s.rest.Merge(o)
	o.H = saved
	for slot, n := range o.OutOfRange {
		s.rest.OutOfRange[slot] += n
	}
	return nil
}

// take returns the sum and empties s for the next interval (its arrays
// are kept).
func (s *setSum) take() *measure.Set {
	r := &s.rest
	out := &measure.Set{OutOfRange: r.OutOfRange, Errors: r.Errors, Causes: r.Causes, Integrity: r.Integrity, Ops: r.Ops, MaxLag: r.MaxLag}
	for slot, used := range s.used {
		if !used {
			continue
		}
		out.H[slot] = hdr.Import(&hdr.Snapshot{LowestTrackableValue: measure.Lowest, HighestTrackableValue: measure.Highest,
			SignificantFigures: measure.Digits, Counts: s.acc[slot]})
		clear(s.acc[slot])
		s.used[slot] = false
	}
	s.rest = measure.Set{}
	s.n = 0
	return out
}
