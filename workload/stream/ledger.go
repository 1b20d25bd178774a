package stream

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// A Ledger is one process's account of the stream's rows, for a verdict
// across processes that share one stream (the agents of a fleet, or
// standalone processes, in one Kafka consumer group: a row produced by
// process A may be delivered by process B, and again by C after a
// rebalance). Each process records every row it delivered, whoever
// produced it, and the rows its own producers wrote; Merge adds the
// ledgers of every process into one Verdict.
//
// A key is (origin, run, producer, key): the origin is the process
// (stream.origin, or a random one), the run its random run id (which
// tells apart two processes that drew one origin), the producer one of
// its producer threads, the key that producer's key index, whose rows are
// numbered 1, 2, 3, ... Delivered sequence numbers are kept as ranges:
// one range per key and partition while order holds, so a ledger stays
// small (a few ranges per key) however many rows were delivered. The
// positions (Kafka offsets) delivered are kept per partition, one range
// per contiguous run: a position delivered twice is a row delivered
// again (redelivered), not a row the stream holds twice (duplicated).
type Ledger struct {
	// Origin and Run are the process whose producers' counts this ledger
	// holds.
	Origin int    `json:"origin"`
	Run    uint32 `json:"run"`
	// Keys are the keys this process produced or delivered, sorted by
	// (origin, run, producer, key).
	Keys []KeyLedger `json:"keys"`
	// Positions are the positions this process delivered rows from, per
	// partition (streams whose readers have positions).
	Positions []PartitionPositions `json:"positions,omitempty"`
	// Corrupt counts delivered rows without a valid header.
	Corrupt int64 `json:"corrupt,omitempty"`
}

// KeyLedger is one key in one process's ledger.
type KeyLedger struct {
	Origin   int    `json:"o"`
	Run      uint32 `json:"r"`
	Producer uint32 `json:"p"`
	Key      uint32 `json:"k"`
	// Produced is the key's last sequence number handed to a Produce call
	// (only in its origin's ledger; 0 elsewhere).
	Produced uint32 `json:"n,omitempty"`
	// Failed are the seqs whose Produce call failed (origin's ledger):
	// they may or may not be in the stream, so they are not lost when
	// missing.
	Failed []uint32 `json:"f,omitempty"`
	// Delivered are the seq ranges this process delivered, per partition
	// in delivery order.
	Delivered []Range `json:"d,omitempty"`
	// OutOfOrder counts rows this process delivered after a higher seq of
	// the same key from the same partition (a duplicate is not counted).
	OutOfOrder int64 `json:"x,omitempty"`
}

// PartitionPositions are the positions one process delivered rows of a
// partition from.
type PartitionPositions struct {
	Partition int       `json:"p"`
	Delivered []Offsets `json:"d"`
}

// Range is the seqs Lo..Hi, both included. It encodes as [lo,hi].
type Range struct{ Lo, Hi uint32 }

// MarshalJSON encodes r as a two-number array.
func (r Range) MarshalJSON() ([]byte, error) { return json.Marshal([2]uint32{r.Lo, r.Hi}) }

// UnmarshalJSON decodes a two-number array.
func (r *Range) UnmarshalJSON(b []byte) error {
	var a []uint32
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("stream: ledger range: %w", err)
	}
	if len(a) != 2 {
		return fmt.Errorf("stream: ledger range %s: want [lo,hi]", b)
	}
	r.Lo, r.Hi = a[0], a[1]
	return nil
}

// Offsets are the positions Lo..Hi, both included. It encodes as [lo,hi].
type Offsets struct{ Lo, Hi int64 }

// MarshalJSON encodes o as a two-number array.
func (o Offsets) MarshalJSON() ([]byte, error) { return json.Marshal([2]int64{o.Lo, o.Hi}) }

// UnmarshalJSON decodes a two-number array.
func (o *Offsets) UnmarshalJSON(b []byte) error {
	var a []int64
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("stream: ledger positions: %w", err)
	}
	if len(a) != 2 || a[1] < a[0] {
		return fmt.Errorf("stream: ledger positions %s: want [lo,hi], lo <= hi", b)
	}
	o.Lo, o.Hi = a[0], a[1]
	return nil
}

// Verdict is the account of rows across every ledger merged: the group's.
type Verdict struct {
	Ledgers int `json:"ledgers"` // processes whose ledger was merged
	RowCounts
	// PerLedger is what each process produced and consumed, by origin.
	PerLedger []LedgerFigures `json:"per_ledger"`
	// SharedOrigins are origins that more than one process drew (told
	// apart by their run ids, so the verdict holds; said, not failed).
	SharedOrigins []int `json:"shared_origins,omitempty"`
}

