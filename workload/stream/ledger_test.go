package stream

import (
	"encoding/json"
	"reflect"
	"testing"
)

// produced is origin o's ledger (run 10+o) of one key (producer 0, key
// 7) with n rows written, delivering the ranges given.
func produced(o int, n uint32, failed []uint32, got ...Range) *Ledger {
	run := uint32(10 + o)
	return &Ledger{Origin: o, Run: run, Keys: []KeyLedger{{Origin: o, Run: run, Producer: 0, Key: 7, Produced: n, Failed: failed, Delivered: got}}}
}

// delivered is a ledger of origin o that delivered ranges of origin 1's key.
func delivered(o int, got ...Range) *Ledger {
	return &Ledger{Origin: o, Run: uint32(10 + o), Keys: []KeyLedger{{Origin: 1, Run: 11, Producer: 0, Key: 7, Delivered: got}}}
}

// at gives a ledger the positions it delivered partition 0's rows from.
func at(l *Ledger, offs ...Offsets) *Ledger {
	l.Positions = []PartitionPositions{{Partition: 0, Delivered: offs}}
	return l
}

func TestMergeLedgers(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		ledgers []*Ledger
		want    Verdict
	}{
		{"split between two agents", []*Ledger{produced(1, 100, nil, Range{1, 60}), delivered(2, Range{61, 100})},
			Verdict{RowCounts: RowCounts{Produced: 100, Consumed: 100, Distinct: 100}}},
		{"rows the stream holds twice", []*Ledger{produced(1, 100, nil, Range{1, 60}), delivered(2, Range{55, 100})},
			Verdict{RowCounts: RowCounts{Produced: 100, Consumed: 106, Distinct: 100, Duplicated: 6}}},
		{"redelivery after a rebalance", []*Ledger{at(produced(1, 100, nil, Range{1, 60}), Offsets{0, 59}), at(delivered(2, Range{55, 100}), Offsets{54, 99})},
			Verdict{RowCounts: RowCounts{Produced: 100, Consumed: 106, Distinct: 100, Redelivered: 6}}},
		{"redelivered and held twice", []*Ledger{at(produced(1, 100, nil, Range{1, 60}), Offsets{0, 59}), at(delivered(2, Range{55, 100}, Range{100, 100}), Offsets{54, 100})},
			Verdict{RowCounts: RowCounts{Produced: 100, Consumed: 107, Distinct: 100, Redelivered: 6, Duplicated: 1}}},
		{"a gap nobody delivered", []*Ledger{produced(1, 100, nil, Range{1, 50}), delivered(2, Range{61, 100})},
			Verdict{RowCounts: RowCounts{Produced: 100, Consumed: 90, Distinct: 90, Lost: 10}}},
		{"a partition moved back and forth", []*Ledger{produced(1, 100, nil, Range{1, 30}, Range{71, 100}), delivered(2, Range{31, 70})},
			Verdict{RowCounts: RowCounts{Produced: 100, Consumed: 100, Distinct: 100}}},
		{"rows past the last produced", []*Ledger{produced(1, 10, nil, Range{1, 10}), delivered(2, Range{11, 12})},
			Verdict{RowCounts: RowCounts{Produced: 10, Consumed: 12, Distinct: 10, Unknown: 2}}},
		{"rows of an origin without a ledger", []*Ledger{delivered(2, Range{1, 5})},
			Verdict{RowCounts: RowCounts{Consumed: 5, Unknown: 5}}},
		{"failed writes are not lost", []*Ledger{produced(1, 10, []uint32{9, 10}, Range{1, 8}), delivered(2)},
			Verdict{RowCounts: RowCounts{Produced: 8, Consumed: 8, Distinct: 8, FailedWrites: 2}}},
		{"a failed write delivered anyway", []*Ledger{produced(1, 10, []uint32{10}, Range{1, 10})},
			Verdict{RowCounts: RowCounts{Produced: 9, Consumed: 10, Distinct: 10, FailedDelivered: 1}}},
		{"out of order as recorded", []*Ledger{{Origin: 1, Run: 11, Keys: []KeyLedger{{Origin: 1, Run: 11, Key: 7, Produced: 3, Delivered: []Range{{1, 3}}, OutOfOrder: 2}}}},
			Verdict{RowCounts: RowCounts{Produced: 3, Consumed: 3, Distinct: 3, OutOfOrder: 2}}},
		{"a nil ledger is skipped", []*Ledger{nil, produced(1, 4, nil, Range{1, 4})},
			Verdict{RowCounts: RowCounts{Produced: 4, Consumed: 4, Distinct: 4}}},
		{"one origin, two runs: two processes", []*Ledger{produced(1, 10, nil, Range{1, 10}), {Origin: 1, Run: 99, Keys: []KeyLedger{{Origin: 1, Run: 99, Key: 7, Produced: 5, Delivered: []Range{{1, 5}}}}}},
			Verdict{RowCounts: RowCounts{Produced: 15, Consumed: 15, Distinct: 15}, SharedOrigins: []int{1}}},
		{"another run's rows are not the producer's", []*Ledger{produced(1, 10, nil, Range{1, 10}), {Origin: 2, Run: 12, Keys: []KeyLedger{{Origin: 1, Run: 99, Key: 7, Delivered: []Range{{1, 3}}}}}},
			Verdict{RowCounts: RowCounts{Produced: 10, Consumed: 13, Distinct: 10, Unknown: 3}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Merge(c.ledgers...)
			got.PerLedger, got.Ledgers = nil, 0
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("Merge:\n got %+v\nwant %+v", got, c.want)
			}
			if got.OK() != (c.want.Lost == 0 && c.want.Duplicated == 0 && c.want.OutOfOrder == 0 && c.want.Unknown == 0) {
				t.Errorf("OK() = %v for %+v", got.OK(), got)
			}
			if got.OK() != (len(got.Problems()) == 0) {
				t.Errorf("OK() %v but problems %q", got.OK(), got.Problems())
			}
		})
	}
}

