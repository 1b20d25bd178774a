package findmax

import (
	"strings"
	"testing"
)

func TestParseValues(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want float64
		bad  bool
	}{{"5%", 0.05, false}, {"0.05", 0.05, false}, {" 2.5 % ", 0.025, false}, {"0", 0, true}, {"60%", 0, true}, {"x", 0, true}, {"0.0001", 0, true}} {
		got, err := ParsePrecision(c.in)
		if (err != nil) != c.bad || (!c.bad && got != c.want) {
			t.Errorf("ParsePrecision(%q) = %v, %v", c.in, got, err)
		}
		if err != nil && !strings.Contains(err.Error(), "--find-max-precision") {
			t.Errorf("error %q names no flag", err)
		}
	}
	for _, c := range []struct {
		in         string
		abs, share float64
		bad        bool
	}{{"500", 500, 0, false}, {"2%", 0, 0.02, false}, {"0", 0, 0, true}, {"100%", 0, 0, true}, {"-3", 0, 0, true}, {"a%", 0, 0, true}} {
		abs, share, err := ParseFloor(c.in)
		if (err != nil) != c.bad || abs != c.abs || share != c.share {
			t.Errorf("ParseFloor(%q) = %v, %v, %v", c.in, abs, share, err)
		}
	}
	for _, c := range []struct {
		in   string
		want []int
		bad  bool
	}{{"threads=16,64,256", []int{16, 64, 256}, false}, {"threads=8", []int{8}, false}, {"target=1", nil, true},
		{"threads=", nil, true}, {"threads=0", nil, true}, {"threads=4,4", nil, true}, {"threads=x", nil, true}} {
		got, err := ParseOver(c.in)
		if (err != nil) != c.bad || len(got) != len(c.want) {
			t.Errorf("ParseOver(%q) = %v, %v", c.in, got, err)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("ParseOver(%q) = %v", c.in, got)
			}
		}
	}
	if _, err := ParseCondition("READ.p99<<10ms"); err == nil || !strings.HasPrefix(err.Error(), "--find-max:") {
		t.Errorf("a bad condition: %v", err)
	}
}

func TestEvidenceAndRounding(t *testing.T) {
	t.Parallel()
	for q, want := range map[float64]int64{99: 10_000, 99.9: 100_000, 95: 2_000, 50: 200, 100: 0} {
		if got := needOps(q); got != want {
			t.Errorf("needOps(%v) = %d, want %d", q, got, want)
		}
	}
	if d := rateDigits(0.05); d != 3 {
		t.Errorf("rateDigits(5%%) = %d", d)
	}
	if d := rateDigits(0.005); d != 4 {
		t.Errorf("rateDigits(0.5%%) = %d", d)
	}
	for in, want := range map[float64]float64{1897.366: 1900, 43_321: 43_300, 12.345: 12.3, 0.5: 0.5} {
		if got := roundSig(in, 3); got != want {
			t.Errorf("roundSig(%v, 3) = %v, want %v", in, got, want)
		}
	}
}
