package engine

import (
	"testing"

	"benchtop/engine/measure"
)

func TestPacerStatsMergesRecorders(t *testing.T) {
	t.Parallel()
	recs := []*measure.Recorder{measure.NewRecorder(), measure.NewRecorder()}
	ls := make([]lateness, 2)
	if st := pacerStats(ls, recs); st != nil {
		t.Fatalf("nothing paced: got %+v, want nil", st)
	}
	for range 98 {
		ls[0].record(true, 2000)
	}
	ls[1].record(true, 0) // on time: counted as 1 ns
	ls[1].record(false, 5_000_000)
	st := pacerStats(ls, recs)
	if st.Ops != 100 || st.Behind != 1 {
		t.Fatalf("ops %d behind %d, want 100 and 1", st.Ops, st.Behind)
	}
	if p50 := st.Late.ValueAtQuantile(50); p50 < 1990 || p50 > 2010 {
		t.Errorf("p50 %d ns, want 2000", p50)
	}
	if m := st.Late.Max(); m < 4_900_000 || m > 5_100_000 {
		t.Errorf("max %d ns, want 5 ms (the behind operation counts)", m)
	}
	if mn := st.Late.Min(); mn != 1 {
		t.Errorf("min %d ns, want 1 (an on-time start)", mn)
	}
}
