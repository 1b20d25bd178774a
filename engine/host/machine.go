package host

import (
	"context"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	gohost "github.com/shirou/gopsutil/v4/host"
)

// Machine describes the client host for a report's run metadata: what
// does not change during a run, and the links its interfaces had.
type Machine struct {
	Hostname   string `json:"hostname"`
	CPUModel   string `json:"cpu_model"`
	Cores      int    `json:"cores"` // logical CPUs
	GOMAXPROCS int    `json:"gomaxprocs"`
	OS         string `json:"os"`
	Kernel     string `json:"kernel"`
	Arch       string `json:"arch"`
	// NICs are the non-loopback interfaces that were up at the end of the
	// run, with their link speed (0 = unknown); filled by the report from
	// the last host sample.
	NICs []Link `json:"nics,omitempty"`
}

// Link is one network interface and its link speed.
type Link struct {
	Name      string `json:"name"`
	SpeedMbps int    `json:"speed_mbps"` // 0 = unknown
}

// The CPU model and kernel are read once per process: gopsutil parses
// /proc/cpuinfo, and neither changes while benchtop runs.
var (
	staticOnce     sync.Once
	cpuModel, kern string
)

// Describe reads the client host's description; what it cannot read
// stays empty.
func Describe() Machine {
	staticOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if infos, err := cpu.InfoWithContext(ctx); err == nil && len(infos) > 0 {
			cpuModel = strings.TrimSpace(infos[0].ModelName)
		}
		if k, err := gohost.KernelVersionWithContext(ctx); err == nil {
			kern = k
		}
	})
	m := Machine{Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUModel: cpuModel, Kernel: kern}
	m.Hostname, _ = os.Hostname()
	return m
}

// WithLinks is m with the interfaces of sample s (and its core count when
// the sample has one).
func (m Machine) WithLinks(s Sample) Machine {
	if s.Cores > 0 {
		m.Cores = s.Cores
	}
	m.NICs = nil
	for _, n := range s.NICs {
		m.NICs = append(m.NICs, Link{Name: n.Name, SpeedMbps: n.SpeedMbps})
	}
	return m
}
