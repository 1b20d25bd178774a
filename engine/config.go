package engine

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine/workload"
)

// Config is one validated run: everything the engine needs, read from YCSB
// property names. Build it with NewConfig.
type Config struct {
	Command string // "load" or "run"
	DB      string // adapter name

	// Props are all the properties, for adapters, which read their own.
	Props adapters.Properties

	Workload         string // "core" (YCSB CoreWorkload)
	WorkloadName     string // file or label shown to the user, e.g. "workloada"
	RecordCount      int64
	OperationCount   int64 // 0 = no limit
	MaxExecutionTime time.Duration
	Table            string

	FieldCount        int
	FieldLength       int
	FieldLengthDist   string // constant, uniform, zipfian
	MinFieldLength    int
	ReadAllFields     bool
	WriteAllFields    bool
	FieldNamePrefix   string
	DataIntegrity     bool
	ReadProportion    float64
	UpdateProportion  float64
	InsertProportion  float64
	ScanProportion    float64
	RMWProportion     float64
	DeleteProportion  float64
	RequestDist       string // uniform, zipfian, latest, hotspot, sequential, exponential
	HotspotDataFrac   float64
	HotspotOpnFrac    float64
	ExponentialPct    float64
	ExponentialFrac   float64
	MinScanLength     int
	MaxScanLength     int
	ScanLengthDist    string // uniform, zipfian
	OrderedInserts    bool
	InsertStart       int64
	InsertCount       int64
	ZeroPadding       int
	Threads           int
	Target            float64 // total ops/s, 0 = unlimited
	StatusInterval    time.Duration
	MeasurementIntvl  string // op, intended, both
	Percentiles       []float64
	Partitions        int
	LoadBeforeRun     bool // run against an in-process store: load first
	ClientBottleneckW float64
}

// Core properties the engine reads; anything else not claimed by an
// adapter prefix draws a warning.
var coreProperties = map[string]bool{
	"workload": true, "recordcount": true, "operationcount": true, "maxexecutiontime": true,
	"table": true, "fieldcount": true, "fieldlength": true, "fieldlengthdistribution": true,
	"minfieldlength": true, "readallfields": true, "writeallfields": true,
	"readproportion": true, "updateproportion": true, "insertproportion": true,
	"scanproportion": true, "readmodifywriteproportion": true, "deleteproportion": true,
	"requestdistribution": true, "hotspotdatafraction": true, "hotspotopnfraction": true,
	"minscanlength": true, "maxscanlength": true, "scanlengthdistribution": true,
	"insertorder": true, "insertstart": true, "insertcount": true, "zeropadding": true,
	"fieldnameprefix": true, "dataintegrity": true, "threadcount": true, "target": true,
	"status.interval": true, "measurement.interval": true, "hdrhistogram.percentiles": true,
	"partitions": true, "exponential.percentile": true, "exponential.frac": true,
	"measurementtype": true, "readallfieldsbyname": true, "db": true, "exporter": true,
	"exportfile": true, "measurement.trackjvm": true, "hdrhistogram.fileoutput": true,
	"hdrhistogram.output.path": true, "measurement.histogram.verbose": true,
	"load.before.run": true, "debug": true, "core_workload_insertion_retry_limit": true,
	"core_workload_insertion_retry_interval": true, "fieldlengthhistogram": true,
	"histogram.buckets": true, "timeseries.granularity": true, "dotransactions": true,
}

// Known workload class names that select the core workload.
var coreWorkloadNames = map[string]bool{
	"":                                      true,
	"core":                                  true,
	"site.ycsb.workloads.CoreWorkload":      true,
	"com.yahoo.ycsb.workloads.CoreWorkload": true,
}

// Limits on live controls.
const (
	MaxThreads    = 4096
	MaxPartitions = 1024
)

type propReader struct {
	p   adapters.Properties
	err error
}

func (r *propReader) bad(key, allowed string) {
	if r.err == nil {
		r.err = &adapters.ConfigError{Key: key, Value: r.p[key], Allowed: allowed}
	}
}

func (r *propReader) int64(key string, def, min int64) int64 {
	v, ok := r.p[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < min {
		r.bad(key, fmt.Sprintf("a whole number >= %d", min))
		return def
	}
	return n
}

func (r *propReader) int(key string, def, min, max int) int {
	v, ok := r.p[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < int64(min) || n > int64(max) {
		r.bad(key, fmt.Sprintf("a whole number from %d to %d", min, max))
		return def
	}
	return int(n)
}

func (r *propReader) float(key string, def, min, max float64) float64 {
	v, ok := r.p[key]
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || f < min || f > max {
		if max == math.MaxFloat64 {
			r.bad(key, fmt.Sprintf("a number >= %g", min))
		} else {
			r.bad(key, fmt.Sprintf("a number from %g to %g", min, max))
		}
		return def
	}
	return f
}

func (r *propReader) bool(key string, def bool) bool {
	b, err := r.p.Bool(key, def)
	if err != nil {
		r.bad(key, "true or false")
	}
	return b
}

func (r *propReader) choice(key, def string, allowed ...string) string {
	v, ok := r.p[key]
	if !ok {
		return def
	}
	v = strings.TrimSpace(v)
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return a
		}
	}
	r.bad(key, strings.Join(allowed, ", "))
	return def
}

