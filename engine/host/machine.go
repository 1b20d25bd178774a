package host

import (
	"context"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	gohost "github.com/shirou/gopsutil/v4/host"
)

// Machine describes the client host for a report's run metadata.
type Machine struct {
	Hostname   string `json:"hostname"`
	CPUModel   string `json:"cpu_model"`
	Cores      int    `json:"cores"` // logical CPUs
	GOMAXPROCS int    `json:"gomaxprocs"`
	OS         string `json:"os"`
	Kernel     string `json:"kernel"`
	Arch       string `json:"arch"`
}

// Describe reads the client host's description; what it cannot read
// stays empty.
func Describe() Machine {
	m := Machine{Cores: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0), OS: runtime.GOOS, Arch: runtime.GOARCH}
	m.Hostname, _ = os.Hostname()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if infos, err := cpu.InfoWithContext(ctx); err == nil && len(infos) > 0 {
		m.CPUModel = strings.TrimSpace(infos[0].ModelName)
	}
	if k, err := gohost.KernelVersionWithContext(ctx); err == nil {
		m.Kernel = k
	}
	return m
}
