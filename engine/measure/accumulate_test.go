package measure

import (
	"math/rand/v2"
	"slices"
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
	s.Failed, s.Missing, s.CutOff = int64(a+1), int64(a+2), int64(a+3)
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	var d v2Decoder
	acc := make([]int64, countsLen)
	for _, data := range []string{"", "AAAA", "HIUTHAAAAA=="} {
		if err := d.addTo(acc, []byte(data)); err == nil {
			t.Errorf("%q accepted", data)
		}
	}
}

// valueAt is hdrhistogram-go's layout, and the view's merge is its Merge:
// a source with one value in every bucket, and a small one, merged through
// the view equal the same merged by hdrhistogram-go's own Merge.
func TestMergeHistEqualsMerge(t *testing.T) {
	t.Parallel()
	counts := make([]int64, countsLen)
	for i := range counts {
		counts[i] = int64(i%7 + 1)
	}
	full := hdr.Import(&hdr.Snapshot{LowestTrackableValue: Lowest, HighestTrackableValue: Highest, SignificantFigures: Digits, Counts: counts})
	small := NewHistogram()
	for _, v := range []int64{1, 2, 1000, 1001, 123456, 7e9, Highest} {
		small.RecordValues(v, v%5+1)
	}
	for name, src := range map[string]*hdr.Histogram{"every bucket": full, "a few values": small} {
		a, b := NewHistogram(), NewHistogram()
		a.RecordValue(12345)
		b.RecordValue(12345)
		if d := mergeHist(a, src); d != 0 {
			t.Fatalf("%s: merge dropped %d", name, d)
		}
		if d := b.Merge(src); d != 0 {
			t.Fatalf("%s: Merge dropped %d", name, d)
		}
		if !a.Equals(b) || a.TotalCount() != b.TotalCount() {
			t.Fatalf("%s: the merge differs from Merge (%d values, Merge %d)", name, a.TotalCount(), b.TotalCount())
		}
		for _, q := range []float64{1, 50, 99, 99.99, 100} {
			if a.ValueAtQuantile(q) != b.ValueAtQuantile(q) {
				t.Errorf("%s: p%v: %d, Merge %d", name, q, a.ValueAtQuantile(q), b.ValueAtQuantile(q))
			}
		}
	}
}

// The view works with the hdrhistogram-go in go.mod (else merges and
// resets fall back to the library's slower walks, silently).
func TestViewMatchesExport(t *testing.T) {
	t.Parallel()
	if !viewOK {
		t.Fatal("the counts view does not match hdrhistogram-go's layout")
	}
	h := NewHistogram()
	h.RecordValues(4242, 3)
	if !slices.Equal(countsOf(h), h.Export().Counts) || *totalOf(h) != 3 {
		t.Fatal("the view reads other counts than Export")
	}
}

// resetHist leaves a histogram as its Reset does: empty, every count 0,
// and recording into it again gives what a new one gives.
func TestResetHistEqualsReset(t *testing.T) {
	t.Parallel()
	a, b := NewHistogram(), NewHistogram()
	for _, v := range []int64{1, 5000, 5001, 9e8, Highest} {
		a.RecordValues(v, 2)
		b.RecordValues(v, 2)
	}
	resetHist(a)
	b.Reset()
	if a.TotalCount() != 0 || !slices.Equal(a.Export().Counts, b.Export().Counts) {
		t.Fatalf("after reset: %d values", a.TotalCount())
	}
	a.RecordValue(777)
	c := NewHistogram()
	c.RecordValue(777)
	if !a.Equals(c) {
		t.Fatal("a reset histogram records differently from a new one")
	}
}
