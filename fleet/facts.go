package fleet

import (
	"os"
	"runtime"

	"github.com/shirou/gopsutil/v4/cpu"

	"benchtop/engine/host"
)

// LocalFacts describes this machine: CPU model and cores, the busiest
// network interface and its link speed (from the host sampler's reading).
func LocalFacts(s host.Sample) HostFacts {
	f := HostFacts{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU(), GoVersion: runtime.Version()}
	f.Hostname, _ = os.Hostname()
	if infos, err := cpu.Info(); err == nil && len(infos) > 0 {
		f.CPUModel = infos[0].ModelName
	}
	if len(s.NICs) > 0 {
		f.NIC, f.LinkMbps = s.NICs[0].Name, s.NICs[0].SpeedMbps
	} else if s.Loopback != nil {
		f.NIC = s.Loopback.Name
	}
	return f
}
