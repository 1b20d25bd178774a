package memory

import (
	"github.com/tidwall/btree"

	"benchtop/adapters"
)

type iter = btree.MapIter[string, []adapters.Field]

// mergeScan appends up to count records from start on, in key order, from
// the given partitions, which the caller holds locked. Each partition
// is ordered, so a k-way merge of their iterators (a binary heap on the
// iterators' current keys) yields global order while visiting at most
// count+P entries.
func mergeScan(parts []*partition, start string, count int, fields []string, dst []adapters.Record) []adapters.Record {
	var a arena
	if len(parts) == 1 {
		n := 0
		parts[0].tree.Ascend(start, func(k string, rec []adapters.Field) bool {
			dst = append(dst, adapters.Record{Key: k, Fields: a.copy(rec, fields, count-n)})
			n++
			return n < count
		})
		return dst
	}

	its := make([]iter, 0, len(parts))
	for _, p := range parts {
		it := p.tree.Iter()
		if it.Seek(start) {
			its = append(its, it)
		}
	}
	h := heap{its: its, idx: make([]int, len(its))}
	for i := range h.idx {
		h.idx[i] = i
	}
	for i := len(h.idx)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	for n := 0; n < count && len(h.idx) > 0; n++ {
		it := &its[h.idx[0]]
		dst = append(dst, adapters.Record{Key: it.Key(), Fields: a.copy(it.Value(), fields, count-n)})
		if !it.Next() {
			last := len(h.idx) - 1
			h.idx[0] = h.idx[last]
			h.idx = h.idx[:last]
		}
		h.down(0)
	}
	return dst
}

// heap is a min-heap of iterator indexes ordered by the iterators' keys.
type heap struct {
	its []iter
	idx []int
}

func (h *heap) less(i, j int) bool { return h.its[h.idx[i]].Key() < h.its[h.idx[j]].Key() }

func (h *heap) down(i int) {
	n := len(h.idx)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h.idx[i], h.idx[m] = h.idx[m], h.idx[i]
		i = m
	}
}

// arena hands out the field slices of one scan's records from a few large
// allocations instead of one per record. The copies are needed because a
// stored field array can be updated in place once the lock is released.
type arena struct {
	buf []adapters.Field
}

// copy returns a copy of the requested fields of rec (all when fields is
// nil); remaining is how many records the scan may still return, to size
// the next allocation.
func (a *arena) copy(rec []adapters.Field, fields []string, remaining int) []adapters.Field {
	need := len(rec)
	if fields != nil && len(fields) < need {
		need = len(fields)
	}
	if cap(a.buf)-len(a.buf) < need {
		a.buf = make([]adapters.Field, 0, need*min(remaining, 128))
	}
	start := len(a.buf)
	a.buf = appendFields(a.buf, rec, fields)
	if len(a.buf)-start > need {
		// Only possible when fields names a field twice; keep it right
		// rather than fast.
		out := append([]adapters.Field(nil), a.buf[start:]...)
		a.buf = a.buf[:start]
		return out
	}
	return a.buf[start:len(a.buf):len(a.buf)]
}
