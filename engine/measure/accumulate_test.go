package measure

import (
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// randomSet records n values of every size, from 1 ns to past the hour
// (clamped), over random slots, with counters and errors.
func randomSet(rng *rand.Rand, n int, a int) *Set {
	s := &Set{}
	for range n {
		s.Record(Slot(rng.IntN(NumOps), rng.IntN(NumVariants)), int64(rng.ExpFloat64()*float64(int64(1)<<uint(rng.IntN(43)))))
	}
	s.RecordN(Slot(2, OK), 12345, 1<<40) // a count that needs many varint bytes
	s.RecordN(Slot(1, OK), 2*Highest, 3) // out of range
	s.AddError(a%NumOps, "timeout", 3)
	s.SetCause(a%NumOps, "timeout", "i/o timeout")
	s.Ops, s.Integrity, s.MaxLag = int64(n), int64(a), int64(a*1000)
	return s
}

// decoded is s through its JSON encoding and the Set's own decoder.
func decoded(t *testing.T, s *Set) (*Set, []byte) {
	t.Helper()
	b, err := s.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var d Set
	if err := d.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	return &d, b
}

// Sets added from their encoding, or decoded, equal the decoded Sets
// merged: bucket for bucket, counters, errors and percentiles.
func TestAccumulatorEqualsMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var acc Accumulator
	for round := range 2 { // twice: Take empties it for the next round
		want := &Set{}
		for a := range 5 {
			s := randomSet(rng, 2000, a)
			d, b := decoded(t, s)
			want.Merge(d)
			if a%2 == 0 {
				acc.Add(s)
				continue
			}
			var e Encoded
			if err := e.UnmarshalJSON(b); err != nil {
				t.Fatal(err)
			}
			if len(e.hists) == 0 {
				t.Fatal("no encoded histogram kept")
			}
			if err := acc.AddEncoded(&e); err != nil {
				t.Fatal(err)
			}
		}
		if acc.N() != 5 {
			t.Fatalf("N = %d after 5 Sets", acc.N())
		}
		got := acc.Take()
		if !got.Equal(want) {
			t.Fatalf("round %d: the sum differs from Merge: ops %d/%d, out of range %v/%v", round, got.Ops, want.Ops, got.OutOfRange, want.OutOfRange)
		}
		for slot, h := range want.H {
			if h == nil {
				continue
			}
			for _, q := range []float64{50, 95, 99, 99.9, 100} {
				if g, w := got.H[slot].ValueAtQuantile(q), h.ValueAtQuantile(q); g != w {
					t.Errorf("slot %d p%v: %d, merged %d", slot, q, g, w)
				}
			}
		}
	}
}

// MergeEncoded adds an encoded Set into one that has values already.
func TestMergeEncoded(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a, b := randomSet(rng, 1000, 1), randomSet(rng, 1000, 2)
	want := a.Clone()
	db, enc := decoded(t, b)
	want.Merge(db)
	if err := a.MergeEncoded(enc); err != nil {
		t.Fatal(err)
	}
	if !a.Equal(want) {
		t.Fatal("MergeEncoded differs from Merge of the decoded Set")
	}
	if err := a.MergeEncoded([]byte(`{"Version":9}`)); err == nil {
		t.Error("another encoding version accepted")
	}
}

// An Encoded's Set is the Set's own decoding.
func TestEncodedSet(t *testing.T) {
	s := randomSet(rand.New(rand.NewPCG(9, 10)), 500, 3)
	d, b := decoded(t, s)
	var e Encoded
	if err := e.UnmarshalJSON(b); err != nil {
		t.Fatal(err)
	}
	got, err := e.Set()
	if err != nil {
		t.Fatal(err)
	}
	if !got.Equal(d) {
		t.Fatal("Encoded.Set differs from UnmarshalJSON")
	}
}

func TestCorruptHistogramRefused(t *testing.T) {
	var d v2Decoder
	acc := make([]int64, countsLen)
	for _, data := range []string{"", "AAAA", "HIUTHAAAAA=="} {
		if err := d.addTo(acc, []byte(data)); err == nil {
			t.Errorf("%q accepted", data)
		}
	}
}

// valueAt is hdrhistogram-go's layout: a histogram with one value in
// every bucket, merged by the bulk path, equals the same merged by
// hdrhistogram-go's own Merge.
func TestBulkMergeEqualsMerge(t *testing.T) {
	counts := make([]int64, countsLen)
	for i := range counts {
		counts[i] = int64(i%7 + 1)
	}
	src := hdr.Import(&hdr.Snapshot{LowestTrackableValue: Lowest, HighestTrackableValue: Highest, SignificantFigures: Digits, Counts: counts})
	if src.TotalCount() < bulkMerge {
		t.Fatal("the source is too small for the bulk path")
	}
	a, b := NewHistogram(), NewHistogram()
	a.RecordValue(12345)
	b.RecordValue(12345)
	if d := mergeHist(a, src); d != 0 {
		t.Fatalf("bulk merge dropped %d", d)
	}
	if d := b.Merge(src); d != 0 {
		t.Fatalf("Merge dropped %d", d)
	}
	if !a.Equals(b) {
		t.Fatal("the bulk merge differs from Merge")
	}
	for _, q := range []float64{1, 50, 99, 99.99, 100} {
		if a.ValueAtQuantile(q) != b.ValueAtQuantile(q) {
			t.Errorf("p%v: %d, Merge %d", q, a.ValueAtQuantile(q), b.ValueAtQuantile(q))
		}
	}
}
