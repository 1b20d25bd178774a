package engine

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
)

// PacerStats is the pacer's own precision over a phase: how late the
// paced operations actually started (actual start minus intended start,
// ns), and how many of them started without a wait because they were
// behind their schedule (due before their thread's previous operation
// ended: after a late wake-up, or behind a slow database). Latency from
// the intended start includes the lateness.
type PacerStats struct {
	Ops    int64          // paced operations
	Behind int64          // of them, due before the previous one ended
	Late   *hdr.Histogram // ns late, of every paced operation
}

// latenessHistogram's range: 1 ns to 10 s at 2 significant digits (27 KB:
// one per recorder, recorded under the recorder's lock). A lateness past
// 10 s is counted at 10 s.
func newLatenessHistogram() *hdr.Histogram { return hdr.New(1, 10e9, 2) }

// lateness is the pacer's lateness recorded by the workers that share one
// recorder, under that recorder's lock.
type lateness struct {
	h      *hdr.Histogram
	ops    int64
	behind int64
}

// record adds one paced operation: waited says it waited for its start
// (it was not behind), late is its start minus its intended start.
func (l *lateness) record(waited bool, late int64) {
	if l.h == nil {
		l.h = newLatenessHistogram()
	}
	l.ops++
	if !waited {
		l.behind++
	}
	_ = l.h.RecordValue(min(max(late, 1), 10e9))
}

// pacerStats merges the recorders' lateness (ls[i] is recorded under
// recs[i]'s lock: the workers may still be running when a phase is cut
// off); nil when no operation was paced.
func pacerStats(ls []lateness, recs []*measure.Recorder) *PacerStats {
	st := &PacerStats{}
	for i := range ls {
		recs[i].Lock()
		l := &ls[i]
		st.Ops += l.ops
		st.Behind += l.behind
		if l.h != nil {
			if st.Late == nil {
				st.Late = newLatenessHistogram()
			}
			st.Late.Merge(l.h)
		}
		recs[i].Unlock()
	}
	if st.Ops == 0 {
		return nil
	}
	return st
}
