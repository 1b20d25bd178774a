package sim

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
)

// TestSize: what is given is kept, what is not is derived, so that
// servers / mean service time is the capacity.
func TestSize(t *testing.T) {
	cases := []struct {
		props    map[string]string
		servers  int
		mean     time.Duration
		capacity float64
	}{
		{map[string]string{}, 50, time.Millisecond, 50000},
		{map[string]string{"sim.capacity": "20000"}, 20, time.Millisecond, 20000},
		{map[string]string{"sim.capacity": "1500"}, 2, 1333333 * time.Nanosecond, 1500}, // the default mean gives way
		{map[string]string{"sim.capacity": "100"}, 1, 10 * time.Millisecond, 100},       // at least one server
		{map[string]string{"sim.capacity": "20000", "sim.latency": "5ms"}, 100, 5 * time.Millisecond, 20000},
		{map[string]string{"sim.capacity": "20000", "sim.latency": "5"}, 100, 5 * time.Millisecond, 20000}, // ms
		{map[string]string{"sim.servers": "8", "sim.latency": "2ms"}, 8, 2 * time.Millisecond, 4000},
		{map[string]string{"sim.servers": "8", "sim.capacity": "2000"}, 8, 4 * time.Millisecond, 2000},
		{map[string]string{"sim.servers": "8"}, 8, time.Millisecond, 8000},
		{map[string]string{"sim.latency": "10ms"}, 500, 10 * time.Millisecond, 50000},
		{map[string]string{"sim.servers": "10", "sim.capacity": "2000", "sim.latency": "5ms"}, 10, 5 * time.Millisecond, 2000},
	}
	for _, c := range cases {
		cfg, err := ReadConfig(c.props)
		if err != nil {
			t.Errorf("%v: %v", c.props, err)
			continue
		}
		m := cfg.Model
		if m.Servers != c.servers || m.Service.Mean != c.mean || abs(m.Capacity()/c.capacity-1) > 1e-6 {
			t.Errorf("%v: %d servers, mean %v, capacity %g; want %d, %v, %g", c.props, m.Servers, m.Service.Mean, m.Capacity(), c.servers, c.mean, c.capacity)
		}
	}
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

// TestRefused: bad values and contradictory combinations are one
// *adapters.ConfigError naming the key, the value and what is allowed.
func TestRefused(t *testing.T) {
	cases := []struct {
		props map[string]string
		key   string
		says  string // in the error's line
	}{
		{map[string]string{"sim.servers": "10", "sim.capacity": "2000", "sim.latency": "4ms"}, "sim.servers", "2000 × 4ms = 8 servers"},
		{map[string]string{"sim.capacity": "100", "sim.latency": "1ms"}, "sim.latency", "makes 0.1"},
		{map[string]string{"sim.capacity": "1500", "sim.latency": "1ms"}, "sim.latency", "makes 1.5"},
		{map[string]string{"sim.capacity": "0"}, "sim.capacity", "a number from"},
		{map[string]string{"sim.capacity": "lots"}, "sim.capacity", "a number from"},
		{map[string]string{"sim.latency": "0"}, "sim.latency", "a duration"},
		{map[string]string{"sim.servers": "0"}, "sim.servers", "a whole number from 1"},
		{map[string]string{"sim.service": "normal"}, "sim.service", "exp, lognormal, gamma, uniform, const"},
		{map[string]string{"sim.service.cv": "2"}, "sim.service.cv", "only with sim.service=lognormal"},
		{map[string]string{"sim.service": "uniform", "sim.service.cv": "0.9"}, "sim.service.cv", "from 0 to 0.5773"},
		{map[string]string{"sim.stall": "10s"}, "sim.stall", "OFFSET:DURATION"},
		{map[string]string{"sim.stall": "10s:0s"}, "sim.stall", "OFFSET:DURATION"},
		{map[string]string{"sim.outage": "x:1s"}, "sim.outage", "OFFSET:DURATION"},
		{map[string]string{"sim.errors": "1.5"}, "sim.errors", "a share from 0 to 1"},
		{map[string]string{"sim.notfound": "0.1@5s"}, "sim.notfound", "a share from 0 to 1"},
		{map[string]string{"sim.clientcost": "-1us"}, "sim.clientcost", "a duration"},
		{map[string]string{"sim.load": "bulk"}, "sim.load", "instant, modelled"},
		{map[string]string{"sim.capacity": "1e9", "sim.latency": "1s"}, "sim.capacity", "at most 1000000 servers"},
		{map[string]string{"sim.capacity": "1e9", "sim.servers": "1"}, "sim.capacity", "from 1µs to 1h"},
	}
	for _, c := range cases {
		_, err := Open(c.props)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != c.key || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err = %v, want one line, a ConfigError for %s saying %q", c.props, err, c.key, c.says)
		}
	}
}

