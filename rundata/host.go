package rundata

import "time"

// HostSample is one reading of the client host. Rates and percentages cover the
// time since the previous reading. It is immutable once published.
type HostSample struct {
	Time time.Time
	// CPUTotal is the busy share of all cores, 0-100; unknown (0) when
	// Cores is 0.
	CPUTotal float64
	// CPUPerCore is the busy share of each core, 0-100 (nil when unknown).
	CPUPerCore []float64
	// Cores is the number of logical CPUs measured, 0 when the CPU figures
	// are unknown: /proc/stat could not be read, or this is the first
	// reading (no baseline to compare with). Never average a CPU figure of
	// a sample with Cores == 0: it is not a measured 0.
	Cores int
	// ProcCPU is this process's CPU use in percent of one core (can exceed
	// 100 on several cores).
	ProcCPU float64
	// ProcRSS is this process's resident set size in bytes.
	ProcRSS uint64
	// NICs are the non-loopback interfaces that are up, busiest first.
	NICs []NIC
	// Loopback is the loopback interface, kept apart (nil if none).
	Loopback *NIC
}

// NIC is the traffic of one network interface.
type NIC struct {
	Name          string
	RxBytesPerSec float64
	TxBytesPerSec float64
	// SpeedMbps is the link speed in Mbit/s from
	// /sys/class/net/IFACE/speed, 0 when unknown, or the one stated
	// with Sampler.SetLinkSpeed (-p host.nicspeed).
	SpeedMbps int
	// SpeedStated: SpeedMbps was stated by the user, not read.
	SpeedStated bool
	Loopback    bool
}

// Utilisation is the share of the link speed used, 0-1, by the busier
// direction (links are full duplex), or -1 when the speed is unknown.
func (n NIC) Utilisation() float64 {
	if n.SpeedMbps <= 0 {
		return -1
	}
	bps := max(n.RxBytesPerSec, n.TxBytesPerSec) * 8
	return clamp01(bps / (float64(n.SpeedMbps) * 1e6))
}

func clamp01(v float64) float64 { return min(max(v, 0), 1) }

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

// WithLinks is m with the interfaces of sample s (and its core count when
// the sample has one).
func (m Machine) WithLinks(s HostSample) Machine {
	if s.Cores > 0 {
		m.Cores = s.Cores
	}
	m.NICs = nil
	for _, n := range s.NICs {
		m.NICs = append(m.NICs, Link{Name: n.Name, SpeedMbps: n.SpeedMbps})
	}
	return m
}
