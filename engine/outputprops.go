package engine

import (
	"sort"
	"strings"
	"time"

	"benchtop/adapters"
)

// Output is how the final report is written, from YCSB's client property
// names: the exporter and its file, the measurement type, YCSB's own HDR
// interval files. The report package writes what it says.
type Output struct {
	// Exporter is "text" (YCSB's TextMeasurementsExporter, the default),
	// "json" (JSONMeasurementsExporter) or "jsonarray"
	// (JSONArrayMeasurementsExporter).
	Exporter string
	// ExportFile is where the exporter writes (exportfile); "" is stdout.
	ExportFile string
	// MeasurementType is hdrhistogram (the default), histogram or
	// timeseries (measurementtype).
	MeasurementType string
	// Granularity is timeseries.granularity: the length of one unit of the
	// timeseries measurement type.
	Granularity time.Duration
	// Buckets is histogram.buckets: the histogram type's 1 ms buckets.
	Buckets int
	// Verbose is measurement.histogram.verbose: the histogram's buckets
	// (or the HDR histogram's recorded values) are exported too.
	Verbose bool
	// HDRFiles is hdrhistogram.fileoutput: an HdrHistogram interval log
	// per measurement, HDRPath + NAME + ".hdr" (hdrhistogram.output.path),
	// values in microseconds, as YCSB writes them.
	HDRFiles bool
	HDRPath  string
}

// Exporter class names as YCSB takes them (site.ycsb since 0.14,
// com.yahoo.ycsb before).
var exporters = map[string]string{
	"TextMeasurementsExporter":      "text",
	"JSONMeasurementsExporter":      "json",
	"JSONArrayMeasurementsExporter": "jsonarray",
}

// outputProperties are the names readOutput reads.
var outputProperties = []string{
	"exporter", "exportfile", "measurementtype", "timeseries.granularity",
	"histogram.buckets", "measurement.histogram.verbose",
	"hdrhistogram.fileoutput", "hdrhistogram.output.path",
}

// readOutput reads YCSB's output properties; statusInterval is the
// snapshot interval, which timeseries units are made of.
func readOutput(r *adapters.Reader, statusInterval time.Duration) Output {
	var o Output
	o.Exporter = "text"
	if v := strings.TrimSpace(r.String("exporter", "")); v != "" {
		class := v[strings.LastIndex(v, ".")+1:]
		name, ok := exporters[class]
		pkg := strings.TrimSuffix(v, class)
		if !ok || (pkg != "" && pkg != "site.ycsb.measurements.exporter." && pkg != "com.yahoo.ycsb.measurements.exporter.") {
			r.Bad("exporter", "site.ycsb.measurements.exporter.TextMeasurementsExporter, JSONMeasurementsExporter or JSONArrayMeasurementsExporter")
		}
		if ok {
			o.Exporter = name
		}
	}
	o.ExportFile = strings.TrimSpace(r.String("exportfile", ""))
	o.MeasurementType = r.Choice("measurementtype", "hdrhistogram", "hdrhistogram", "histogram", "timeseries")
	if err := r.Err(); err != nil {
		if ce, ok := err.(*adapters.ConfigError); ok && ce.Key == "measurementtype" {
			// Say why the others are missing.
			ce.Allowed = "hdrhistogram, histogram, timeseries; not raw, hdrhistogram+raw or hdrhistogram+histogram: benchtop keeps HDR histograms, not every latency, and --hdr-log writes them per interval"
		}
	}
	o.Granularity = time.Duration(r.Int("timeseries.granularity", 1000, 1, 3600*1000)) * time.Millisecond
	if o.MeasurementType == "timeseries" && statusInterval > 0 && o.Granularity%statusInterval != 0 {
		r.Bad("timeseries.granularity", "milliseconds, a multiple of status.interval ("+statusInterval.String()+"): a unit is made of whole intervals")
	}
	o.Buckets = r.Int("histogram.buckets", 1000, 1, 1<<20)
	o.Verbose = r.Bool("measurement.histogram.verbose", false)
	o.HDRFiles = r.Bool("hdrhistogram.fileoutput", false)
	o.HDRPath = r.String("hdrhistogram.output.path", "")
	return o
}

// notImplemented are YCSB client and core properties benchtop does not
// implement, each with what to use instead: every one draws a warning
// naming it (none is accepted silently).
var notImplemented = map[string]string{
	"measurement.trackjvm":        "the JVM figures have no counterpart; --timeseries has the process's CPU and RSS per interval",
	"db":                          "the adapter is the command line's DATABASE: benchtop run DATABASE",
	"debug":                       "",
	"measurement.raw.output_file": "measurementtype=raw is not supported",
	"measurement.raw.no_summary":  "measurementtype=raw is not supported",
	"reportlatencyforeacherror":   "errors are counted by kind ([READ], Return=NOT_FOUND, ...)",
	"latencytrackederrors":        "errors are counted by kind ([READ], Return=NOT_FOUND, ...)",
}

// notImplementedWarnings names every not-implemented property that is set.
func notImplementedWarnings(p adapters.Properties) []string {
	var warns []string
	for _, k := range sortedKeys(p) {
		why, ok := notImplemented[k]
		if !ok {
			continue
		}
		w := "YCSB property " + k + " is not implemented by benchtop: ignored"
		if why != "" {
			w += " (" + why + ")"
		}
		warns = append(warns, w)
	}
	return warns
}

func sortedKeys(p adapters.Properties) []string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// without returns p without the given names (which the engine reads
// itself, though a workload claims their prefix: timeseries.granularity).
func without(p adapters.Properties, names []string) adapters.Properties {
	out := make(adapters.Properties, len(p))
	for k, v := range p {
		out[k] = v
	}
	for _, k := range names {
		delete(out, k)
	}
	return out
}
