package stream

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
)

// A Ledger is one process's account of the stream's rows, for a verdict
// across processes that share one stream (a fleet whose agents are in one
// Kafka consumer group: a row produced by agent A may be delivered by
// agent B, and again by C after a rebalance). Each process records every
// row it delivered, whoever produced it, and the rows its own producers
// wrote; Merge adds the ledgers of every process into one Verdict.
//
// A key is (origin, producer, key): the origin is the process (the
// agent's place in the fleet, stream.origin), the producer one of its
// producer threads, the key that producer's key index, whose rows are
// numbered 1, 2, 3, ... Delivered sequence numbers are kept as ranges:
// one range per key and partition while order holds, so a ledger stays
// small (a few ranges per key) however many rows were delivered.
type Ledger struct {
	// Origin is the process whose producers' counts this ledger holds.
	Origin int `json:"origin"`
	// Keys are the keys this process produced or delivered, sorted by
	// (origin, producer, key).
	Keys []KeyLedger `json:"keys"`
	// Corrupt counts delivered rows without a valid header.
	Corrupt int64 `json:"corrupt,omitempty"`
}

// KeyLedger is one key in one process's ledger.
type KeyLedger struct {
	Origin   int    `json:"o"`
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

// Verdict is the account of rows across every ledger merged: the fleet's.
type Verdict struct {
	Ledgers int `json:"ledgers"` // processes whose ledger was merged
	RowCounts
	// PerLedger is what each process produced and consumed, by origin.
	PerLedger []LedgerFigures `json:"per_ledger"`
}

// LedgerFigures are one process's rows in a Verdict.
type LedgerFigures struct {
	Origin   int   `json:"origin"`
	Produced int64 `json:"produced"`
	Consumed int64 `json:"consumed"`
}

// OK reports whether every row was delivered exactly once, in order.
func (v Verdict) OK() bool {
	return v.Lost == 0 && v.Duplicated == 0 && v.OutOfOrder == 0 && v.Unknown == 0
}

// Problems are the verdict's failures, one line each (none when OK).
func (v Verdict) Problems() []string {
	var out []string
	if v.Lost > 0 {
		out = append(out, fmt.Sprintf("stream: %d rows lost across the fleet (produced and acknowledged, delivered by no agent)", v.Lost))
	}
	if v.Duplicated > 0 {
		out = append(out, fmt.Sprintf("stream: %d rows delivered more than once across the fleet", v.Duplicated))
	}
	if v.OutOfOrder > 0 {
		out = append(out, fmt.Sprintf("stream: %d rows delivered out of order (after a later row of the same key in the same partition)", v.OutOfOrder))
	}
	if v.Unknown > 0 {
		out = append(out, fmt.Sprintf("stream: %d rows delivered that no agent's producers wrote (corrupt, or an agent's ledger is missing)", v.Unknown))
	}
	return out
}

type ledgerID struct {
	origin        int
	producer, key uint32
}

type keyAcc struct {
	produced   uint32
	failed     []uint32
	ranges     []Range
	outOfOrder int64
}

// Merge adds ledgers into one verdict. A key's produced count comes from
// its origin's ledger; its deliveries from all of them. A row delivered
// twice (anywhere) is a duplicate, a produced row delivered nowhere is
// lost; nil ledgers are skipped.
func Merge(ledgers ...*Ledger) Verdict {
	var v Verdict
	keys := map[ledgerID]*keyAcc{}
	origins := map[int]bool{}
	for _, l := range ledgers {
		if l == nil {
			continue
		}
		v.Ledgers++
		origins[l.Origin] = true
		v.Unknown += l.Corrupt
		fig := LedgerFigures{Origin: l.Origin}
		for i := range l.Keys {
			k := &l.Keys[i]
			id := ledgerID{k.Origin, k.Producer, k.Key}
			a := keys[id]
			if a == nil {
				a = &keyAcc{}
				keys[id] = a
			}
			if k.Origin == l.Origin {
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
		v.PerLedger = append(v.PerLedger, fig)
	}
	sort.Slice(v.PerLedger, func(i, j int) bool { return v.PerLedger[i].Origin < v.PerLedger[j].Origin })
	for id, a := range keys {
		if !origins[id.origin] {
			a.produced = 0 // nobody vouches for these rows
		}
		v.addKey(a)
	}
	return v
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
// summed summary of a shared stream, whose agents left it to the
// verdict): produced, consumed, distinct, lost, duplicated, out of order,
// unknown and failed writes; the rates and tables are left as they are.
func (v Verdict) ApplyTo(s *Summary) {
	s.RowCounts = v.RowCounts
	s.FleetVerdict, s.Ledger = false, nil
}