// seconds reads a duration given in seconds (YCSB style) or as a Go
// duration ("500ms").
func (r *propReader) seconds(key string, def, min, max time.Duration) time.Duration {
	v, ok := r.p[key]
	if !ok {
		return def
	}
	s := strings.TrimSpace(v)
	var d time.Duration
	if f, err := strconv.ParseFloat(s, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) && f < 1e9 {
		d = time.Duration(f * float64(time.Second))
	} else if pd, err := time.ParseDuration(s); err == nil {
		d = pd
	} else {
		r.bad(key, fmt.Sprintf("seconds or a duration from %v to %v", min, max))
		return def
	}
	if d < min || d > max {
		r.bad(key, fmt.Sprintf("seconds or a duration from %v to %v", min, max))
		return def
	}
	return d
}

// NewConfig validates properties into a Config. The error, if any, is a
// *adapters.ConfigError naming the property, its value and what is
// allowed. Warnings list properties nobody reads.
func NewConfig(command, db string, props map[string]string) (*Config, []string, error) {
	p := adapters.Properties(props)
	r := &propReader{p: p}
	c := &Config{Command: command, DB: db, Props: p}
	if command != "load" && command != "run" {
		return nil, nil, &adapters.ConfigError{Key: "command", Value: command, Allowed: "load, run"}
	}
	wl := strings.TrimSpace(p["workload"])
	var factory *workload.Factory
	switch {
	case coreWorkloadNames[wl]:
		c.Workload = "core"
	default:
		f, ok := workload.Lookup(wl)
		if !ok {
			allowed := append([]string{"site.ycsb.workloads.CoreWorkload (core)"}, workload.Names()...)
			return nil, nil, &adapters.ConfigError{Key: "workload", Value: wl, Allowed: strings.Join(allowed, ", ")}
		}
		c.Workload = wl
		factory = &f
	}
	c.WorkloadName = p.String("benchtop.workloadname", "core")

	c.RecordCount = r.int64("recordcount", 0, 0)
	c.OperationCount = r.int64("operationcount", 0, 0)
	c.MaxExecutionTime = r.seconds("maxexecutiontime", 0, 0, 100*365*24*time.Hour)
	c.Table = p.String("table", "usertable")
	if strings.TrimSpace(c.Table) == "" {
		r.bad("table", "a non-empty name")
	}
	c.FieldCount = r.int("fieldcount", 10, 1, 10000)
	c.FieldLength = r.int("fieldlength", 100, 1, 64<<20)
	c.FieldLengthDist = r.choice("fieldlengthdistribution", "constant", "constant", "uniform", "zipfian")
	c.MinFieldLength = r.int("minfieldlength", 1, 1, 64<<20)
	c.ReadAllFields = r.bool("readallfields", true)
	c.WriteAllFields = r.bool("writeallfields", false)
	c.FieldNamePrefix = p.String("fieldnameprefix", "field")
	c.DataIntegrity = r.bool("dataintegrity", false)
	c.ReadProportion = r.float("readproportion", 0.95, 0, math.MaxFloat64)
	c.UpdateProportion = r.float("updateproportion", 0.05, 0, math.MaxFloat64)
	c.InsertProportion = r.float("insertproportion", 0, 0, math.MaxFloat64)
	c.ScanProportion = r.float("scanproportion", 0, 0, math.MaxFloat64)
	c.RMWProportion = r.float("readmodifywriteproportion", 0, 0, math.MaxFloat64)
	c.DeleteProportion = r.float("deleteproportion", 0, 0, math.MaxFloat64)
	c.RequestDist = r.choice("requestdistribution", "uniform", "uniform", "zipfian", "latest", "hotspot", "sequential", "exponential")
	c.HotspotDataFrac = r.float("hotspotdatafraction", 0.2, 0, 1)
	c.HotspotOpnFrac = r.float("hotspotopnfraction", 0.8, 0, 1)
	c.ExponentialPct = r.float("exponential.percentile", 95, 0.0001, 99.9999)
	c.ExponentialFrac = r.float("exponential.frac", 0.8571428571, 0.0000001, math.MaxFloat64)
	c.MinScanLength = r.int("minscanlength", 1, 1, 1<<30)
	c.MaxScanLength = r.int("maxscanlength", 1000, 1, 1<<30)
	c.ScanLengthDist = r.choice("scanlengthdistribution", "uniform", "uniform", "zipfian")
	c.OrderedInserts = r.choice("insertorder", "hashed", "hashed", "ordered") == "ordered"
	c.InsertStart = r.int64("insertstart", 0, 0)
	c.InsertCount = r.int64("insertcount", c.RecordCount-c.InsertStart, 0)
	c.ZeroPadding = r.int("zeropadding", 1, 1, 64)
	c.Threads = r.int("threadcount", 1, 1, MaxThreads)
	c.Target = r.float("target", 0, 0, 1e12)
	c.StatusInterval = r.seconds("status.interval", time.Second, 100*time.Millisecond, 10*time.Second)
	c.MeasurementIntvl = r.choice("measurement.interval", "both", "op", "intended", "both")
	c.Partitions = r.int("partitions", 1, 1, MaxPartitions)
	c.LoadBeforeRun = r.bool("load.before.run", false)
	if v, ok := p["hdrhistogram.percentiles"]; ok {
		for _, f := range strings.Split(v, ",") {
			q, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || q <= 0 || q > 100 || math.IsNaN(q) {
				r.bad("hdrhistogram.percentiles", "a comma-separated list of percentiles in (0, 100], e.g. 50,95,99")
				break
			}
			c.Percentiles = append(c.Percentiles, q)
		}
	} else {
		c.Percentiles = []float64{50, 95, 99} // YCSB's hdrhistogram.percentiles default
	}
	if r.err != nil {
		return nil, nil, r.err
	}

	if factory != nil {
		// The workload checks its own properties; the core mix does not
		// apply to it.
		if err := factory.Validate(p); err != nil {
			return nil, nil, err
		}
		return c, unknownWarnings(p, factory.Properties), nil
	}

	// Cross-property checks.
	sum := c.ReadProportion + c.UpdateProportion + c.InsertProportion + c.ScanProportion + c.RMWProportion + c.DeleteProportion
	if command == "run" && !(sum > 0) {
		return nil, nil, &adapters.ConfigError{Key: "readproportion+updateproportion+insertproportion+scanproportion+readmodifywriteproportion", Value: "0", Allowed: "proportions summing to more than 0"}
	}
	if c.MinScanLength > c.MaxScanLength {
		return nil, nil, &adapters.ConfigError{Key: "minscanlength", Value: p["minscanlength"], Allowed: fmt.Sprintf("at most maxscanlength (%d)", c.MaxScanLength)}
	}
	if c.MinFieldLength > c.FieldLength && c.FieldLengthDist != "constant" {
		return nil, nil, &adapters.ConfigError{Key: "minfieldlength", Value: p["minfieldlength"], Allowed: fmt.Sprintf("at most fieldlength (%d)", c.FieldLength)}
	}
	if c.DataIntegrity && c.FieldLengthDist != "constant" {
		return nil, nil, &adapters.ConfigError{Key: "fieldlengthdistribution", Value: c.FieldLengthDist, Allowed: "constant when dataintegrity=true"}
	}
	if _, ok := p["insertcount"]; ok && c.InsertStart+c.InsertCount > c.RecordCount && c.RecordCount > 0 {
		// YCSB allows insertstart+insertcount <= recordcount only.
		return nil, nil, &adapters.ConfigError{Key: "insertcount", Value: p["insertcount"], Allowed: fmt.Sprintf("at most recordcount-insertstart (%d)", c.RecordCount-c.InsertStart)}
	}
	if c.InsertCount < 0 {
		return nil, nil, &adapters.ConfigError{Key: "insertstart", Value: p["insertstart"], Allowed: fmt.Sprintf("at most recordcount (%d)", c.RecordCount)}
	}
	if command == "run" && c.RecordCount == 0 && (c.ReadProportion > 0 || c.UpdateProportion > 0 || c.ScanProportion > 0 || c.RMWProportion > 0 || c.DeleteProportion > 0) {
		if c.InsertProportion == 0 || c.RequestDist != "latest" {
			return nil, nil, &adapters.ConfigError{Key: "recordcount", Value: p.String("recordcount", "0"), Allowed: "a number > 0 when the run reads, updates or scans"}
		}
	}
	return c, unknownWarnings(p, nil), nil
}

