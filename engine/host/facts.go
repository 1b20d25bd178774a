package host

import (
	"os"
	"runtime"
	"strings"

	"github.com/shirou/gopsutil/v4/cpu"
)

// Facts are what does not change about the client host during a run: the
// header of a report.
type Facts struct {
	Hostname string
	OS, Arch string
	// CPUModel is the processor's model name, "" when unknown.
	CPUModel string
	// Cores is the number of logical CPUs.
	Cores int
}

// ReadFacts describes this machine. What cannot be read stays empty.
func ReadFacts() Facts {
	f := Facts{OS: runtime.GOOS, Arch: runtime.GOARCH, Cores: runtime.NumCPU()}
	f.Hostname, _ = os.Hostname()
	if infos, err := cpu.Info(); err == nil && len(infos) > 0 {
		f.CPUModel = strings.TrimSpace(infos[0].ModelName)
	}
	return f
}
