package stream

import (
	"slices"
	"sort"
)

// A recorder is one partition's part of a ledger (shared mode, see
// shared.go): what its consumer delivered, per key, as seq ranges. Only
// the partition's consumer goroutine writes it, so it takes no lock; it
// is read once every consumer has stopped.
type recorder struct {
	keys map[ledgerID]*recKey
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
func (r *recorder) add(origin int, producer, key, seq uint32) {
	id := ledgerID{origin, producer, key}
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

func (k *recKey) has(seq uint32) bool {
	for _, r := range k.ranges {
		if r.Lo <= seq && seq <= r.Hi {
			return true
		}
	}
	return false
}

// ledgerOf builds a ledger from partition recorders and the producers'
// own counts (produced[id], failed[id]): every key delivered or produced.
func ledgerOf(origin int, recs []*recorder, produced map[ledgerID]uint32, failed map[ledgerID][]uint32, corrupt int64) *Ledger {
	byID := map[ledgerID]*KeyLedger{}
	get := func(id ledgerID) *KeyLedger {
		k := byID[id]
		if k == nil {
			k = &KeyLedger{Origin: id.origin, Producer: id.producer, Key: id.key}
			byID[id] = k
		}
		return k
	}
	for _, rec := range recs {
		if rec == nil {
			continue
		}
		for id, rk := range rec.keys {
			k := get(id)
			k.Delivered = append(k.Delivered, rk.ranges...)
			k.OutOfOrder += rk.outOfOrder
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
	l := &Ledger{Origin: origin, Keys: make([]KeyLedger, 0, len(byID)), Corrupt: corrupt}
	for _, k := range byID {
		l.Keys = append(l.Keys, *k)
	}
	sort.Slice(l.Keys, func(i, j int) bool {
		a, b := l.Keys[i], l.Keys[j]
		if a.Origin != b.Origin {
			return a.Origin < b.Origin
		}
		if a.Producer != b.Producer {
			return a.Producer < b.Producer
		}
		return a.Key < b.Key
	})
	return l
}
