package host

import (
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/net"
)

func TestParseLinkSpeed(t *testing.T) {
	good := map[string]int{
		"100": 100, "100mbit": 100, "100Mbit": 100, " 100 mbit ": 100, "100mbps": 100, "100m": 100,
		"1gbit": 1000, "1G": 1000, "10gbit": 10000, "2.5gbit": 2500, "25gbps": 25000,
		"1500kbit": 2, "1000kbit": 1, "1mbit/s": 1,
	}
	for in, want := range good {
		if got, err := ParseLinkSpeed(in); err != nil || got != want {
			t.Errorf("ParseLinkSpeed(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "fast", "0", "-100", "100tbit", "1e9gbit", "mbit", "100 furlongs", "400kbit"} {
		if got, err := ParseLinkSpeed(in); err == nil {
			t.Errorf("ParseLinkSpeed(%q) = %d, want an error", in, got)
		}
	}
}

// A stated link speed replaces what sysfs says on every interface but
// loopback, and 0 goes back to sysfs.
func TestSetLinkSpeedOverridesSysfs(t *testing.T) {
	dir := fakeSysNet(t, map[string]map[string]string{
		"lo":    {"flags": "0x9\n", "operstate": "unknown\n"},
		"veth0": {"flags": "0x1003\n", "operstate": "up\n", "speed": "10000\n"},
		"eth1":  {"flags": "0x1003\n", "operstate": "up\n", "speed": "-1\n"},
	})
	s := &Sampler{sysNet: dir, ifaces: map[string]ifaceInfo{}}
	prev := map[string]net.IOCountersStat{
		"lo":    {Name: "lo", BytesRecv: 1, BytesSent: 1},
		"veth0": {Name: "veth0", BytesRecv: 1, BytesSent: 1},
		"eth1":  {Name: "eth1", BytesRecv: 1, BytesSent: 1},
	}
	cur := []net.IOCountersStat{
		{Name: "lo", BytesRecv: 1e6, BytesSent: 1e6},
		{Name: "veth0", BytesRecv: 1 + 12_000_000, BytesSent: 1},
		{Name: "eth1", BytesRecv: 2, BytesSent: 2},
	}
	speeds := func() map[string]NIC {
		nics, lo := s.nicRates(prev, cur, time.Second)
		if lo == nil || lo.SpeedMbps != 0 || lo.SpeedStated {
			t.Errorf("loopback = %+v, want no speed", lo)
		}
		out := map[string]NIC{}
		for _, n := range nics {
			out[n.Name] = n
		}
		return out
	}
	got := speeds()
	if got["veth0"].SpeedMbps != 10000 || got["veth0"].SpeedStated || got["eth1"].SpeedMbps != 0 {
		t.Errorf("from sysfs: %+v", got)
	}
	s.SetLinkSpeed(100)
	got = speeds()
	for _, name := range []string{"veth0", "eth1"} {
		if n := got[name]; n.SpeedMbps != 100 || !n.SpeedStated {
			t.Errorf("%s after SetLinkSpeed(100) = %+v, want 100 Mbit/s stated", name, n)
		}
	}
	if u := got["veth0"].Utilisation(); u < 0.95 || u > 0.97 {
		t.Errorf("veth0 at 12 MB/s of a stated 100 Mbit/s: utilisation %.3f, want 0.96", u)
	}
	s.SetLinkSpeed(0)
	if n := speeds()["veth0"]; n.SpeedMbps != 10000 || n.SpeedStated {
		t.Errorf("veth0 after SetLinkSpeed(0) = %+v, want sysfs's 10000", n)
	}
}
