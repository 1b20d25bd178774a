// Package host samples the client machine the benchmark runs on: total and
// per-core CPU, this process's CPU and memory, and per-interface network
// rates, so that the user can tell whether the client is the bottleneck.
package host

import "benchtop/rundata"

// The readings as the Snapshot carries them live in the contract package
// (benchtop/rundata), so that the screens draw them without gopsutil.
type (
	Sample  = rundata.HostSample
	NIC     = rundata.NIC
	Machine = rundata.Machine
	Link    = rundata.Link
)
