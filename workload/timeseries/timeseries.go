// Package timeseries is benchtop's batched time-series ingest workload
// (-p workload=timeseries): writers generate points in InfluxDB line
// protocol, gather them in batches and send a batch when it is full
// (batch.size) or when its oldest point has waited flush.interval, the way
// a stream-processing sink writes into InfluxDB or openGemini. It reports
// records/s and MB/s, batch write latency, HTTP errors by status and
// backpressure, and at the end counts the points back and compares them
// with what the server acknowledged.
//
// # How it maps onto the runner
//
// Parallelism is the runner's -threads: each worker goroutine is one
// writer with its own batch. One Transaction is one record (one point)
// appended to the writer's batch, so -target is records/s and
// operationcount is a number of records; the Transaction that fills the
// batch (or finds its oldest point older than flush.interval) hands the
// batch to the writer's sender. Two operation types are measured:
//
//   - RECORD: the time to hand one record to the writer, counted once per
//     record. It is sub-microsecond while the sender keeps up and grows by
//     the time the writer waits when it cannot (backpressure). With a
//     target rate its intended latency is how late, against the schedule,
//     a record was accepted.
//   - WRITE: one batch write (one HTTP request, from before it is sent to
//     its answer), counted once per attempt, through the SubRecorder. Its
//     p50/p95/p99 are the batch write latencies.
//
// Throughput (ops/s) is records accepted per second. The Sampler adds
// records and MB of line protocol acknowledged by the server
// (Delta "records" and "mb", so segments carry records_per_sec and
// mb_per_sec), and the backpressure share.
//
// # Sending and backpressure
//
// Each writer has at most timeseries.inflight batches being sent (default
// 1: the next batch fills while one is written; 0: the writer sends
// synchronously inside the Transaction). A writer whose batch is ready
// while its in-flight slots are all taken waits. Backpressure is the time
// writers spent waiting to hand over a batch (with inflight=0, the whole
// send) divided by the wall time of the writers active in the interval:
// 0 means the database accepted batches as fast as they were produced, 1
// means the writers waited all the time, the database setting the pace.
//
// A background flusher sends the batches of writers that are idle (paused,
// throttled to a low target, or stopped by a thread change) once their
// oldest point is flush.interval old; the workload's Stop sends what is
// left at the end of a phase.
//
// # Nothing lost
//
// Every point is unique by series and timestamp, since InfluxDB silently
// merges points that share both: point number k (a global sequence) goes
// to series k mod S (S = hosts x regions) at timestamp
// start + (k div S) x timeseries.step. Each run tags its points with
// run=<random id> (timeseries.runtag), and the Finisher counts them back
// with SELECT count(*) ... WHERE run='<id>'. Fewer points stored than
// acknowledged, or more than were sent at all, is a Problem: an error in
// the report and exit status 1. Failed batches are retried
// (timeseries.retries) when the error is throttling, unavailability or a
// timeout; a retry cannot duplicate points, since a point is its series
// and timestamp.
//
// The package imports only the workload and adapter contracts; it finds
// the line-protocol writer (adapters/influx) by type assertion on the
// adapters.LineWriter and adapters.PointCounter interfaces.
package timeseries

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/workload"
)

// Name is the value of the workload property that selects the workload.
const Name = "timeseries"

// Operation types, by index into OpNames.
const (
	OpRecord = iota // one record handed to the writer's batch
	OpWrite         // one batch write attempt
)

// OpNames names the operation types.
var OpNames = []string{"RECORD", "WRITE"}

// Property names.
const (
	PropMeasurement   = "timeseries.measurement"   // measurement name, default "cpu"
	PropHosts         = "timeseries.hosts"         // values of the host tag, default 100
	PropRegions       = "timeseries.regions"       // values of the region tag, default 10
	PropFields        = "timeseries.fields"        // float field names, comma-separated
	PropStep          = "timeseries.step"          // time between two points of a series
	PropRunTag        = "timeseries.runtag"        // tag points with run=<id>, default true
	PropInFlight      = "timeseries.inflight"      // batches being sent per writer, default 1
	PropRetries       = "timeseries.retries"       // retries of a failed batch, default 3
	PropCheck         = "timeseries.check"         // count the points back at the end, default true
	PropCheckTimeout  = "timeseries.check.timeout" // how long the count may take to match, default 10s
	PropBatchSize     = "batch.size"               // records per batch, default 5000
	PropFlushInterval = "flush.interval"           // oldest record's longest wait, default 300ms
)