func TestFaultsParsed(t *testing.T) {
	cfg, err := ReadConfig(map[string]string{
		"sim.stall":    "10s:2s, 30:1.5",
		"sim.outage":   "1m:5s",
		"sim.errors":   "0.01,0.5@30s:10s",
		"sim.notfound": "0.05",
	})
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.Model.Faults
	want := Faults{
		Stalls:   []Window{{10 * time.Second, 2 * time.Second}, {30 * time.Second, 1500 * time.Millisecond}},
		Outages:  []Window{{time.Minute, 5 * time.Second}},
		Errors:   []Share{{P: 0.01}, {P: 0.5, Window: &Window{30 * time.Second, 10 * time.Second}}},
		NotFound: []Share{{P: 0.05}},
	}
	if !reflect.DeepEqual(f, want) {
		t.Errorf("faults %+v, want %+v", f, want)
	}
	if got := f.String(); got != "stall 10s:2s,30s:1.5s; outage 1m:5s; errors 0.01,0.5@30s:10s; notfound 0.05" {
		t.Errorf("String() = %q", got)
	}
	if p := share(f.Errors, int64(35*time.Second)); p != 0.5 {
		t.Errorf("error share at 35s = %g, want 0.5 (the largest in force)", p)
	}
	if p := share(f.Errors, int64(45*time.Second)); p != 0.01 {
		t.Errorf("error share at 45s = %g, want 0.01", p)
	}
}

// TestDriver: registered with its description, every key it reads listed
// (unknown names under sim. draw a warning with the close match).
func TestDriver(t *testing.T) {
	d, ok := adapters.Lookup("sim")
	if !ok {
		t.Fatal(`"sim" is not registered`)
	}
	if d.Description != Description || !strings.Contains(d.Description, "not a database") {
		t.Errorf("description %q", d.Description)
	}
	props := map[string]string{}
	for _, k := range Keys {
		props[k] = "x"
	}
	if w, err := d.Unknown(props); len(w) != 0 || err != nil {
		t.Errorf("the keys it reads draw %q, %v", w, err)
	}
	w, _ := d.Unknown(map[string]string{"sim.capacty": "1", "sim.stal": "1s:1s", "sim.zzz": "1"})
	want := []string{
		`warning: unknown property "sim.capacty" ignored (did you mean sim.capacity?)`,
		`warning: unknown property "sim.stal" ignored (did you mean sim.stall?)`,
		`warning: unknown property "sim.zzz" ignored`,
	}
	if !reflect.DeepEqual(w, want) {
		t.Errorf("warnings %q, want %q", w, want)
	}
	// Keys is what ReadConfig reads: the reader's record of the keys
	// asked.
	r := adapters.NewReader(adapters.Properties{})
	if _, err := readWith(r, adapters.Properties{}); err != nil {
		t.Fatal(err)
	}
	if want := slices.Sorted(slices.Values(Keys)); !reflect.DeepEqual(r.Keys(), want) {
		t.Errorf("ReadConfig reads %q, Keys lists %q", r.Keys(), want)
	}
	db, err := adapters.Open(context.Background(), "sim", adapters.Properties{"sim.capacity": "2000", "sim.latency": "5ms"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.(adapters.Describer).Describe(); got != "model server (not a database): 2,000 ops/s = 10 servers / 5ms mean, exp" {
		t.Errorf("Describe() = %q", got)
	}
}

func TestGroup(t *testing.T) {
	for n, want := range map[float64]string{20000: "20,000", 1500: "1,500", 1e6: "1,000,000", 333.333: "333.3", 0.5: "0.5", 999: "999"} {
		if got := group(n); got != want {
			t.Errorf("group(%g) = %q, want %q", n, got, want)
		}
	}
}
