package engine

import (
	"fmt"
	"strconv"

	"benchtop/engine/host"
	"benchtop/rundata/units"
)

// The client-NIC rule of the bottleneck detector, apart from the CPU and
// schedule rules of warnings.go: a client whose NIC carries more than
// nicFull of its link speed for nicIntervals intervals in a row cannot go
// faster by itself, whatever the database could do: the fix is more client
// machines. The link speed is what sysfs says or what the user stated with
// -p host.nicspeed (a shaped or virtual NIC reports a speed it cannot
// carry).
const (
	nicFull      = 0.9
	nicIntervals = 3
)

// ClientNICFull is the share of its link speed from which a client NIC is
// saturated (the "client NIC saturated" rule's threshold).
const ClientNICFull = nicFull

// nicSaturation counts, per interface, the intervals in a row above
// nicFull.
type nicSaturation struct {
	over map[string]int
}

// check updates the counts with one host sample and returns a warning for
// each interface saturated for nicIntervals intervals or more, busiest
// first (the sample's order). A paused interval resets every count.
func (n *nicSaturation) check(paused bool, hs host.Sample) []string {
	if paused {
		n.over = nil
		return nil
	}
	next := make(map[string]int, len(hs.NICs))
	var out []string
	for _, nic := range hs.NICs {
		if nic.Loopback || nic.Utilisation() < nicFull {
			continue
		}
		c := n.over[nic.Name] + 1
		next[nic.Name] = c
		if c >= nicIntervals {
			out = append(out, nicWarning(nic, c))
		}
	}
	n.over = next
	return out
}

// nicWarning names the interface, its rate, the link speed and the advice.
func nicWarning(nic host.NIC, intervals int) string {
	dir, rate := "rx", nic.RxBytesPerSec
	if nic.TxBytesPerSec > rate {
		dir, rate = "tx", nic.TxBytesPerSec
	}
	stated := ""
	if nic.SpeedStated {
		stated = " (stated by host.nicspeed)"
	}
	return fmt.Sprintf("client NIC saturated: %s %s %s = %.0f %% of its %s link%s for %d intervals: add client machines",
		nic.Name, dir, units.BytesRate(rate), 100*rate*8/(float64(nic.SpeedMbps)*1e6), linkSpeed(nic.SpeedMbps), stated, intervals)
}

// linkSpeed formats Mbit/s: "100 Mbit/s", "1 Gbit/s", "2.5 Gbit/s".
func linkSpeed(mbps int) string {
	if mbps < 1000 {
		return strconv.Itoa(mbps) + " Mbit/s"
	}
	return strconv.FormatFloat(float64(mbps)/1000, 'f', -1, 64) + " Gbit/s"
}
