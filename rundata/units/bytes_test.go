package units

import (
	"math"
	"testing"
)

func TestBytesRate(t *testing.T) {
	tests := []struct {
		bps  float64
		want string
	}{
		{0, "0 B/s"},
		{-5, "0 B/s"},
		{math.NaN(), "0 B/s"},
		{0.4, "0 B/s"},
		{512, "512 B/s"},
		{999.4, "999 B/s"},
		{999.6, "1.0 kB/s"},
		{1000, "1.0 kB/s"},
		{1500, "1.5 kB/s"},
		{9_949, "9.9 kB/s"},
		{9_960, "10 kB/s"},
		{12_345, "12 kB/s"},
		{999_700, "1.0 MB/s"},
		{2_100_000, "2.1 MB/s"},
		{125_000_000, "125 MB/s"},
		{1.25e9, "1.2 GB/s"},
		{3e12, "3.0 TB/s"},
	}
	for _, tt := range tests {
		if got := BytesRate(tt.bps); got != tt.want {
			t.Errorf("BytesRate(%v) = %q, want %q", tt.bps, got, tt.want)
		}
	}
}

func TestBytes(t *testing.T) {
	tests := []struct {
		n    uint64
		want string
	}{
		{0, "0 B"},
		{999, "999 B"},
		{1000, "1.0 kB"},
		{812_000, "812 kB"},
		{61_000_000, "61 MB"},
		{61_499_999, "61 MB"},
		{1_200_000_000, "1.2 GB"},
		{math.MaxUint64, "18 EB"},
	}
	for _, tt := range tests {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}
