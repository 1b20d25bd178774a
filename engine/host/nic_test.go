package host

import (
	"math"
	"testing"
)

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
