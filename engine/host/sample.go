// Package host samples the client machine the benchmark runs on: total and
// per-core CPU, this process's CPU and memory, and per-interface network
// rates, so that the user can tell whether the client is the bottleneck.
package host

import "time"

// Sample is one reading of the client host. Rates and percentages cover the
// time since the previous reading. It is immutable once published.
type Sample struct {
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
