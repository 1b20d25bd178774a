package ycsb

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/workload/gen"
)

// Config is the core workload's share of the properties: YCSB's
// CoreWorkload names and defaults. Build it with ParseConfig.
type Config struct {
	RecordCount     int64
	OperationCount  int64 // 0 = no limit (sizes the zipfian key space)
	Table           string
	FieldCount      int
	FieldLength     int
	FieldLengthDist string // constant, uniform, zipfian, histogram
	MinFieldLength  int
	// FieldLengthHistogram is the histogram read from the
	// fieldlengthhistogram file (fieldlengthdistribution=histogram).
	FieldLengthHistogram *gen.Histogram
	ReadAllFields        bool
	// ReadAllFieldsByName names every field in a read of all fields
	// rather than asking for all (YCSB's readallfieldsbyname).
	ReadAllFieldsByName bool
	WriteAllFields      bool
	// ReadFields and WriteFields are the fields reads/scans and updates
	// touch: from readfields/writefields when given, else YCSB's
	// readallfields/writeallfields (all, or one at random).
	ReadFields, WriteFields Fields
	FieldNamePrefix         string
	DataIntegrity           bool
	ReadProportion          float64
	UpdateProportion        float64
	InsertProportion        float64
	ScanProportion          float64
	RMWProportion           float64
	DeleteProportion        float64
	RequestDist             string // uniform, zipfian, latest, hotspot, sequential, exponential
	HotspotDataFrac         float64
	HotspotOpnFrac          float64
	ExponentialPct          float64
	ExponentialFrac         float64
	MinScanLength           int
	MaxScanLength           int
	ScanLengthDist          string // uniform, zipfian
	OrderedInserts          bool
	InsertStart             int64
	InsertCount             int64
	ZeroPadding             int
	// InsertionRetryLimit and InsertionRetryInterval are YCSB's
	// core_workload_insertion_retry_limit and _interval: a failed
	// load-phase insert is tried again up to the limit, after a pause of
	// 0.8 to 1.2 times the interval.
	InsertionRetryLimit    int
	InsertionRetryInterval time.Duration
}

// properties are the names the core workload reads (YCSB's CoreWorkload).
var properties = []string{
	"recordcount", "operationcount", "table", "fieldcount", "fieldlength",
	"fieldlengthdistribution", "minfieldlength", "readallfields", "readallfieldsbyname", "writeallfields",
	"readproportion", "updateproportion", "insertproportion", "scanproportion",
	"readmodifywriteproportion", "deleteproportion", "requestdistribution",
	"hotspotdatafraction", "hotspotopnfraction", "exponential.percentile", "exponential.frac",
	"minscanlength", "maxscanlength", "scanlengthdistribution", "insertorder",
	"insertstart", "insertcount", "zeropadding", "fieldnameprefix", "dataintegrity",
	"readfields", "writefields", "fieldlengthhistogram",
	"core_workload_insertion_retry_limit", "core_workload_insertion_retry_interval",
}

// ParseConfig reads and checks the core workload's properties for a load
// or run command. The error is a *adapters.ConfigError naming the
// property, its value and what is allowed.
func ParseConfig(command string, p adapters.Properties) (*Config, error) {
	c := &Config{}
	r := adapters.NewReader(p)
	c.RecordCount = r.Int64("recordcount", 0, 0, math.MaxInt64)
	c.OperationCount = r.Int64("operationcount", 0, 0, math.MaxInt64)
	c.Table = r.String("table", "usertable")
	if strings.TrimSpace(c.Table) == "" {
		r.Bad("table", "a non-empty name")
	}
	c.FieldCount = r.Int("fieldcount", 10, 1, 10000)
	c.FieldLength = r.Int("fieldlength", 100, 1, 64<<20)
	c.FieldLengthDist = r.Choice("fieldlengthdistribution", "constant", "constant", "uniform", "zipfian", "histogram")
	c.MinFieldLength = r.Int("minfieldlength", 1, 1, 64<<20)
	if c.FieldLengthDist == "histogram" {
		c.FieldLengthHistogram = readHistogram(r, r.String("fieldlengthhistogram", "hist.txt"))
	}
	c.ReadAllFields = r.Bool("readallfields", true)
	c.ReadAllFieldsByName = r.Bool("readallfieldsbyname", false)
	c.WriteAllFields = r.Bool("writeallfields", false)
	c.FieldNamePrefix = r.String("fieldnameprefix", "field")
	names := fieldNames(c.FieldNamePrefix, c.FieldCount)
	c.ReadFields = parseFields(r, "readfields", "readallfields", true, names)
	c.WriteFields = parseFields(r, "writefields", "writeallfields", false, names)
	c.DataIntegrity = r.Bool("dataintegrity", false)
	c.ReadProportion = r.Float("readproportion", 0.95, 0, math.MaxFloat64)
	c.UpdateProportion = r.Float("updateproportion", 0.05, 0, math.MaxFloat64)
	c.InsertProportion = r.Float("insertproportion", 0, 0, math.MaxFloat64)
	c.ScanProportion = r.Float("scanproportion", 0, 0, math.MaxFloat64)
	c.RMWProportion = r.Float("readmodifywriteproportion", 0, 0, math.MaxFloat64)
	c.DeleteProportion = r.Float("deleteproportion", 0, 0, math.MaxFloat64)
	c.RequestDist = r.Choice("requestdistribution", "uniform", "uniform", "zipfian", "latest", "hotspot", "sequential", "exponential")
	c.HotspotDataFrac = r.Float("hotspotdatafraction", 0.2, 0, 1)
	c.HotspotOpnFrac = r.Float("hotspotopnfraction", 0.8, 0, 1)
	c.ExponentialPct = r.Float("exponential.percentile", 95, 0.0001, 99.9999)
	c.ExponentialFrac = r.Float("exponential.frac", 0.8571428571, 0.0000001, math.MaxFloat64)
	c.MinScanLength = r.Int("minscanlength", 1, 1, 1<<30)
	c.MaxScanLength = r.Int("maxscanlength", 1000, 1, 1<<30)
	c.ScanLengthDist = r.Choice("scanlengthdistribution", "uniform", "uniform", "zipfian")
	c.OrderedInserts = r.Choice("insertorder", "hashed", "hashed", "ordered") == "ordered"
	c.InsertStart = r.Int64("insertstart", 0, 0, math.MaxInt64)
	c.InsertCount = r.Int64("insertcount", c.RecordCount-c.InsertStart, 0, math.MaxInt64)
	c.ZeroPadding = r.Int("zeropadding", 1, 1, 64)
	c.InsertionRetryLimit = r.Int("core_workload_insertion_retry_limit", 0, 0, 1<<20)
	c.InsertionRetryInterval = r.Seconds("core_workload_insertion_retry_interval", 3*time.Second, 0, 24*time.Hour)
	if err := r.Err(); err != nil {
		return nil, err
	}
	if err := c.check(command, p); err != nil {
		return nil, err
	}
	return c, nil
}

