package cli

// [demo] benchtop demo [sim|memory]: the store it plays on and the
// scenario it plays there (results/steps' SimDemo or MemoryDemo), which the
// screen captions (screen.go) and the player plays (props.go).

import (
	"runtime"
	"strconv"
	"strings"

	"benchtop/adapters"
	"benchtop/adapters/sim"
	"benchtop/results/steps"
)

// demoAdapter takes the demo's optional store from args: sim (the
// default: a model server whose capacity is known, so that each step's
// effect is true on any machine and its caption can say why) or memory.
func demoAdapter(o *options, args []string) ([]string, error) {
	o.DB = "sim"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		o.DB, args = args[0], args[1:]
	}
	if o.DB != "sim" && o.DB != "memory" {
		return nil, usagef("demo %q: the demo plays on sim (a model server, the default) or memory (allowed: sim, memory); for another database: benchtop run %s --sweep threads=1,2,4,8", o.DB, o.DB)
	}
	return args, nil
}

// demoScenario sets o.Demo for the demo's store. On sim, the model is 20
// servers of 2 ms (10,000 ops/s) unless -p or -P sizes it (sim.capacity,
// sim.latency, sim.servers); its steps and captions follow the model. Its
// data set is small and loaded through the model (sim.load=modelled), so
// that the load phase runs at the model's pace and the chart's scale is
// the run's, not a load's of 100,000 records at memory speed.
func demoScenario(o *options, fv *flagValues, props map[string]string) error {
	if o.DB != "sim" {
		d := steps.MemoryDemo(runtime.NumCPU())
		o.Demo = &d
		return nil
	}
	given := func(k string) bool {
		_, a := fv.fileProps[k]
		_, b := fv.cliProps[k]
		return a || b
	}
	if !given(sim.PropCapacity) && !given(sim.PropLatency) && !given(sim.PropServers) {
		props[sim.PropCapacity] = strconv.Itoa(steps.SimDemoCapacity)
		props[sim.PropLatency] = steps.SimDemoLatency.String()
	}
	for k, v := range map[string]string{"recordcount": "500", sim.PropLoad: sim.LoadModelled} {
		if !given(k) {
			props[k] = v
		}
	}
	cfg, err := sim.ReadConfig(adapters.Properties(props))
	if err != nil {
		return usagef("%s", describeConfigErr(err))
	}
	m := cfg.Model
	if m.Servers < steps.SimDemoMinServers || m.Capacity() > steps.SimDemoMaxCapacity {
		return usagef("demo: a model of %d servers, %.0f ops/s: the demo's steps need one of at least %d servers and at most %d ops/s (the default is %d ops/s, 20 servers × 2 ms); for others: benchtop run sim --sweep ...",
			m.Servers, m.Capacity(), steps.SimDemoMinServers, steps.SimDemoMaxCapacity, steps.SimDemoCapacity)
	}
	d := steps.SimDemo(m.Servers, m.Service.Mean)
	o.Demo = &d
	return nil
}
