package marks

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// row is a qualified row: 10 steady intervals at rate, p99 p99, its own
// configuration (threads).
func row(threads int, rate float64, p99 time.Duration) Row {
	return Row{Rate: rate, Intervals: 10, Ops: int64(rate * 11), P99: p99, HasLatency: true, Config: "threads " + strconv.Itoa(threads)}
}

func indexed(rows ...Row) []Row {
	for i := range rows {
		rows[i].Index = i + 1
	}
	return rows
}

func TestDecide(t *testing.T) {
	t.Parallel()
	us := time.Microsecond
	short := func(r Row, n int) Row { r.Intervals = n; return r }
	failing := func(r Row, share float64) Row { r.ErrorRate = share; return r }
	outage := Row{Rate: 0, Intervals: 5, Ops: 100000, ErrorRate: 1, Config: "threads 4"}
	stalled := func(r Row) Row { r.Stalls = 1; return r }
	paused := Row{Paused: true, Intervals: 5, Config: "threads 4"}
	cases := []struct {
		name           string
		rows           []Row
		best, knee     int // -1: none
		kneeFrom       int
		states         []State
		note           string // a part of Decision.Note
		wantNoteAbsent bool
	}{
		{name: "the fastest qualified row is best", rows: indexed(row(1, 1e6, 10*us), row(2, 1.5e6, 11*us), row(4, 1.2e6, 12*us)),
			best: 1, knee: -1, kneeFrom: -1, wantNoteAbsent: true},
		{name: "one row: nothing to compare", rows: indexed(row(1, 1e6, 10*us)), best: -1, knee: -1, kneeFrom: -1,
			states: []State{Qualified}, wantNoteAbsent: true},
		{name: "a faster row too short to judge leaves best undecided",
			rows: indexed(short(row(1, 1.98e6, 10*us), 2), row(2, 1.9e6, 10*us), row(4, 1.96e6, 11*us)), best: -1, knee: -1, kneeFrom: -1,
			states: []State{TooShort, Qualified, Qualified},
			note:   "segment 1 was faster (1,980,000 ops/s) but held only 2 steady intervals (3 needed)"},
		{name: "one qualified row among several: no marks",
			rows: indexed(short(row(1, 1e6, 10*us), 2), row(2, 1.5e6, 10*us), short(row(4, 1.2e6, 90*us), 0)), best: -1, knee: -1, kneeFrom: -1,
			states: []State{TooShort, Qualified, TooShort}, note: "1 of 3 qualifies"},
		{name: "a faster row with 4 % errors leaves best undecided",
			rows: indexed(row(1, 1e6, 10*us), failing(row(2, 3e6, 10*us), 0.041), row(4, 1.1e6, 10*us)), best: -1, knee: -1, kneeFrom: -1,
			states: []State{Qualified, Errors, Qualified}, note: "segment 2 was faster (3,000,000 ops/s) but 4.1 % of its operations failed"},
		{name: "exactly 1 % errors is judged", rows: indexed(row(1, 1e6, 10*us), failing(row(2, 3e6, 10*us), MaxErrorRate)),
			best: 1, knee: -1, kneeFrom: -1, states: []State{Qualified, Qualified}},
		{name: "an outage is never knee nor best, and its missing latency is not read as 0",
			rows: indexed(row(1, 30000, 300*us), row(2, 31000, 320*us), outage, row(8, 29000, 2000*us)), best: 1, knee: 3, kneeFrom: 1,
			states: []State{Qualified, Qualified, Errors, Qualified}},
		{name: "a stalled row is not judged, and if faster blocks best",
			rows: indexed(row(1, 1e6, 10*us), stalled(row(2, 2e6, 10*us)), row(4, 1.5e6, 10*us)), best: -1, knee: -1, kneeFrom: -1,
			states: []State{Qualified, Stalled, Qualified}, note: "stalled (no operation completed) in 1 interval"},
		{name: "a paused row is shown as such", rows: indexed(row(1, 1e6, 10*us), paused, row(1, 1.1e6, 10*us)), best: 2, knee: -1, kneeFrom: -1,
			states: []State{Qualified, Paused, Qualified}},
		{name: "knee: p99 grows faster than the rate", rows: indexed(row(1, 1e6, 10*us), row(2, 1.8e6, 11*us), row(4, 2e6, 40*us), row(8, 2.1e6, 200*us)),
			best: 3, knee: 2, kneeFrom: 1},
		{name: "a p99 that comes back down was a hiccup, not the knee",
			rows: indexed(row(1, 1400, 128*us), row(2, 1489, 247*us), row(3, 1652, 121*us), row(4, 1798, 54*us), row(5, 1738, 184*us),
				row(6, 2007, 172*us), row(7, 1861, 325*us)), best: 5, knee: 4, kneeFrom: 3},
		{name: "a row of no steady interval (the instant before a sweep's first step) does not block best",
			rows: indexed(short(row(1, 5e6, 10*us), 0), row(2, 1e6, 10*us), row(3, 1.5e6, 12*us)), best: 2, knee: -1, kneeFrom: -1,
			states: []State{TooShort, Qualified, Qualified}, wantNoteAbsent: true},
		{name: "a row of no steady interval held half an interval or more blocks best",
			rows: indexed(row(1, 1e6, 10*us), row(2, 1.4e6, 10*us), func() Row { r := short(row(4, 1.5e6, 10*us), 0); r.Held = true; return r }()),
			best: -1, knee: -1, kneeFrom: -1, states: []State{Qualified, Qualified, TooShort},
			note: "segment 3 was faster (1,500,000 ops/s) but held no steady interval"},
		{name: "a mark alone is no knee", rows: indexed(row(4, 1e6, 10*us), row(4, 1e6, 40*us)), best: 0, knee: -1, kneeFrom: -1},
		{name: "every row too short", rows: indexed(short(row(1, 1e6, 10*us), 2), short(row(2, 1e6, 10*us), 2)), best: -1, knee: -1, kneeFrom: -1,
			states: []State{TooShort, TooShort}, note: "none of 2 qualifies"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Decide(c.rows, "ops/s", "segment")
			if v.Best != c.best || v.Knee != c.knee || v.KneeFrom != c.kneeFrom {
				t.Errorf("best %d knee %d from %d, want %d %d %d (note %q)", v.Best, v.Knee, v.KneeFrom, c.best, c.knee, c.kneeFrom, v.Note)
			}
			for i, s := range c.states {
				if v.States[i] != s {
					t.Errorf("row %d: state %q (%s), want %q", i+1, v.States[i], v.Notes[i], s)
				}
				if (s == Qualified) != (v.Notes[i] == "") {
					t.Errorf("row %d: state %q with note %q", i+1, v.States[i], v.Notes[i])
				}
			}
			if c.note != "" && !strings.Contains(v.Note, c.note) {
				t.Errorf("note %q, want it to say %q", v.Note, c.note)
			}
			if c.wantNoteAbsent && v.Note != "" {
				t.Errorf("note %q, want none", v.Note)
			}
		})
	}
}