func unknownWarnings(p adapters.Properties, extra []string) []string {
	prefixes := append([]string(nil), extra...)
	for _, d := range adapters.Drivers() {
		prefixes = append(prefixes, d.Prefixes...)
	}
	var warns []string
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if coreProperties[k] || strings.HasPrefix(k, "benchtop.") {
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
			warns = append(warns, fmt.Sprintf("warning: unknown property %q ignored", k))
		}
	}
	return warns
}

// Intended reports whether latency from the intended start is measured.
func (c *Config) Intended() bool {
	return c.MeasurementIntvl != "op"
}

// Mix describes the operation mix and key choice for headers.
func (c *Config) Mix() string {
	sum := c.ReadProportion + c.UpdateProportion + c.InsertProportion + c.ScanProportion + c.RMWProportion + c.DeleteProportion
	if sum <= 0 {
		return "insert 100"
	}
	var parts []string
	add := func(name string, v float64) {
		if v > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", name, strconv.FormatFloat(math.Round(v/sum*1000)/10, 'f', -1, 64)))
		}
	}
	add("read", c.ReadProportion)
	add("update", c.UpdateProportion)
	add("insert", c.InsertProportion)
	add("scan", c.ScanProportion)
	add("rmw", c.RMWProportion)
	add("delete", c.DeleteProportion)
	return strings.Join(parts, " / ") + ", " + c.RequestDist
}
