package measure

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// fill records n random latencies (ns) into a Set, with errors and counters.
func fill(r *rand.Rand, n int, clamp bool) (*Set, []int64) {
	s := &Set{}
	var vals []int64
	for i := 0; i < n; i++ {
		v := int64(r.ExpFloat64() * 2e5) // ~200 µs, long tail
		vals = append(vals, v)
		op := i % 3
		s.Record(Slot(op, OK), v)
		s.Record(Slot(op, OKIntended), v+int64(r.IntN(1000)))
		if i%97 == 0 {
			s.Record(Slot(op, Failed), v)
			s.AddError(op, "timeout", 1)
			s.SetCause(op, "timeout", "deadline exceeded after 5s")
		}
	}
	if clamp {
		s.Record(Slot(1, OK), Highest*2) // clamped, counted out of range
	}
	s.Ops, s.Integrity, s.MaxLag = int64(n), 3, 12345
	s.Failed, s.Missing, s.CutOff = 7, 2, 5
	s.Batched[3] = 9
	return s, vals
}

// An encoded Set decodes to an equal value, in both encodings.
func TestSetRoundTrip(t *testing.T) {
	t.Parallel()
	s, _ := fill(rand.New(rand.NewPCG(1, 2)), 5000, true)
	b, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var got Set
	if err := got.UnmarshalBinary(b); err != nil {
		t.Fatal(err)
	}
	if !got.Equal(s) {
		t.Fatalf("binary round trip changed the Set: %+v vs %+v", got.Errors, s.Errors)
	}
	j, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var gotJ Set
	if err := json.Unmarshal(j, &gotJ); err != nil {
		t.Fatal(err)
	}
	if !gotJ.Equal(s) {
		t.Fatal("JSON round trip changed the Set")
	}
	// Equal can fail: a changed counter or one more value is not equal.
	gotJ.Ops++
	if gotJ.Equal(s) {
		t.Fatal("Equal ignores Ops")
	}
	got.Record(Slot(0, OK), 1000)
	if got.Equal(s) {
		t.Fatal("Equal ignores a recorded value")
	}
	if gotJ.Ops--; gotJ.Causes[0]["timeout"] != "deadline exceeded after 5s" {
		t.Fatalf("cause lost in the round trip: %v", gotJ.Causes)
	}
}

// Merging two encoded intervals equals recording both sets of values into
// one histogram: percentiles of the merge are those of the whole.
func TestMergeOfEncodedIntervalsIsExact(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	a, va := fill(r, 4000, true)
	b, vb := fill(r, 7000, false)
	whole := &Set{}
	for _, v := range append(append([]int64(nil), va...), vb...) {
		whole.Record(Slot(0, OK), v)
	}
	whole.Record(Slot(0, OK), Highest*2)
	merged := &Set{}
	for _, s := range []*Set{a, b} {
		enc, err := s.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		var dec Set
		if err := dec.UnmarshalBinary(enc); err != nil {
			t.Fatal(err)
		}
		merged.Merge(&dec)
	}
	// All ops' OK values in one histogram, from the merged Set.
	all := NewHistogram()
	for op := 0; op < 3; op++ {
		all.Merge(merged.H[Slot(op, OK)])
	}
	want := whole.H[Slot(0, OK)]
	if !all.Equals(want) {
		t.Errorf("merged histogram differs bucket by bucket from the one holding every value (%d vs %d values)", all.TotalCount(), want.TotalCount())
	}
	for _, q := range []float64{50, 90, 95, 99, 99.9, 100} {
		if g, w := all.ValueAtQuantile(q), want.ValueAtQuantile(q); g != w {
			t.Errorf("p%v: merged %d, whole %d", q, g, w)
		}
	}
	if merged.Ops != a.Ops+b.Ops || merged.Errors[0]["timeout"] != a.Errors[0]["timeout"]+b.Errors[0]["timeout"] {
		t.Errorf("merged counters: ops %d errors %v", merged.Ops, merged.Errors)
	}
	if merged.OutOfRange[Slot(1, OK)] != 1 {
		t.Errorf("out of range after merge: %d, want 1", merged.OutOfRange[Slot(1, OK)])
	}
}

// A Set from another histogram configuration is refused, not misread.
func TestDecodeRefusesOtherRange(t *testing.T) {
	t.Parallel()
	s, _ := fill(rand.New(rand.NewPCG(5, 6)), 10, true)
	w, err := s.wire()
	if err != nil {
		t.Fatal(err)
	}
	w.Digits = 2
	j, _ := json.Marshal(w)
	var got Set
	if err := json.Unmarshal(j, &got); err == nil {
		t.Fatal("a Set of another precision decoded without error")
	}
}