// DefaultFields are the float fields of a point unless timeseries.fields
// says otherwise. With the default tags and nanosecond timestamps a point
// is 132 bytes of line protocol, the record size of the published
// openGemini sink benchmark this workload reproduces.
var DefaultFields = []string{"usage_user", "usage_system", "usage_idle"}

// Config is the workload's validated configuration.
type Config struct {
	Measurement   string
	Hosts         int
	Regions       int
	Fields        []string
	Step          time.Duration // 0: one millisecond, or the precision if coarser
	RunTag        bool
	BatchSize     int
	FlushInterval time.Duration // 0: send full batches only (and what is left at the end)
	InFlight      int
	Retries       int
	Check         bool
	CheckTimeout  time.Duration
}

// Limits of the configuration.
const (
	MaxBatchSize = 1_000_000
	MaxInFlight  = 64
	MaxSeries    = 10_000_000
)

func init() {
	workload.Register(workload.Factory{
		Name: Name,
		Validate: func(_ string, p adapters.Properties) error {
			_, err := ParseConfig(p)
			return err
		},
		Properties: []string{"timeseries.", PropBatchSize, PropFlushInterval},
		Keys:       Keys,
		Produces:   func(string, adapters.Properties) []string { return OpNames },
		// One rate: records acknowledged by the server (its MB/s beside).
		RateKey: "records", RateUnit: "records/s", OpUnits: map[string]string{"WRITE": "batches"},
		New: func(_ string, p adapters.Properties, db adapters.DB) (workload.Workload, error) {
			cfg, err := ParseConfig(p)
			if err != nil {
				return nil, err
			}
			w, err := New(cfg, db)
			if err != nil {
				return nil, err
			}
			w.loadCount = loadCount(p)
			return w, nil
		},
	})
}

// Keys are the properties the workload reads (the Factory's Keys).
var Keys = []string{
	PropMeasurement, PropHosts, PropRegions, PropFields, PropStep, PropRunTag,
	PropInFlight, PropRetries, PropCheck, PropCheckTimeout, PropBatchSize, PropFlushInterval,
}

// ParseConfig reads the workload's properties; bad values are
// *adapters.ConfigError.
func ParseConfig(p adapters.Properties) (Config, error) {
	r := adapters.NewReader(p)
	c := readConfig(r)
	return c, r.Err()
}

// readConfig reads every property even after a bad one; the first error is
// the Reader's.
func readConfig(r *adapters.Reader) Config {
	c := Config{Measurement: strings.TrimSpace(r.String(PropMeasurement, "cpu"))}
	if !validName(c.Measurement) {
		r.Bad(PropMeasurement, "a name of letters, digits, '_', '-' and '.'")
	}
	c.Hosts = r.Int(PropHosts, 100, 1, MaxSeries)
	c.Regions = r.Int(PropRegions, 10, 1, MaxSeries)
	c.BatchSize = r.Int(PropBatchSize, 5000, 1, MaxBatchSize)
	c.InFlight = r.Int(PropInFlight, 1, 0, MaxInFlight)
	c.Retries = r.Int(PropRetries, 3, 0, 100)
	if int64(c.Hosts)*int64(c.Regions) > MaxSeries {
		r.Bad(PropHosts, fmt.Sprintf("hosts x regions at most %d series", MaxSeries))
	}
	c.Fields = readFields(r)
	c.Step = r.Duration(PropStep, 0, time.Millisecond, 0, 24*time.Hour)
	if r.Has(PropStep) && c.Step <= 0 {
		r.Bad(PropStep, "a duration > 0 such as 1ms or 10s")
	}
	c.FlushInterval = r.Duration(PropFlushInterval, 300*time.Millisecond, time.Millisecond, 0, 24*time.Hour)
	c.RunTag = r.Bool(PropRunTag, true)
	c.Check = r.Bool(PropCheck, true)
	c.CheckTimeout = r.Duration(PropCheckTimeout, 10*time.Second, time.Second, 0, 24*time.Hour)
	return c
}

// readFields reads timeseries.fields: distinct names, comma-separated.
func readFields(r *adapters.Reader) []string {
	v := r.String(PropFields, "")
	if !r.Has(PropFields) {
		return DefaultFields
	}
	var fields []string
	seen := map[string]bool{}
	for _, f := range strings.Split(v, ",") {
		f = strings.TrimSpace(f)
		if !validName(f) || f == "time" || seen[f] {
			r.Bad(PropFields, "distinct field names (letters, digits, '_', '-', '.'; not \"time\"), comma-separated")
			return DefaultFields
		}
		seen[f] = true
		fields = append(fields, f)
	}
	return fields
}

