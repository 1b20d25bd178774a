package engine

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

// The controls' ranges are checked in one place, for the Runner and for a
// fleet's coordinator alike: the edges pass, one step beyond is refused
// with the control's name and its range.
func TestValidateControls(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, MaxThreads} {
		if err := ValidateThreads(n); err != nil {
			t.Errorf("ValidateThreads(%d) = %v", n, err)
		}
	}
	for _, n := range []int{0, MaxThreads + 1} {
		if err := ValidateThreads(n); err == nil || !strings.HasPrefix(err.Error(), "threads: ") || !strings.Contains(err.Error(), fmt.Sprintf("(1 to %d)", MaxThreads)) {
			t.Errorf("ValidateThreads(%d) = %v", n, err)
		}
	}
	for _, v := range []float64{0, 1e12} {
		if err := ValidateTarget(v); err != nil {
			t.Errorf("ValidateTarget(%v) = %v", v, err)
		}
	}
	for _, v := range []float64{-1, 1.5e12, math.NaN()} {
		if err := ValidateTarget(v); err == nil || !strings.HasPrefix(err.Error(), "target: ") {
			t.Errorf("ValidateTarget(%v) = %v", v, err)
		}
	}
	for _, n := range []int{1, MaxPartitions} {
		if err := ValidatePartitions(n); err != nil {
			t.Errorf("ValidatePartitions(%d) = %v", n, err)
		}
	}
	for _, n := range []int{0, MaxPartitions + 1} {
		if err := ValidatePartitions(n); err == nil || !strings.HasPrefix(err.Error(), "partitions: ") {
			t.Errorf("ValidatePartitions(%d) = %v", n, err)
		}
	}
}