// LedgerFigures are one process's rows in a Verdict.
type LedgerFigures struct {
	Origin   int    `json:"origin"`
	Run      uint32 `json:"run"`
	Produced int64  `json:"produced"`
	Consumed int64  `json:"consumed"`
}

// OK reports whether every row was delivered exactly once, in order
// (rows delivered again after a rebalance, redelivered, are no fault).
func (v Verdict) OK() bool {
	return v.Lost == 0 && v.Duplicated == 0 && v.OutOfOrder == 0 && v.Unknown == 0
}

// Problems are the verdict's failures, one line each (none when OK).
func (v Verdict) Problems() []string {
	var out []string
	if v.Lost > 0 {
		out = append(out, fmt.Sprintf("stream: %d rows lost across the group (produced and acknowledged, delivered by no process)", v.Lost))
	}
	if v.Duplicated > 0 {
		out = append(out, fmt.Sprintf("stream: %d rows delivered more than once across the group (besides %d redelivered after a rebalance)", v.Duplicated, v.Redelivered))
	}
	if v.OutOfOrder > 0 {
		out = append(out, fmt.Sprintf("stream: %d rows delivered out of order (after a later row of the same key in the same partition)", v.OutOfOrder))
	}
	if v.Unknown > 0 {
		out = append(out, fmt.Sprintf("stream: %d rows delivered that no merged process's producers wrote (corrupt, or a process's ledger is missing)", v.Unknown))
	}
	return out
}

type ledgerID struct {
	origin             int
	run, producer, key uint32
}

// process is one process of the group: its origin and run id.
type process struct {
	origin int
	run    uint32
}

type keyAcc struct {
	produced   uint32
	failed     []uint32
	ranges     []Range
	outOfOrder int64
}

// Merge adds ledgers into one verdict. A key's produced count comes from
// its process's ledger; its deliveries from all of them. A row delivered
// twice (anywhere) is redelivered when it came twice from one position
// (again after a rebalance), else duplicated; a produced row delivered
// nowhere is lost; nil ledgers are skipped.
func Merge(ledgers ...*Ledger) Verdict {
	var v Verdict
	keys := map[ledgerID]*keyAcc{}
	procs := map[process]bool{}
	runsOf := map[int]map[uint32]bool{}
	positions := map[int][]Offsets{}
	for _, l := range ledgers {
		if l == nil {
			continue
		}
		v.Ledgers++
		me := process{l.Origin, l.Run}
		procs[me] = true
		if runsOf[l.Origin] == nil {
			runsOf[l.Origin] = map[uint32]bool{}
		}
		runsOf[l.Origin][l.Run] = true
		v.Unknown += l.Corrupt
		fig := LedgerFigures{Origin: l.Origin, Run: l.Run}
		for i := range l.Keys {
			k := &l.Keys[i]
			id := ledgerID{k.Origin, k.Run, k.Producer, k.Key}
			a := keys[id]
			if a == nil {
				a = &keyAcc{}
				keys[id] = a
			}
			if (process{k.Origin, k.Run}) == me {
				a.produced = max(a.produced, k.Produced)
				a.failed = append(a.failed, k.Failed...)
				fig.Produced += int64(k.Produced) - int64(countUpTo(k.Failed, k.Produced))
			}
			a.ranges = append(a.ranges, k.Delivered...)
			a.outOfOrder += k.OutOfOrder
			for _, r := range k.Delivered {
				if r.Hi >= r.Lo {
					fig.Consumed += int64(r.Hi-r.Lo) + 1
				}
			}
		}
		for _, pp := range l.Positions {
			positions[pp.Partition] = append(positions[pp.Partition], pp.Delivered...)
		}
		v.PerLedger = append(v.PerLedger, fig)
	}
	sort.Slice(v.PerLedger, func(i, j int) bool {
		a, b := v.PerLedger[i], v.PerLedger[j]
		return a.Origin < b.Origin || a.Origin == b.Origin && a.Run < b.Run
	})
	for id, a := range keys {
		if !procs[process{id.origin, id.run}] {
			a.produced = 0 // nobody vouches for these rows
		}
		v.addKey(a)
	}
	for _, offs := range positions {
		v.Redelivered += deliveredTwice(offs)
	}
	// Deliveries beyond a row's first are redelivered when a position was
	// delivered again; only the rest are rows the stream held twice.
	v.Duplicated = max(v.Duplicated-v.Redelivered, 0)
	for origin, runs := range runsOf {
		if len(runs) > 1 {
			v.SharedOrigins = append(v.SharedOrigins, origin)
		}
	}
	sort.Ints(v.SharedOrigins)
	return v
}

