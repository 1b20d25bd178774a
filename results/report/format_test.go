package report

import (
	"testing"

	"benchtop/engine/host"
)

func TestMaskCause(t *testing.T) {
	t.Parallel()
	got := MaskCause("auth failed\nfor mongodb://u:pw@h:27017/db now")
	if got != "auth failed for mongodb://u:****@h:27017/db now" {
		t.Errorf("MaskCause = %q", got)
	}
}

// An unmeasured CPU figure is shown as such: n/a in text, null in JSON,
// empty in the time series; a measured 0 stays 0.
func TestUnknownCPUShownAsSuch(t *testing.T) {
	t.Parallel()
	if cpuText(-1) != "n/a" || cpuText(0) != "  0%" || cpuJSON(-1) != nil || cpuJSON(0) == nil || *cpuJSON(0) != 0 {
		t.Errorf("cpuText/cpuJSON: %q %q %v %v", cpuText(-1), cpuText(0), cpuJSON(-1), cpuJSON(0))
	}
	if hostCPU(host.Sample{}) != "" || hostCPU(host.Sample{Cores: 2}) != "0" {
		t.Errorf("hostCPU: %q, %q", hostCPU(host.Sample{}), hostCPU(host.Sample{Cores: 2}))
	}
}
