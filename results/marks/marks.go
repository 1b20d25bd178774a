// Package marks decides best and knee over a table of configurations
// held: the engine's segments, and the stream's scenarios. It is the one
// implementation of those rules: the screen, the text report, the JSON,
// the HTML page and the stream's table all show what Decide decided, so
// that the same data gives the same marks everywhere.
//
// The rules (docs/whatif.md, "How benchtop decides best and knee"):
//   - A row is judged only when it is qualified: at least MinIntervals
//     steady intervals (the first interval after a change is the
//     transition and never counts), at most MaxErrorRate of its
//     operations failed, no stall (an interval in which no operation
//     completed) and no pause. Any other row keeps a State saying why
//     not, and a Note in words.
//   - Marks need at least two qualified rows, and compare rows that
//     differ in one control only (comparisons): a change of another
//     control starts a new comparison from the row before it, a change
//     between unlimited and paced or of two controls at once from the
//     row itself; the latest comparison with two qualified rows is
//     marked.
//   - Beyond the noise: best only when its rate's 95 % interval lies
//     above every other qualified row's of its comparison, the knee only
//     where p99's interval lies above the previous row's (a candidate
//     within the noise is passed over for a later one beyond it); otherwise
//     Decision.Note says "undecided: within noise (±x %)". Rows without
//     intervals (zero) are judged on their figures alone.
//   - Best is the qualified row of the highest rate (successful
//     operations, or rows consumed), unless another row, qualified or
//     not, shows a higher rate over a steady interval at least: then best
//     is undecided, and Decision.Note says which row was faster and why it
//     could not be judged.
//   - Knee: the first qualified row whose p99 grew by 20 % or more, and
//     faster than its rate, against the previous qualified row of another
//     configuration (a mark changes nothing, so it cannot be a knee), and
//     stayed grown: no later qualified row's p99 is back under 1.2 times
//     the previous row's (a p99 that comes back down was a hiccup of the
//     machine). Rows without latency (nothing succeeded) are skipped,
//     never read as 0. KneeFrom is that previous row: the capacity a plan
//     can rely on.
package marks

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"benchtop/rundata"
)

// The rules' limits.
const (
	// MinIntervals is how many steady intervals (after the first one)
	// a row must hold to be judged.
	MinIntervals = 3
	// MaxErrorRate is the share of failed operations above which a row
	// is not judged: failed operations are not throughput.
	MaxErrorRate = 0.01
	// kneeGrowth is how much p99 must grow (and faster than the rate)
	// to make a knee.
	kneeGrowth = 1.2
)

// State is what the rules made of a row (the contract's, so that a
// Snapshot's segments carry it without importing the rules).
type State = rundata.SegmentState

// The states of a row.
const (
	Qualified = rundata.Qualified
	TooShort  = rundata.TooShort
	Errors    = rundata.Errors
	Stalled   = rundata.Stalled
	Paused    = rundata.Paused
	Empty     = rundata.Empty
)

// Row is what the rules need of one configuration held.
type Row struct {
	Index     int     // 1-based, as the tables show it
	Rate      float64 // successful operations (or rows) per second
	Intervals int     // steady intervals
	Ops       int64   // operations attempted, successful or failed (0: empty)
	ErrorRate float64 // share of failed operations, 0-1
	Stalls    int     // steady intervals in which no operation completed
	Paused    bool
	// P99 is valid when HasLatency: something succeeded (a row without
	// latency is skipped by the knee rule).
	P99        time.Duration
	HasLatency bool
	// Config names the configuration (threads, partitions, target):
	// rows of one configuration are never a knee against each other.
	Config string
	// Held is true when the row was held long enough for its rate to
	// stand for one though it holds no steady interval: at least half a
	// status interval (the rule a phase's short last interval is judged
	// by). A row of neither, the instant before a sweep's first step,
	// cannot show a faster configuration.
	Held bool
	// RateLow and RateHigh bound Rate, P99Low and P99High bound P99:
	// 95 % confidence intervals (results/ci). Zero: unknown, the figure
	// alone counts.
	RateLow, RateHigh float64
	P99Low, P99High   time.Duration
	// Threads, Partitions and Target are the row's controls when
	// HasControls: marks compare rows that differ in one control only
	// (see comparisons).
	HasControls bool
	Threads     int
	Partitions  int
	Target      float64
}

// rate is the row's rate interval (the figure alone when unknown).
func (r Row) rate() (lo, hi float64) {
	if r.RateLow == 0 && r.RateHigh == 0 {
		return r.Rate, r.Rate
	}
	return min(r.RateLow, r.Rate), max(r.RateHigh, r.Rate)
}

// p99 is the row's p99 interval (the figure alone when unknown).
func (r Row) p99() (lo, hi time.Duration) {
	if r.P99Low == 0 && r.P99High == 0 {
		return r.P99, r.P99
	}
	return min(r.P99Low, r.P99), max(r.P99High, r.P99)
}

