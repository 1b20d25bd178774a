package host

import (
	"math"
	"testing"
)

func TestFormatBytesRate(t *testing.T) {
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
		if got := FormatBytesRate(tt.bps); got != tt.want {
			t.Errorf("FormatBytesRate(%v) = %q, want %q", tt.bps, got, tt.want)
		}
	}
}

func TestFormatBytes(t *testing.T) {
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
		if got := FormatBytes(tt.n); got != tt.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestNICUtilisation(t *testing.T) {
	tests := []struct {
		name string
		nic  NIC
		want float64
	}{
		{"unknown speed", NIC{RxBytesPerSec: 1e6}, -1},
		{"loopback", NIC{RxBytesPerSec: 1e9, Loopback: true}, -1},
		{"idle", NIC{SpeedMbps: 1000}, 0},
		{"half of 1 Gbit/s by rx", NIC{SpeedMbps: 1000, RxBytesPerSec: 62.5e6, TxBytesPerSec: 1e6}, 0.5},
		{"busier direction counts", NIC{SpeedMbps: 1000, RxBytesPerSec: 1e6, TxBytesPerSec: 125e6}, 1},
		{"over the link speed clamps", NIC{SpeedMbps: 100, RxBytesPerSec: 20e6}, 1},
	}
	for _, tt := range tests {
		if got := tt.nic.Utilisation(); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: Utilisation = %v, want %v", tt.name, got, tt.want)
		}
	}
}
