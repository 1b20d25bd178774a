package fleet

import (
	"runtime"

	"benchtop/engine/host"
)

// LocalFacts describes this machine: CPU model and cores, the busiest
// network interface and its link speed (from the host sampler's reading).
func LocalFacts(s host.Sample) HostFacts {
	m := host.Describe()
	f := HostFacts{Hostname: m.Hostname, OS: m.OS, Arch: m.Arch, CPUModel: m.CPUModel, Cores: m.Cores, GoVersion: runtime.Version()}
	if len(s.NICs) > 0 {
		f.NIC, f.LinkMbps = s.NICs[0].Name, s.NICs[0].SpeedMbps
	} else if s.Loopback != nil {
		f.NIC = s.Loopback.Name
	}
	return f
}
