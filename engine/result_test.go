package engine

import (
	"runtime"
	"testing"
	"time"

	"benchtop/engine/measure"
)

// A phase's result carries each worker's cleanup ([CLEANUP]: one per
// worker that ran), the runtime's collections during the phase, and the
// timeseries measurement type's units.
func TestResultCleanupGCAndUnits(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "run", map[string]string{"threadcount": "3", "operationcount": "0",
		"measurementtype": "timeseries", "timeseries.granularity": "200"})
	r, done, snaps, mu := startRunner(t, cfg, &fakeDB{})
	runtime.GC()
	for {
		mu.Lock()
		n := len(*snaps)
		mu.Unlock()
		if n >= 4 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	r.Stop()
	res := waitResults(t, done)
	last := res[len(res)-1]
	if last.Cleanup == nil || last.Cleanup.TotalCount() != 3 {
		t.Errorf("cleanups: %v, want 3 (one per worker)", last.Cleanup)
	}
	if last.GC.Forced < 1 || last.GC.Collections < last.GC.Forced || last.GC.Pause <= 0 {
		t.Errorf("GC during the phase: %+v, want the forced collection counted", last.GC)
	}
	units := last.Units[measure.Slot(0, measure.OK)]
	if len(units) < 2 {
		t.Fatalf("timeseries units: %v, want one per 200 ms", units)
	}
	for i, u := range units {
		if u.Offset%(200*time.Millisecond) != 0 || (i > 0 && u.Offset <= units[i-1].Offset) || u.Mean <= 0 {
			t.Errorf("unit %d: %+v (offsets must be increasing multiples of 200ms)", i, u)
		}
	}
	if last.Output.MeasurementType != "timeseries" {
		t.Errorf("the result's Output: %+v", last.Output)
	}
}
