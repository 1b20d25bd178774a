package engine

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine/host"
	"benchtop/workload"
)

// Config is one validated run: the run settings the engine needs, read
// from YCSB's property names (the workload reads its own). Build it with
// NewConfig.
type Config struct {
	Command string // "load" or "run"
	DB      string // adapter name

	// Props are all the properties, for the adapter and the workload,
	// which read their own.
	Props adapters.Properties

	Workload         string // registry name of the workload, e.g. "core"
	WorkloadName     string // file or label shown to the user, e.g. "workloada"
	OperationCount   int64  // run phase: 0 = no limit
	MaxExecutionTime time.Duration
	Threads          int
	Target           float64 // total ops/s, 0 = unlimited
	// PacingGrid is pacing.grid: intended starts are rounded up to a
	// multiple of it, so that the workers due within one step are woken
	// together (0: to the ns, a wake-up per operation).
	PacingGrid time.Duration
	// PacingWindow is pacing.window: the pacer's dispatcher wakes at most
	// once per window, for every start due by then (0: for each start).
	PacingWindow time.Duration
	// Arrivals is arrivals: "even" (YCSB's evenly spaced schedule) or
	// "poisson" (exponential gaps of the same mean, see schedule).
	Arrivals         string
	StatusInterval   time.Duration
	MeasurementIntvl string // op, intended, both
	Percentiles      []float64
	Partitions       int
	// LoadBeforeRun runs the load phase before a run command even when the
	// adapter keeps its data (load.before.run).
	LoadBeforeRun bool
	// Output is how the report is written (YCSB's exporter, exportfile,
	// measurementtype, ...).
	Output Output
	// NICSpeedMbps is the client's link speed stated with host.nicspeed
	// (100mbit, 1gbit, ...), 0 when not stated: the host sampler reports it
	// for the NICs instead of what sysfs says.
	NICSpeedMbps int
}

// runProperties are the run settings the engine reads (outputProperties
// too); YCSB's other client properties are either not implemented (each
// warned: notImplemented) or unknown (warned too).
var runProperties = []string{
	"workload", "operationcount", "maxexecutiontime", "threadcount", "target",
	"status.interval", "measurement.interval", "hdrhistogram.percentiles",
	"partitions", "load.before.run", "dotransactions", "host.nicspeed", "pacing.grid",
	"pacing.window", "arrivals",
}

// The pacing grid (pacing.grid): its default and its largest value. The
// default is none: a grid saves about a tenth of the paced CPU but its
// bunching shows in the latency a benchmark reports (intended p50 25 µs
// against 16 µs at 150,000 ops/s over 12 threads on 2 cores), and a
// benchmark's figures come first; the grid is an option for a client
// short of CPU (docs/ycsb.md, "Latency, honestly").
const (
	DefaultPacingGrid = 0
	MaxPacingGrid     = 10 * time.Millisecond
)

// The pacing window (pacing.window): its default and its largest value.
// A wake-up of the pacer costs the same whether it starts one operation
// or ten (a timer armed, a thread woken: on a VM, exits to the
// hypervisor), so the window sets the CPU a paced operation costs
// against how late it may start. The default, 0, wakes for each start
// (late by 13-20 µs at the median at 150,000 ops/s over 12 threads on a
// 2-vCPU VM, 3.9x go-ycsb's client CPU): the intended latency stays as
// exact as the host allows, and a window is the user's to trade (200 µs:
// 0.68x go-ycsb's CPU, starts 115 µs late at the median; go-ycsb's own
// are 400-700 µs late). docs/performance.md, issue 38's section.
const (
	DefaultPacingWindow = 0
	MaxPacingWindow     = 10 * time.Millisecond
)

// Limits on live controls.
const (
	MaxThreads    = 4096
	MaxPartitions = adapters.MaxPartitions
)