// A mark-only change (same configuration) is equal figures: no best is
// undecided for equal rates, as neither is faster.
func TestEqualRatesNeedNoNote(t *testing.T) {
	t.Parallel()
	v := Decide(indexed(row(4, 1e6, 10*time.Microsecond), row(4, 1e6, 10*time.Microsecond)), "ops/s", "segment")
	if v.Best != 0 || v.Note != "" {
		t.Errorf("best %d note %q, want the first and no note", v.Best, v.Note)
	}
}

// withCI gives a row intervals of ±rw (rate) and ±pw (p99) relative.
func withCI(r Row, rw, pw float64) Row {
	r.RateLow, r.RateHigh = r.Rate*(1-rw), r.Rate*(1+rw)
	r.P99Low, r.P99High = time.Duration(float64(r.P99)*(1-pw)), time.Duration(float64(r.P99)*(1+pw))
	return r
}

// controls gives a row its controls.
func controls(r Row, threads int, target float64) Row {
	r.HasControls, r.Threads, r.Partitions, r.Target = true, threads, 1, target
	r.Config = "threads " + strconv.Itoa(threads) + ", target " + strconv.FormatFloat(target, 'f', -1, 64)
	return r
}

// Best and knee only beyond the noise: two segments whose rate intervals
// overlap leave best undecided, "within noise"; a p99 that grew 3 times
// within wide intervals is no knee; the same rows with narrow intervals
// are marked.
func TestMarksBeyondNoise(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	a := controls(row(8, 152, 214*ms), 8, 0)
	b := controls(row(64, 157, 587*ms), 64, 0)
	v := Decide(indexed(withCI(a, 0.10, 0.5), withCI(b, 0.05, 0.5)), "ops/s", "segment")
	if v.Best != -1 || !strings.Contains(v.Note, "best undecided: within noise (±10 %)") {
		t.Errorf("overlapping rates: best %d, note %q; want undecided within noise (±10 %%)", v.Best, v.Note)
	}
	if v.Knee != -1 || !strings.Contains(v.Note, "knee undecided: within noise") {
		t.Errorf("p99 214ms (±50 %%) to 587ms (±50 %%): knee %d, note %q; want undecided within noise", v.Knee, v.Note)
	}
	v = Decide(indexed(withCI(a, 0.01, 0.1), withCI(b, 0.01, 0.1)), "ops/s", "segment")
	if v.Best != 1 || v.Knee != 1 || v.KneeFrom != 0 || v.Note != "" {
		t.Errorf("narrow intervals: best %d knee %d from %d note %q; want 1 1 0 and no note", v.Best, v.Knee, v.KneeFrom, v.Note)
	}
}

