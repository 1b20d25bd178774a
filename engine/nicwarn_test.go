package engine

import (
	"errors"
	"strings"
	"testing"

	"benchtop/adapters"
	"benchtop/engine/host"
)

func nicSample(nics ...host.NIC) host.Sample { return host.Sample{Cores: 2, NICs: nics} }

// 100 Mbit/s is 12.5 MB/s: 11.5 MB/s is 92 %, 10 MB/s is 80 %.
func TestNICSaturatedAfterThreeIntervals(t *testing.T) {
	t.Parallel()
	full := host.NIC{Name: "veth1", TxBytesPerSec: 11.5e6, RxBytesPerSec: 1e5, SpeedMbps: 100, SpeedStated: true}
	busy := full
	busy.TxBytesPerSec = 10e6
	other := host.NIC{Name: "eth0", RxBytesPerSec: 124e6, SpeedMbps: 1000}
	lo := host.NIC{Name: "lo", RxBytesPerSec: 1e9, Loopback: true}
	unknown := host.NIC{Name: "wg0", RxBytesPerSec: 1e9}

	var n nicSaturation
	steps := []struct {
		paused bool
		s      host.Sample
		want   []string // interface names warned about
	}{
		{false, nicSample(full, lo, unknown), nil},
		{false, nicSample(full, lo, unknown), nil},
		{false, nicSample(full, lo, unknown), []string{"veth1"}}, // third interval in a row
		{false, nicSample(full, other), []string{"veth1"}},
		{false, nicSample(busy, other), nil}, // 80 %: the count starts again
		{false, nicSample(full, other), []string{"eth0"}},
		{true, nicSample(full, other), nil}, // paused: every count resets
		{false, nicSample(full, other), nil},
		{false, nicSample(full, other), nil},
		{false, nicSample(full, other), []string{"veth1", "eth0"}},
	}
	for i, st := range steps {
		got := n.check(st.paused, st.s)
		if len(got) != len(st.want) {
			t.Fatalf("interval %d: %q, want warnings about %v", i+1, got, st.want)
		}
		for j, name := range st.want {
			if !strings.HasPrefix(got[j], "client NIC saturated: "+name+" ") || !strings.Contains(got[j], "add client machines") {
				t.Errorf("interval %d: %q, want the saturation of %s and the advice", i+1, got[j], name)
			}
		}
	}
	w := nicWarning(full, 3)
	for _, part := range []string{"veth1", "tx", "12 MB/s", "92 %", "100 Mbit/s", "host.nicspeed", "3 intervals", "add client machines"} {
		if !strings.Contains(w, part) {
			t.Errorf("warning %q lacks %q", w, part)
		}
	}
	if w := nicWarning(other, 4); !strings.Contains(w, "rx") || !strings.Contains(w, "1 Gbit/s") || strings.Contains(w, "host.nicspeed") {
		t.Errorf("warning for a read NIC speed: %q", w)
	}
}

func TestHostNICSpeedProperty(t *testing.T) {
	t.Parallel()
	base := map[string]string{"recordcount": "10"}
	for in, want := range map[string]int{"100mbit": 100, "1gbit": 1000, "10gbit": 10000, "250": 250} {
		p := map[string]string{"host.nicspeed": in}
		for k, v := range base {
			p[k] = v
		}
		c, warns, err := NewConfig("run", "null", p)
		if err != nil || c.NICSpeedMbps != want || len(warns) != 0 {
			t.Errorf("host.nicspeed=%s: %d, %q, %v; want %d Mbit/s, no warning", in, c.NICSpeedMbps, warns, err, want)
		}
	}
	_, _, err := NewConfig("run", "null", map[string]string{"host.nicspeed": "fast", "recordcount": "10"})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != "host.nicspeed" || !strings.Contains(ce.Error(), "1gbit") {
		t.Errorf("host.nicspeed=fast: %v, want a ConfigError naming the key and the forms allowed", err)
	}
	// The runner states it to its host sampler.
	c, _, err := NewConfig("run", "null", map[string]string{"host.nicspeed": "100mbit", "recordcount": "10"})
	if err != nil {
		t.Fatal(err)
	}
	hs := host.NewSampler()
	if _, err := New(c, nullDB{}, Options{Host: hs}); err != nil {
		t.Fatal(err)
	}
	s := hs.Sample()
	if len(s.NICs) == 0 {
		t.Skip("this machine has no non-loopback interface with traffic to show the stated speed on")
	}
	for _, nic := range s.NICs {
		if nic.SpeedMbps != 100 || !nic.SpeedStated {
			t.Errorf("%s: %d Mbit/s (stated %v), want the stated 100", nic.Name, nic.SpeedMbps, nic.SpeedStated)
		}
	}
}
