package stream

import (
	"slices"
	"sort"
)

// A recorder is one partition's part of a ledger (shared mode, see
// shared.go): what its consumer delivered, per key, as seq ranges, and
// the positions (Kafka offsets) it delivered them from, as ranges. Only
// the partition's consumer goroutine writes it, so it takes no lock; it
// is read once every consumer has stopped.
type recorder struct {
	keys map[ledgerID]*recKey
	// pos are the positions delivered, in delivery order, one range per
	// contiguous run (one per assignment of the partition, or per
	// redelivery).
	pos []Offsets
}

type recKey struct {
	last       uint32 // the highest seq delivered from this partition
	ranges     []Range
	outOfOrder int64
}

func newRecorder() *recorder { return &recorder{keys: map[ledgerID]*recKey{}} }

// add records one delivery of seq. In a partition each key's seqs rise:
// a seq at or below the highest is a duplicate when it was delivered from
// here before, else out of order.
func (r *recorder) add(id ledgerID, seq uint32) {
	k := r.keys[id]
	if k == nil {
		k = &recKey{ranges: make([]Range, 0, 1)}
		r.keys[id] = k
	}
	n := len(k.ranges)
	if seq <= k.last && !k.has(seq) {
		k.outOfOrder++
	}
	k.last = max(k.last, seq)
	if n > 0 && k.ranges[n-1].Hi+1 == seq && seq != 0 {
		k.ranges[n-1].Hi = seq
		return
	}
	k.ranges = append(k.ranges, Range{Lo: seq, Hi: seq})
}

// at records that a row was delivered from position off.
func (r *recorder) at(off int64) {
	if n := len(r.pos); n > 0 && r.pos[n-1].Hi+1 == off {
		r.pos[n-1].Hi = off
		return
	}
	r.pos = append(r.pos, Offsets{Lo: off, Hi: off})
}

func (k *recKey) has(seq uint32) bool {
	for _, r := range k.ranges {
		if r.Lo <= seq && seq <= r.Hi {
			return true
		}
	}
	return false
}

// ledgerOf builds a ledger from partition recorders (recs[p] is partition
// p's) and the producers' own counts (produced[id], failed[id]): every key
// delivered or produced, and the positions delivered per partition.
func ledgerOf(origin int, runID uint32, recs []*recorder, produced map[ledgerID]uint32, failed map[ledgerID][]uint32, corrupt int64) *Ledger {
	byID := map[ledgerID]*KeyLedger{}
	get := func(id ledgerID) *KeyLedger {
		k := byID[id]
		if k == nil {
			k = &KeyLedger{Origin: id.origin, Run: id.run, Producer: id.producer, Key: id.key}
			byID[id] = k
		}
		return k
	}
	l := &Ledger{Origin: origin, Run: runID, Corrupt: corrupt}
	for p, rec := range recs {
		if rec == nil {
			continue
		}
		for id, rk := range rec.keys {
			k := get(id)
			k.Delivered = append(k.Delivered, rk.ranges...)
			k.OutOfOrder += rk.outOfOrder
		}
		if len(rec.pos) > 0 {
			l.Positions = append(l.Positions, PartitionPositions{Partition: p, Delivered: slices.Clone(rec.pos)})
		}
	}
	for id, n := range produced {
		get(id).Produced = n
	}
	for id, f := range failed {
		k := get(id)
		k.Failed = append(k.Failed, f...)
		slices.Sort(k.Failed)
	}
	l.Keys = make([]KeyLedger, 0, len(byID))
	for _, k := range byID {
		l.Keys = append(l.Keys, *k)
	}
	sort.Slice(l.Keys, func(i, j int) bool {
		a, b := l.Keys[i], l.Keys[j]
		if a.Origin != b.Origin {
			return a.Origin < b.Origin
		}
		if a.Run != b.Run {
			return a.Run < b.Run
		}
		if a.Producer != b.Producer {
			return a.Producer < b.Producer
		}
		return a.Key < b.Key
	})
	return l
}