// NewConfig validates properties into a Config. The error, if any, is a
// *adapters.ConfigError naming the property, its value and what is
// allowed. Warnings list properties nobody reads.
func NewConfig(command, db string, props map[string]string) (*Config, []string, error) {
	p := adapters.Properties(props)
	if command != "load" && command != "run" {
		return nil, nil, &adapters.ConfigError{Key: "command", Value: command, Allowed: "load, run"}
	}
	wl := strings.TrimSpace(p["workload"])
	factory, ok := workload.Lookup(wl)
	if !ok {
		return nil, nil, &adapters.ConfigError{Key: "workload", Value: wl, Allowed: strings.Join(workloadNames(), ", ")}
	}
	r := adapters.NewReader(p)
	c := &Config{Command: command, DB: db, Props: p, Workload: factory.Name}
	c.WorkloadName = r.String("benchtop.workloadname", factory.Name)
	c.OperationCount = r.Int64("operationcount", 0, 0, math.MaxInt64)
	c.MaxExecutionTime = r.Seconds("maxexecutiontime", 0, 0, 100*365*24*time.Hour)
	c.Threads = r.Int("threadcount", 1, 1, MaxThreads)
	c.Target = r.Float("target", 0, 0, 1e12)
	c.PacingGrid = r.Duration("pacing.grid", DefaultPacingGrid, time.Microsecond, 0, MaxPacingGrid)
	c.PacingWindow = r.Duration("pacing.window", DefaultPacingWindow, time.Microsecond, 0, MaxPacingWindow)
	c.Arrivals = r.Choice("arrivals", "even", "even", "poisson")
	c.StatusInterval = r.Seconds("status.interval", time.Second, 100*time.Millisecond, 10*time.Second)
	c.MeasurementIntvl = r.Choice("measurement.interval", "both", "op", "intended", "both")
	c.Partitions = r.Int("partitions", 1, 1, MaxPartitions)
	c.LoadBeforeRun = r.Bool("load.before.run", false)
	c.Percentiles = parsePercentiles(r, p)
	command, phaseWarn := doTransactions(r, command)
	c.Command = command
	c.Output = readOutput(r, c.StatusInterval)
	c.NICSpeedMbps = readNICSpeed(r)
	if err := r.Err(); err != nil {
		return nil, nil, err
	}
	if err := factory.Validate(command, p); err != nil {
		return nil, nil, err
	}
	// Names under a prefix an adapter or workload claims that it does not
	// read (the selected adapter may refuse them), then names nobody
	// claims.
	warns, err := adapters.CheckUnknown(p, db)
	if err != nil {
		return nil, nil, err
	}
	warns = append(warns, workload.Unknown(without(p, outputProperties))...)
	warns = append(warns, unknownWarnings(p, factory.Properties)...)
	warns = append(warns, notImplementedWarnings(p)...)
	if phaseWarn != "" {
		warns = append([]string{phaseWarn}, warns...)
	}
	return c, dedupe(warns), nil
}

// doTransactions reads YCSB's dotransactions, the property YCSB's -load
// (false) and -t (true) set: given with -p it decides the phase over the
// subcommand, as a -p after YCSB's -load does. The warning says when it
// overrode the subcommand.
func doTransactions(r *adapters.Reader, command string) (string, string) {
	if !r.Has("dotransactions") {
		return command, ""
	}
	want := "load"
	if r.Bool("dotransactions", true) {
		want = "run"
	}
	if want == command {
		return command, ""
	}
	if want == "load" {
		return want, "dotransactions=false: running the load phase (as YCSB's -load), not the run phase"
	}
	return want, "dotransactions=true: running the transactions (as YCSB's -t), not the load phase"
}

// dedupe drops repeated lines (a name two packages claim), keeping order.
func dedupe(lines []string) []string {
	seen := map[string]bool{}
	out := lines[:0]
	for _, l := range lines {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	return out
}

// readNICSpeed reads host.nicspeed: 0 when not set.
func readNICSpeed(r *adapters.Reader) int {
	v := r.String("host.nicspeed", "")
	if strings.TrimSpace(v) == "" {
		return 0
	}
	mbps, err := host.ParseLinkSpeed(v)
	if err != nil {
		r.Bad("host.nicspeed", "a link speed: 100mbit, 1gbit, 10gbit, or a number of Mbit/s")
		return 0
	}
	return mbps
}

// parsePercentiles reads hdrhistogram.percentiles: the percentiles the
// report prints, YCSB's 95,99 by default (Stats keep p50, p95, p99 and
// p99.9 whatever it says, for the live screen and the JSON summary).
func parsePercentiles(r *adapters.Reader, p adapters.Properties) []float64 {
	v, ok := p["hdrhistogram.percentiles"]
	if !ok {
		return []float64{95, 99}
	}
	var out []float64
	for _, f := range strings.Split(v, ",") {
		q, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || q <= 0 || q > 100 || math.IsNaN(q) {
			r.Bad("hdrhistogram.percentiles", "a comma-separated list of percentiles in (0, 100], e.g. 50,95,99")
			return nil
		}
		out = append(out, q)
	}
	return out
}

// workloadNames lists the workloads for an error message, the core one
// first under YCSB's class name.
func workloadNames() []string {
	out := []string{"site.ycsb.workloads.CoreWorkload (core)"}
	for _, n := range workload.Names() {
		if n != "core" {
			out = append(out, n)
		}
	}
	return out
}

func unknownWarnings(p adapters.Properties, workloadProps []string) []string {
	known := map[string]bool{}
	var prefixes []string
	lists := [][]string{runProperties, outputProperties, workloadProps}
	for k := range notImplemented {
		known[k] = true // warned on their own
	}
	if core, ok := workload.Lookup("core"); ok {
		// YCSB's core names are common to every workload file.
		lists = append(lists, core.Properties)
	}
	for _, list := range lists {
		for _, k := range list {
			if strings.HasSuffix(k, ".") {
				prefixes = append(prefixes, k)
			} else {
				known[k] = true
			}
		}
	}
	for _, d := range adapters.Drivers() {
		prefixes = append(prefixes, d.Prefixes...)
	}
	var warns []string
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	names := make([]string, 0, len(known))
	for k := range known {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range keys {
		if known[k] || strings.HasPrefix(k, "benchtop.") {
			continue
		}
		claimed := false
		for _, pre := range prefixes {
			if pre != "" && strings.HasPrefix(k, pre) {
				claimed = true
				break
			}
		}
		if !claimed {
			warns = append(warns, adapters.UnknownWarning(k, names))
		}
	}
	return warns
}

// Intended reports whether latency from the intended start is measured.
func (c *Config) Intended() bool {
	return c.MeasurementIntvl != "op"
}