func TestMergePerLedger(t *testing.T) {
	t.Parallel()
	v := Merge(delivered(2, Range{61, 100}), produced(1, 100, nil, Range{1, 60}))
	want := []LedgerFigures{{Origin: 1, Run: 11, Produced: 100, Consumed: 60}, {Origin: 2, Run: 12, Consumed: 40}}
	if v.Ledgers != 2 || !reflect.DeepEqual(v.PerLedger, want) {
		t.Errorf("per ledger %+v (ledgers %d), want %+v", v.PerLedger, v.Ledgers, want)
	}
}

// The recorder keeps one range while order holds, tells a duplicate from
// a row out of order, and its ledger merges to the same verdict.
func TestRecorder(t *testing.T) {
	t.Parallel()
	id := ledgerID{1, 11, 0, 7}
	r := newRecorder()
	for i, s := range []uint32{1, 2, 3, 4, 5} {
		r.add(id, s)
		r.at(int64(100 + i))
	}
	if k := r.keys[id]; len(k.ranges) != 1 || k.ranges[0] != (Range{1, 5}) || k.outOfOrder != 0 {
		t.Fatalf("in order: %+v", k)
	}
	if len(r.pos) != 1 || r.pos[0] != (Offsets{100, 104}) {
		t.Fatalf("positions %+v, want one range 100..104", r.pos)
	}
	r2 := newRecorder()
	for _, s := range []uint32{1, 2, 5, 3, 4, 6, 6, 2} {
		r2.add(id, s)
	}
	l := ledgerOf(1, 11, []*recorder{r2}, map[ledgerID]uint32{id: 7}, nil, 0)
	v := Merge(l)
	if v.OutOfOrder != 2 || v.Duplicated != 2 || v.Lost != 1 || v.Distinct != 6 || v.Consumed != 8 {
		t.Errorf("1 2 5 3 4 6 6 2 of 7: %+v; want 2 out of order (3, 4), 2 duplicated (6, 2), 1 lost (7)", v)
	}
	// The same key in two partitions: order is per partition.
	a, b := newRecorder(), newRecorder()
	a.add(id, 1)
	a.add(id, 2)
	b.add(id, 4)
	a.add(id, 3)
	v = Merge(ledgerOf(1, 11, []*recorder{a, b}, map[ledgerID]uint32{id: 4}, nil, 0))
	if !v.OK() || v.Distinct != 4 {
		t.Errorf("two partitions: %+v", v)
	}
	// A partition delivered again from the same positions: redelivered.
	c := newRecorder()
	for _, s := range []uint32{1, 2, 3, 2, 3, 4} {
		c.add(id, s)
	}
	for _, o := range []int64{0, 1, 2, 1, 2, 3} {
		c.at(o)
	}
	v = Merge(ledgerOf(1, 11, []*recorder{c}, map[ledgerID]uint32{id: 4}, nil, 0))
	if !v.OK() || v.Redelivered != 2 || v.Duplicated != 0 || v.Distinct != 4 || v.Consumed != 6 {
		t.Errorf("a redelivery: %+v", v)
	}
}

func TestLedgerEncodes(t *testing.T) {
	t.Parallel()
	l := &Ledger{Origin: 2, Run: 7, Corrupt: 1, Keys: []KeyLedger{
		{Origin: 1, Run: 5, Producer: 3, Key: 9, Delivered: []Range{{1, 10}, {20, 20}}, OutOfOrder: 1},
		{Origin: 2, Run: 7, Producer: 0, Key: 1, Produced: 40, Failed: []uint32{39, 40}, Delivered: []Range{{1, 38}}},
	}, Positions: []PartitionPositions{{Partition: 3, Delivered: []Offsets{{0, 9}, {5, 12}}}}}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var back Ledger
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*l, back) {
		t.Errorf("decoded %+v, want %+v (JSON %s)", back, *l, b)
	}
	if err := json.Unmarshal([]byte(`{"keys":[{"d":[[1]]}]}`), &back); err == nil {
		t.Errorf("a one-number range decoded without an error")
	}
	if err := json.Unmarshal([]byte(`{"positions":[{"p":0,"d":[[9,3]]}]}`), &back); err == nil {
		t.Errorf("positions 9..3 decoded without an error")
	}
}

func TestVerdictApplyTo(t *testing.T) {
	t.Parallel()
	s := &Summary{RowCounts: RowCounts{Produced: 5, Consumed: 5}, Verdict: VerdictPartial, ConsumedElsewhere: 3, ForeignConsumed: 2, Ledger: &Ledger{}, RowSize: 220}
	Verdict{RowCounts: RowCounts{Produced: 10, Consumed: 12, Distinct: 9, Lost: 1, Duplicated: 3, Redelivered: 6, OutOfOrder: 2, Unknown: 1, FailedWrites: 4, FailedDelivered: 5}}.ApplyTo(s)
	want := &Summary{RowCounts: RowCounts{Produced: 10, Consumed: 12, Distinct: 9, Lost: 1, Duplicated: 3, Redelivered: 6, OutOfOrder: 2, Unknown: 1, FailedWrites: 4, FailedDelivered: 5}, Verdict: VerdictMerged, RowSize: 220}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("ApplyTo: %+v, want %+v", s, want)
	}
}
