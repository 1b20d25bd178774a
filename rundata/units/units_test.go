package units

import (
	"math"
	"testing"
)

func TestCount(t *testing.T) {
	cases := map[int64]string{
		0: "0", 7: "7", 999: "999", 1000: "1,000", 1284511: "1,284,511", -1234: "-1,234", -999: "-999",
		math.MaxInt64: "9,223,372,036,854,775,807", math.MinInt64: "-9,223,372,036,854,775,808",
	}
	for n, want := range cases {
		if got := Count(n); got != want {
			t.Errorf("Count(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestMargin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		fig, lo, hi float64
		want        string
	}{
		{153.1, 146.1, 160.1, "±4.6%"},
		{240, 209, 290, "±21%"},
		{100, 0, 0, ""},
		{0, 0, 1, ""},
	} {
		if got := Margin(c.fig, c.lo, c.hi); got != c.want {
			t.Errorf("Margin(%v, %v, %v) = %q, want %q", c.fig, c.lo, c.hi, got, c.want)
		}
	}
}