// readHistogram reads YCSB's field length histogram file (its default
// name is hist.txt, as in YCSB), before anything touches the database.
func readHistogram(r *adapters.Reader, path string) *gen.Histogram {
	f, err := os.Open(path)
	if err != nil {
		r.Fail(&adapters.ConfigError{Key: "fieldlengthhistogram", Value: path, Allowed: "a readable histogram file (" + oneLineErr(err) + ")"})
		return nil
	}
	defer f.Close()
	h, err := gen.ReadHistogram(f)
	if err != nil {
		r.Fail(&adapters.ConfigError{Key: "fieldlengthhistogram", Value: path, Allowed: "YCSB's histogram format: \"BlockSize<TAB>n\", then \"bucket<TAB>count\" lines (" + err.Error() + ")"})
		return nil
	}
	return h
}

// oneLineErr is an open error without the path the message repeats.
func oneLineErr(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// MaxFieldLength is the longest value the field length distribution
// gives.
func (c *Config) MaxFieldLength() int {
	if c.FieldLengthHistogram != nil {
		return int(c.FieldLengthHistogram.Max())
	}
	return c.FieldLength
}

// check is the cross-property checks.
func (c *Config) check(command string, p adapters.Properties) error {
	bad := func(key, allowed string) error {
		return &adapters.ConfigError{Key: key, Value: p[key], Allowed: allowed}
	}
	if command == "run" && !(c.proportionSum() > 0) {
		return &adapters.ConfigError{Key: "readproportion+updateproportion+insertproportion+scanproportion+readmodifywriteproportion", Value: "0", Allowed: "proportions summing to more than 0"}
	}
	if c.MinScanLength > c.MaxScanLength {
		return bad("minscanlength", fmt.Sprintf("at most maxscanlength (%d)", c.MaxScanLength))
	}
	if c.MinFieldLength > c.FieldLength && (c.FieldLengthDist == "uniform" || c.FieldLengthDist == "zipfian") {
		return bad("minfieldlength", fmt.Sprintf("at most fieldlength (%d)", c.FieldLength))
	}
	if c.DataIntegrity && c.FieldLengthDist != "constant" {
		return &adapters.ConfigError{Key: "fieldlengthdistribution", Value: c.FieldLengthDist, Allowed: "constant when dataintegrity=true"}
	}
	if _, ok := p["insertcount"]; ok && c.InsertStart+c.InsertCount > c.RecordCount && c.RecordCount > 0 {
		// YCSB allows insertstart+insertcount <= recordcount only.
		return bad("insertcount", fmt.Sprintf("at most recordcount-insertstart (%d)", c.RecordCount-c.InsertStart))
	}
	if c.InsertCount < 0 {
		return bad("insertstart", fmt.Sprintf("at most recordcount (%d)", c.RecordCount))
	}
	reads := c.ReadProportion > 0 || c.UpdateProportion > 0 || c.ScanProportion > 0 || c.RMWProportion > 0 || c.DeleteProportion > 0
	if command == "run" && c.RecordCount == 0 && reads && (c.InsertProportion == 0 || c.RequestDist != "latest") {
		return &adapters.ConfigError{Key: "recordcount", Value: p.String("recordcount", "0"), Allowed: "a number > 0 when the run reads, updates or scans"}
	}
	return nil
}

func (c *Config) proportionSum() float64 {
	return c.ReadProportion + c.UpdateProportion + c.InsertProportion + c.ScanProportion + c.RMWProportion + c.DeleteProportion
}

// Mix describes the operation mix and key choice for headers, e.g.
// "read 50 / update 50, zipfian".
func (c *Config) Mix() string {
	sum := c.proportionSum()
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