// changed names the controls in which r differs from prev, and whether
// one of them is paced against unlimited.
func changed(prev, r Row) (names []string, paced bool) {
	if prev.Threads != r.Threads {
		names = append(names, "threads")
	}
	if prev.Partitions != r.Partitions {
		names = append(names, "partitions")
	}
	if prev.Target != r.Target {
		names = append(names, "target")
	}
	return names, (prev.Target > 0) != (r.Target > 0)
}

// comparisons splits rows into the runs of rows that differ in one
// control only (each [start, end) of row indexes): a change of another
// control starts a new comparison from the row before it (the two differ
// in that control only); a change between unlimited and paced, or of two
// controls at once, starts one from the row itself. A row of the same
// controls (a mark, a new segment) stays in its comparison. Rows without
// controls are one comparison.
func comparisons(rows []Row) [][2]int {
	var out [][2]int
	start, dim := 0, ""
	for i := 1; i < len(rows); i++ {
		if !rows[i].HasControls || !rows[i-1].HasControls {
			continue
		}
		names, paced := changed(rows[i-1], rows[i])
		switch {
		case len(names) == 0:
		case paced || len(names) > 1:
			out = append(out, [2]int{start, i})
			start, dim = i, ""
		case dim == "" || dim == names[0]:
			dim = names[0]
		default:
			out = append(out, [2]int{start, i})
			start, dim = i-1, names[0]
		}
	}
	return append(out, [2]int{start, len(rows)})
}

// Decision is what Decide decided for a table.
type Decision struct {
	States []State  // one per row
	Notes  []string // one per row: why it was not judged ("" when qualified)
	// Best, Knee and KneeFrom index the rows; -1: none.
	Best, Knee, KneeFrom int
	// Note says, when there are two rows or more and no best, why best
	// is undecided ("segment 1 was faster but held only 2 steady
	// intervals"); "" otherwise.
	Note string
}

// Judge gives one row's state and, when it is not qualified, why.
func Judge(r Row) (State, string) {
	switch {
	case r.Paused:
		return Paused, "was paused"
	case r.Ops == 0 && r.Rate == 0:
		return Empty, "ran no operation"
	case r.ErrorRate > MaxErrorRate:
		return Errors, pct(r.ErrorRate) + " of its operations failed"
	case r.Stalls > 0:
		return Stalled, "stalled (no operation completed) in " + plural(r.Stalls, "interval")
	case r.Intervals < MinIntervals:
		if r.Intervals == 0 {
			return TooShort, fmt.Sprintf("held no steady interval (%d needed)", MinIntervals)
		}
		return TooShort, fmt.Sprintf("held only %s (%d needed)", plural(r.Intervals, "steady interval"), MinIntervals)
	}
	return Qualified, ""
}

// Decide applies the rules to rows, in the order they ran. unit names
// the rate in notes ("ops/s", "rows/s"); what names a row ("segment").
func Decide(rows []Row, unit, what string) Decision {
	v := Decision{Best: -1, Knee: -1, KneeFrom: -1, States: make([]State, len(rows)), Notes: make([]string, len(rows))}
	var qualified []int
	for i, r := range rows {
		v.States[i], v.Notes[i] = Judge(r)
		if v.States[i] == Qualified {
			qualified = append(qualified, i)
		}
	}
	if len(rows) < 2 {
		return v
	}
	// The marks are the latest comparison's that has two qualified rows.
	if cs := comparisons(rows); len(cs) > 1 {
		for k := len(cs) - 1; k >= 0; k-- {
			var in []int
			for _, i := range qualified {
				if i >= cs[k][0] && i < cs[k][1] {
					in = append(in, i)
				}
			}
			if len(in) >= 2 {
				qualified = in
				rows = rows[:cs[k][1]]
				lo := cs[k][0]
				decideIn(&v, rows, qualified, lo, unit, what)
				return v
			}
		}
	}
	if len(qualified) < 2 {
		v.Note = fmt.Sprintf("best and knee undecided: they need two %ss of at least %s, at most %s failed, no stall and no pause; %s",
			what, plural(MinIntervals, "steady interval"), pct(MaxErrorRate), qualifiedText(len(qualified), len(rows)))
		return v
	}
	decideIn(&v, rows, qualified, 0, unit, what)
	return v
}

