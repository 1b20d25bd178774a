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
//   - Marks need at least two qualified rows.
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
	if len(qualified) < 2 {
		v.Note = fmt.Sprintf("best and knee undecided: they need two %ss of at least %s, at most %s failed, no stall and no pause; %s",
			what, plural(MinIntervals, "steady interval"), pct(MaxErrorRate), qualifiedText(len(qualified), len(rows)))
		return v
	}
	best := qualified[0]
	for _, i := range qualified[1:] {
		if rows[i].Rate > rows[best].Rate {
			best = i
		}
	}
	faster := -1
	for i, r := range rows {
		// A row of no steady interval held for less than half an interval
		// has no rate to compare (the instant before a sweep's first
		// step, a few ms): it cannot show a faster configuration. One
		// held longer can, over its whole time (a 0.5 s segment at
		// 1,484 ops/s beside a best of 1,400).
		if i != best && (r.Intervals > 0 || r.Held) && r.Rate > rows[best].Rate && (faster < 0 || r.Rate > rows[faster].Rate) {
			faster = i
		}
	}
	if faster < 0 {
		v.Best = best
	} else {
		v.Note = fmt.Sprintf("best undecided: %s %d was faster (%s %s) but %s", what, rows[faster].Index,
			count(rows[faster].Rate), unit, v.Notes[faster])
	}
	var timed []int // the qualified rows with latency, in order
	for _, i := range qualified {
		if rows[i].HasLatency {
			timed = append(timed, i)
		}
	}
	for k := 1; k < len(timed); k++ {
		prev, i := timed[k-1], timed[k]
		if isKnee(rows, prev, i, timed[k+1:]) {
			v.Knee, v.KneeFrom = i, prev
			break
		}
	}
	return v
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