// Marks compare rows that differ in one control only: a change from
// unlimited to paced starts a new comparison, so the first paced row is
// no knee against the unlimited ones; a change of another control
// compares from the row before it.
func TestMarksCompareOneControl(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	rows := indexed(
		controls(row(4, 1000, 1*ms), 4, 0),
		controls(row(8, 1500, 1*ms), 8, 0),
		controls(row(8, 900, 5*ms), 8, 900), // paced: a new comparison
		controls(row(8, 950, 5*ms), 8, 950),
	)
	v := Decide(rows, "ops/s", "segment")
	if v.Knee == 2 {
		t.Errorf("the first paced row is a knee against an unlimited one")
	}
	if v.Best != 3 {
		t.Errorf("best %d, want 3: the paced comparison's (the latest with two qualified rows)", v.Best)
	}
	// A change of partitions after a threads sweep: rows 2 and 3 are
	// compared (they differ in partitions only), row 1 is not.
	p := controls(row(8, 1200, 3*ms), 8, 0)
	p.Partitions, p.Config = 2, "threads 8, partitions 2"
	v = Decide(indexed(controls(row(4, 2000, 1*ms), 4, 0), controls(row(8, 1000, 1*ms), 8, 0), p), "ops/s", "segment")
	if v.Best != 2 || v.Knee != 2 || v.KneeFrom != 1 {
		t.Errorf("best %d knee %d from %d; want 2 2 1 (partitions 1 vs 2 at 8 threads)", v.Best, v.Knee, v.KneeFrom)
	}
}

// A knee candidate within the noise is passed over for a later one
// beyond it; the note stays only when none is.
func TestKneeBeyondNoiseLater(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	rows := indexed(
		withCI(controls(row(64, 144, 240*ms), 64, 144), 0.02, 0.14),
		withCI(controls(row(64, 158, 404*ms), 64, 160), 0.08, 0.37), // 1.7 times, within the noise
		withCI(controls(row(64, 164, 876*ms), 64, 176), 0.07, 0.10), // beyond it
	)
	v := Decide(rows, "ops/s", "segment")
	if v.Knee != 2 || v.KneeFrom != 1 || strings.Contains(v.Note, "knee undecided") {
		t.Errorf("knee %d from %d, note %q; want 2 from 1, no knee note", v.Knee, v.KneeFrom, v.Note)
	}
	v = Decide(rows[:2], "ops/s", "segment")
	if v.Knee != -1 || !strings.Contains(v.Note, "knee undecided: within noise (±37 %): segment 2's p99 240ms to 404ms") {
		t.Errorf("knee %d, note %q; want undecided, within noise", v.Knee, v.Note)
	}
}