// deliveredTwice counts positions delivered more than once among the
// ranges.
func deliveredTwice(offs []Offsets) int64 {
	var total int64
	for _, o := range offs {
		total += o.Hi - o.Lo + 1
	}
	return total - covered(unionOffsets(offs))
}

// unionOffsets returns the sorted, disjoint union of the ranges.
func unionOffsets(offs []Offsets) []Offsets {
	s := slices.Clone(offs)
	sort.Slice(s, func(i, j int) bool { return s[i].Lo < s[j].Lo })
	out := s[:0]
	for _, o := range s {
		if n := len(out); n > 0 && o.Lo <= out[n-1].Hi+1 {
			out[n-1].Hi = max(out[n-1].Hi, o.Hi)
			continue
		}
		out = append(out, o)
	}
	return out
}

// covered counts the positions of disjoint ranges.
func covered(offs []Offsets) int64 {
	var n int64
	for _, o := range offs {
		n += o.Hi - o.Lo + 1
	}
	return n
}

// addKey accounts for one key's merged deliveries.
func (v *Verdict) addKey(a *keyAcc) {
	slices.Sort(a.failed)
	a.failed = slices.Compact(a.failed)
	nf := countUpTo(a.failed, a.produced)
	v.Produced += int64(a.produced) - int64(nf)
	v.OutOfOrder += a.outOfOrder
	union := unionOf(a.ranges)
	var total, distinct int64
	for _, r := range a.ranges {
		if r.Hi >= r.Lo && r.Lo > 0 {
			total += int64(r.Hi-r.Lo) + 1
		} else {
			v.Unknown++ // a malformed range: count it, do not trust it
		}
	}
	for _, r := range union {
		distinct += int64(r.Hi-r.Lo) + 1
	}
	v.Consumed += total
	v.Duplicated += total - distinct
	// Deliveries past the last seq produced are not rows of this key.
	var inRange int64
	for _, r := range union {
		if r.Lo > a.produced {
			continue
		}
		inRange += int64(min(r.Hi, a.produced)-r.Lo) + 1
	}
	v.Unknown += distinct - inRange
	v.Distinct += inRange
	var failedSeen int64
	for _, s := range a.failed {
		if s <= a.produced && covers(union, s) {
			failedSeen++
		}
	}
	v.FailedDelivered += failedSeen
	v.FailedWrites += int64(nf) - failedSeen
	lost := int64(a.produced) - inRange - (int64(nf) - failedSeen)
	v.Lost += max(lost, 0)
}

// unionOf returns the sorted, disjoint union of valid ranges.
func unionOf(rs []Range) []Range {
	s := make([]Range, 0, len(rs))
	for _, r := range rs {
		if r.Hi >= r.Lo && r.Lo > 0 {
			s = append(s, r)
		}
	}
	sort.Slice(s, func(i, j int) bool { return s[i].Lo < s[j].Lo })
	out := s[:0]
	for _, r := range s {
		if n := len(out); n > 0 && uint64(r.Lo) <= uint64(out[n-1].Hi)+1 {
			out[n-1].Hi = max(out[n-1].Hi, r.Hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

// covers reports whether the sorted disjoint ranges hold s.
func covers(union []Range, s uint32) bool {
	i := sort.Search(len(union), func(i int) bool { return union[i].Hi >= s })
	return i < len(union) && union[i].Lo <= s
}

// countUpTo counts the distinct seqs of a sorted or unsorted list that are
// at most n.
func countUpTo(seqs []uint32, n uint32) int {
	seen := make(map[uint32]struct{}, len(seqs))
	for _, s := range seqs {
		if s >= 1 && s <= n {
			seen[s] = struct{}{}
		}
	}
	return len(seen)
}

// ApplyTo puts the verdict's row accounting into a summary (a fleet's
// summed summary of a shared stream, whose agents' own verdicts were
// partial): produced, consumed, distinct, lost, duplicated, redelivered,
// out of order, unknown and failed writes; the rates and tables are left
// as they are. The summary's verdict becomes "merged".
func (v Verdict) ApplyTo(s *Summary) {
	s.RowCounts = v.RowCounts
	s.Verdict = VerdictMerged
	s.ConsumedElsewhere, s.ForeignConsumed, s.Ledger = 0, 0, nil
}
