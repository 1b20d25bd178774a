package engine

import (
	"time"

	"benchtop/engine/measure"
)

// SeriesUnit is one unit of the timeseries measurement type: the mean
// latency of the operations that ended in it, as YCSB's
// OneMeasurementTimeSeries exports it ([READ], 3000, 412.5).
type SeriesUnit struct {
	Offset time.Duration // the unit's start from the phase start, a multiple of the granularity
	Mean   time.Duration
}

// seriesUnits accumulates the timeseries measurement type: per histogram
// slot, the latency sum and count of every unit of granularity since the
// phase start. Units are made of whole intervals (readOutput checks that
// the granularity is a multiple of the interval).
type seriesUnits struct {
	gran  time.Duration
	slots [measure.NumSlots][]unitSum
}

type unitSum struct {
	sum   float64 // ns
	count int64
}

// add adds one interval that started at offset from the phase start.
func (s *seriesUnits) add(offset time.Duration, set *measure.Set) {
	u := int(offset / s.gran)
	for slot, h := range set.H {
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		for len(s.slots[slot]) <= u {
			s.slots[slot] = append(s.slots[slot], unitSum{})
		}
		acc := &s.slots[slot][u]
		acc.sum += h.Mean() * float64(h.TotalCount())
		acc.count += h.TotalCount()
	}
}

// units returns each slot's units that saw operations.
func (s *seriesUnits) units() [measure.NumSlots][]SeriesUnit {
	var out [measure.NumSlots][]SeriesUnit
	for slot, sums := range s.slots {
		for u, acc := range sums {
			if acc.count > 0 {
				out[slot] = append(out[slot], SeriesUnit{Offset: time.Duration(u) * s.gran, Mean: time.Duration(acc.sum / float64(acc.count))})
			}
		}
	}
	return out
}