// decideIn marks best and knee among rows[lo:] (qualified indexes them
// in rows), the comparison judged.
func decideIn(v *Decision, rows []Row, qualified []int, lo int, unit, what string) {
	best := qualified[0]
	for _, i := range qualified[1:] {
		if rows[i].Rate > rows[best].Rate {
			best = i
		}
	}
	faster := -1
	for i, r := range rows {
		if i < lo {
			continue
		}
		// A row of no steady interval held for less than half an interval
		// has no rate to compare (the instant before a sweep's first
		// step, a few ms): it cannot show a faster configuration. One
		// held longer can, over its whole time (a 0.5 s segment at
		// 1,484 ops/s beside a best of 1,400).
		if i != best && (r.Intervals > 0 || r.Held) && r.Rate > rows[best].Rate && (faster < 0 || r.Rate > rows[faster].Rate) {
			faster = i
		}
	}
	// Best only beyond the noise: its rate's interval lies above every
	// other qualified row's.
	bLo, _ := rows[best].rate()
	near := -1
	for _, i := range qualified {
		known := rows[i].RateHigh > 0 || rows[best].RateLow > 0 // a figure alone ties no rate
		if _, hi := rows[i].rate(); i != best && known && hi >= bLo && (near < 0 || rows[i].Rate > rows[near].Rate) {
			near = i
		}
	}
	switch {
	case faster >= 0:
		v.Note = fmt.Sprintf("best undecided: %s %d was faster (%s %s) but %s", what, rows[faster].Index,
			count(rows[faster].Rate), unit, v.Notes[faster])
	case near >= 0:
		v.Note = fmt.Sprintf("best undecided: within noise (±%s): %ss %d and %d overlap", noise(rows[best], rows[near]),
			what, rows[best].Index, rows[near].Index)
	default:
		v.Best = best
	}
	var timed []int // the qualified rows with latency, in order
	for _, i := range qualified {
		if rows[i].HasLatency {
			timed = append(timed, i)
		}
	}
	// The first knee beyond the noise; a candidate within it is passed
	// over (and said, when no later one is beyond it).
	undecided := ""
	for k := 1; k < len(timed); k++ {
		prev, i := timed[k-1], timed[k]
		if isKnee(rows, prev, i, timed[k+1:]) {
			if _, pHi := rows[prev].p99(); beyond(rows[i], pHi) {
				v.Knee, v.KneeFrom = i, prev
				return
			}
			if undecided == "" {
				undecided = fmt.Sprintf("knee undecided: within noise (±%s): %s %d's p99 %s to %s", p99Noise(rows[prev], rows[i]),
					what, rows[i].Index, sig3(rows[prev].P99), sig3(rows[i].P99))
			}
		}
	}
	if undecided != "" {
		v.Note = strings.TrimPrefix(v.Note+"; "+undecided, "; ")
	}
}

// sig3 is a duration to 3 significant digits: 214.7ms → 215ms.
func sig3(d time.Duration) time.Duration {
	unit := time.Duration(1)
	for d/unit >= 1000 {
		unit *= 10
	}
	return d.Round(unit)
}

// beyond reports whether r's p99 interval lies wholly above hi.
func beyond(r Row, hi time.Duration) bool {
	lo, _ := r.p99()
	return lo > hi
}

// noise is the larger relative half-width of two rows' rate intervals:
// "4.1 %".
func noise(a, b Row) string {
	w := 0.0
	for _, r := range []Row{a, b} {
		lo, hi := r.rate()
		if r.Rate > 0 {
			w = math.Max(w, math.Max(r.Rate-lo, hi-r.Rate)/r.Rate)
		}
	}
	return pct(w)
}

// p99Noise is the same for p99.
func p99Noise(a, b Row) string {
	w := 0.0
	for _, r := range []Row{a, b} {
		lo, hi := r.p99()
		if r.P99 > 0 {
			w = math.Max(w, float64(max(r.P99-lo, hi-r.P99))/float64(r.P99))
		}
	}
	return pct(w)
}

// isKnee tells whether row i is a knee against row prev: another
// configuration, p99 up by kneeGrowth or more and faster than the rate,
// and the growth holds in every later row (later): a p99 that comes back
// down was a hiccup of the machine, not the knee.
func isKnee(rows []Row, prev, i int, later []int) bool {
	p, r := rows[prev], rows[i]
	if p.Config == r.Config || p.P99 <= 0 || p.Rate <= 0 {
		return false
	}
	p99Ratio := float64(r.P99) / float64(p.P99)
	if p99Ratio < kneeGrowth || p99Ratio <= r.Rate/p.Rate {
		return false
	}
	for _, j := range later {
		if float64(rows[j].P99) < kneeGrowth*float64(p.P99) {
			return false
		}
	}
	return true
}

func qualifiedText(n, of int) string {
	switch n {
	case 0:
		return fmt.Sprintf("none of %d qualifies", of)
	case 1:
		return fmt.Sprintf("1 of %d qualifies", of)
	}
	return fmt.Sprintf("%d of %d qualify", n, of)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// pct renders a share as a percentage: 1 %, 4.1 %, 100 %.
func pct(share float64) string {
	p := share * 100
	if p >= 10 || p == math.Trunc(p) {
		return strconv.FormatFloat(math.Round(p), 'f', 0, 64) + " %"
	}
	return strconv.FormatFloat(p, 'f', 1, 64) + " %"
}

// count renders a rate with thousands separators: 1,980,512.
func count(rate float64) string {
	s := strconv.FormatInt(int64(math.Round(rate)), 10)
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	var out []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	if neg {
		return "-" + string(out)
	}
	return string(out)
}
