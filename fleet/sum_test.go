package fleet

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"benchtop/engine/measure"
)

// The sum of counts arrays is the histograms' own Merge, bucket for
// bucket, counters and out-of-range values included.
func TestSetSumEqualsMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var sum setSum
	want := &measure.Set{}
	for range 2 { // twice: take empties the sum for the next interval
		for a := range 5 {
			s := &measure.Set{}
			for range 500 {
				op := rng.IntN(3)
				s.Record(measure.Slot(op, rng.IntN(measure.NumVariants)), rng.Int64N(int64(1e10)))
			}
			s.RecordN(measure.Slot(1, measure.OK), 2*measure.Highest, 3) // out of range
			s.AddError(a%3, "timeout", 2)
			s.SetCause(a%3, "timeout", "deadline exceeded")
			s.Ops, s.Integrity, s.MaxLag = int64(100+a), int64(a), int64(a*1000)
			if err := sum.add(s, nil); err != nil {
				t.Fatal(err)
			}
			want.Merge(s)
		}
		got := sum.take()
		if !got.Equal(want) {
			t.Fatalf("sum differs from Merge: ops %d/%d, out of range %v/%v", got.Ops, want.Ops, got.OutOfRange, want.OutOfRange)
		}
		want = &measure.Set{}
	}
}

// The coordinator's fast path (histograms added from their encoding)
// gives the Set the Set's own decoder gives, merged.
func TestFastPathEqualsSetDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var sum setSum
	want := &measure.Set{}
	for a := range 4 {
		s := &measure.Set{}
		for range 2000 {
			// From 1 ns to past the hour: every bucket size, clamping too.
			s.Record(measure.Slot(rng.IntN(measure.NumOps), rng.IntN(measure.NumVariants)), int64(rng.ExpFloat64()*float64(int64(1)<<uint(rng.IntN(43)))))
		}
		s.RecordN(measure.Slot(2, measure.OK), 12345, 1<<40) // a count that needs many varint bytes
		s.AddError(a%measure.NumOps, "timeout", 3)
		s.SetCause(a%measure.NumOps, "timeout", "i/o timeout")
		s.Ops, s.Integrity, s.MaxLag = 2000, 1, int64(a)
		body, err := json.Marshal(Interval{Seq: 1, Set: s})
		if err != nil {
			t.Fatal(err)
		}
		iv, err := decodeInterval(body)
		if err != nil {
			t.Fatal(err)
		}
		if len(iv.hists) == 0 {
			t.Fatal("the fast path was not taken")
		}
		if err := sum.add(iv.Set, iv.hists); err != nil {
			t.Fatal(err)
		}
		var dec measure.Set
		b, _ := s.MarshalJSON()
		if err := dec.UnmarshalJSON(b); err != nil {
			t.Fatal(err)
		}
		want.Merge(&dec)
	}
	if got := sum.take(); !got.Equal(want) {
		t.Fatalf("fast path differs from the Set's decoder: ops %d/%d", got.Ops, want.Ops)
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
