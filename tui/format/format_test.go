package format

import (
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	cases := []struct {
		d    time.Duration
		want string
	}{
		{0, "0"},
		{850 * time.Nanosecond, "850ns"},
		{2100 * time.Nanosecond, "2.1µs"},
		{11 * time.Microsecond, "11µs"},
		{142 * time.Microsecond, "142µs"},
		{999 * time.Microsecond, "999µs"},
		{3100 * time.Microsecond, "3.1ms"},
		{11 * time.Millisecond, "11ms"},
		{1200 * time.Millisecond, "1.2s"},
		{125 * time.Second, "2m05s"},
	}
	for _, c := range cases {
		if got := Duration(c.d); got != c.want {
			t.Errorf("Duration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func TestSI(t *testing.T) {
	cases := []struct {
		v    float64
		want string
	}{
		{0, "0"},
		{0.5, "0.5"},
		{7, "7"},
		{642, "642"},
		{999.4, "999"},
		{999.6, "1.00K"},
		{64_200, "64.2K"},
		{642_301, "642K"},
		{1_284_511, "1.28M"},
		{12_800_000, "12.8M"},
		{2.5e9, "2.50G"},
	}
	for _, c := range cases {
		if got := SI(c.v); got != c.want {
			t.Errorf("SI(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestInt(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 47910224: "47,910,224", -1234: "-1,234"} {
		if got := Int(n); got != want {
			t.Errorf("Int(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestTimes(t *testing.T) {
	if got := Clock(74 * time.Second); got != "00:01:14" {
		t.Errorf("Clock = %q", got)
	}
	if got := Short(20 * time.Second); got != "0:20" {
		t.Errorf("Short = %q", got)
	}
	if got := Span(200 * time.Second); got != "3m20s" {
		t.Errorf("Span = %q", got)
	}
	if got := Span(5 * time.Minute); got != "5m" {
		t.Errorf("Span = %q", got)
	}
}

func TestTarget(t *testing.T) {
	if got := Target(0); got != "unlimited" {
		t.Errorf("Target(0) = %q", got)
	}
	for in, want := range map[float64]string{12500: "12.5K ops/s", 1096863: "1.10M ops/s", 800: "800 ops/s"} {
		if got := Target(in); got != want {
			t.Errorf("Target(%v) = %q, want %q", in, got, want)
		}
	}
	if got := TargetShort(0); got != "∞" {
		t.Errorf("TargetShort(0) = %q", got)
	}
	if got := LinkSpeed(10000); got != "10 Gbit/s" {
		t.Errorf("LinkSpeed = %q", got)
	}
}
