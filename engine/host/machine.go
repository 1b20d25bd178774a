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
