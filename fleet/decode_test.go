package fleet

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
)

// The coordinator's sum of intervals read from the wire (histograms added
// from their encoding) is the Set's own decoder's, merged.
func TestDecodedIntervalsSumExactly(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	var sum measure.Accumulator
	want := &measure.Set{}
	for a := range 4 {
		s := &measure.Set{}
		for range 2000 {
			s.Record(measure.Slot(rng.IntN(measure.NumOps), rng.IntN(measure.NumVariants)), int64(rng.ExpFloat64()*1e7))
		}
		s.AddError(a%measure.NumOps, "timeout", 3)
		s.Ops = 2000
		body, err := json.Marshal(Interval{Seq: 1, Set: s})
		if err != nil {
			t.Fatal(err)
		}
		iv, err := decodeInterval(body)
		if err != nil {
			t.Fatal(err)
		}
		if iv.enc == nil || iv.Set.Ops != 2000 || iv.Set.H != [measure.NumSlots]*hdr.Histogram{} {
			t.Fatal("the interval's histograms were decoded, or its counters were not")
		}
		if a == 3 {
			if err := materialize(iv); err != nil {
				t.Fatal(err)
			}
		}
		if err := addInterval(&sum, iv); err != nil {
			t.Fatal(err)
		}
		want.Merge(s)
	}
	if got := sum.Take(); !got.Equal(want) {
		t.Fatalf("the sum differs from the Sets merged: ops %d/%d", got.Ops, want.Ops)
	}
}
