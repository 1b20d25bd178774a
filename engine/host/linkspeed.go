package host

import (
	"fmt"
	"strconv"
	"strings"
)

// The link speed a NIC reports is not always the rate it can carry: a veth
// pair in a network namespace says 10000 Mbit/s whatever tc shapes it to,
// and a cloud VM's NIC often says nothing or its host's speed. The user
// (or scripts/netlab.sh) states the real rate with -p host.nicspeed, and
// the sampler reports it for every non-loopback interface, so that the
// NIC gauge and the "client NIC saturated" warning use it.

// ParseLinkSpeed reads a link speed: a number of Mbit/s ("100"), or a
// number with a unit, kbit, mbit or gbit ("100mbit", "1gbit", "2.5gbit";
// also kbps, mbps, gbps, k, m, g; any case). It returns whole Mbit/s, at
// least 1.
func ParseLinkSpeed(s string) (int, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	num := strings.TrimRightFunc(t, func(r rune) bool { return r >= 'a' && r <= 'z' || r == '/' })
	unit := strings.TrimSpace(t[len(num):])
	mult := 0.0
	switch unit {
	case "", "m", "mbit", "mbps", "mbit/s", "mb/s":
		mult = 1
	case "g", "gbit", "gbps", "gbit/s", "gb/s":
		mult = 1000
	case "k", "kbit", "kbps", "kbit/s", "kb/s":
		mult = 0.001
	default:
		return 0, fmt.Errorf("link speed %q: unknown unit %q (kbit, mbit, gbit)", s, unit)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || v <= 0 || v*mult > 1e7 {
		return 0, fmt.Errorf("link speed %q: want a positive number of Mbit/s up to 10 Tbit/s, or one with a unit (100mbit, 1gbit)", s)
	}
	mbps := int(v*mult + 0.5)
	if mbps < 1 {
		return 0, fmt.Errorf("link speed %q: below 1 Mbit/s", s)
	}
	return mbps, nil
}

// SetLinkSpeed states the link speed of every non-loopback interface in
// Mbit/s, overriding what sysfs says, from the next Sample on (0 goes
// back to sysfs). NICs then carry SpeedStated.
func (s *Sampler) SetLinkSpeed(mbps int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.linkSpeed = max(mbps, 0)
}
