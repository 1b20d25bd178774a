package fleet

import (
	"math"
	"testing"

	"benchtop/engine"
)

// The coordinator refuses a control out of range as a Runner does, with
// the same words, before it sends anything to an agent.
func TestCoordinatorControlsRefuseAsTheEngine(t *testing.T) {
	t.Parallel()
	c := &Coordinator{}
	var r engine.Controller = c
	for _, tc := range []struct {
		name      string
		got, want error
	}{
		{"threads 0", r.SetThreads(0), engine.ValidateThreads(0)},
		{"threads over", r.SetThreads(engine.MaxThreads + 1), engine.ValidateThreads(engine.MaxThreads + 1)},
		{"target -1", r.SetTarget(-1), engine.ValidateTarget(-1)},
		{"target NaN", r.SetTarget(math.NaN()), engine.ValidateTarget(math.NaN())},
		{"partitions 0", r.SetPartitions(0), engine.ValidatePartitions(0)},
	} {
		if tc.got == nil || tc.want == nil || tc.got.Error() != tc.want.Error() {
			t.Errorf("%s: coordinator says %v, the engine %v", tc.name, tc.got, tc.want)
		}
	}
}