// validName accepts names that need no escaping in line protocol or
// InfluxQL: letters, digits, '_', '-' and '.'.
func validName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-', r == '.':
		default:
			return false
		}
	}
	return true
}

// digits is the number of decimal digits of n-1 (the largest index), at
// least min: the zero-padded width of tag values.
func digits(n, min int) int {
	d := len(strconv.Itoa(max(n-1, 0)))
	return max(d, min)
}

// lineGen builds the line protocol of point number seq. It is immutable
// and shared by all writers.
type lineGen struct {
	series    int64
	hosts     int
	prefixes  [][]byte // per series when few enough: `cpu,host=host0042,region=region07,run=ab12cd34 `
	meas      []byte
	hostTags  [][]byte // `,host=host0042`
	regTags   [][]byte // `,region=region07`
	runTag    []byte   // `,run=ab12cd34` or empty
	fields    [][]byte // ` usage_user=`, `,usage_system=`, ...
	start     int64    // first timestamp, in precision units
	stepUnits int64    // step in precision units
}

const maxPrefixSeries = 1 << 16

func newLineGen(c Config, runID string, precision time.Duration, start time.Time) (*lineGen, error) {
	step := c.Step
	if step == 0 {
		step = max(time.Millisecond, precision)
	}
	if step%precision != 0 {
		return nil, &adapters.ConfigError{Key: PropStep, Value: step.String(), Allowed: fmt.Sprintf("a multiple of the adapter's timestamp precision (%v)", precision)}
	}
	g := &lineGen{
		series:    int64(c.Hosts) * int64(c.Regions),
		hosts:     c.Hosts,
		meas:      []byte(c.Measurement),
		start:     start.UnixNano() / int64(precision),
		stepUnits: int64(step / precision),
	}
	hw, rw := digits(c.Hosts, 4), digits(c.Regions, 2)
	for i := 0; i < c.Hosts; i++ {
		g.hostTags = append(g.hostTags, fmt.Appendf(nil, ",host=host%0*d", hw, i))
	}
	for i := 0; i < c.Regions; i++ {
		g.regTags = append(g.regTags, fmt.Appendf(nil, ",region=region%0*d", rw, i))
	}
	if c.RunTag {
		g.runTag = []byte(",run=" + runID)
	}
	for i, f := range c.Fields {
		sep := ","
		if i == 0 {
			sep = " "
		}
		g.fields = append(g.fields, []byte(sep+f+"="))
	}
	if g.series <= maxPrefixSeries {
		g.prefixes = make([][]byte, g.series)
		for s := range g.prefixes {
			g.prefixes[s] = g.appendSeries(nil, int64(s))
		}
	}
	// Timestamps must stay within what line protocol can carry.
	if g.start > math.MaxInt64/2 {
		return nil, fmt.Errorf("timeseries: start time %v is out of range", start)
	}
	return g, nil
}

// appendSeries appends the measurement and tags of series s.
func (g *lineGen) appendSeries(b []byte, s int64) []byte {
	b = append(b, g.meas...)
	b = append(b, g.hostTags[s%int64(g.hosts)]...)
	b = append(b, g.regTags[s/int64(g.hosts)]...)
	return append(b, g.runTag...)
}

// appendLine appends point number seq, with field values drawn from r (a
// random 64-bit number per field), and a newline.
func (g *lineGen) appendLine(b []byte, seq int64, rnd func() uint64) []byte {
	s := seq % g.series
	if g.prefixes != nil {
		b = append(b, g.prefixes[s]...)
	} else {
		b = g.appendSeries(b, s)
	}
	for _, f := range g.fields {
		b = append(b, f...)
		b = appendValue(b, rnd())
	}
	b = append(b, ' ')
	b = strconv.AppendInt(b, g.start+(seq/g.series)*g.stepUnits, 10)
	return append(b, '\n')
}

// appendValue appends a float from 10.000000 to 99.999999 with six
// decimals, always nine characters, so that every point of a
// configuration has the same size.
func appendValue(b []byte, r uint64) []byte {
	v := 10_000_000 + r%90_000_000
	var d [9]byte
	frac := v % 1_000_000
	for i := 8; i >= 3; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	d[2] = '.'
	ip := v / 1_000_000
	d[1] = byte('0' + ip%10)
	d[0] = byte('0' + ip/10)
	return append(b, d[:]...)
}
