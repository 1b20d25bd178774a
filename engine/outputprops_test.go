package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
)

func TestOutputProperties(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		props map[string]string
		want  Output
	}{
		{nil, Output{Exporter: "text", MeasurementType: "hdrhistogram", Granularity: time.Second, Buckets: 1000}},
		{map[string]string{"exporter": "site.ycsb.measurements.exporter.JSONArrayMeasurementsExporter", "exportfile": "out.json"},
			Output{Exporter: "jsonarray", ExportFile: "out.json", MeasurementType: "hdrhistogram", Granularity: time.Second, Buckets: 1000}},
		{map[string]string{"exporter": "com.yahoo.ycsb.measurements.exporter.JSONMeasurementsExporter"},
			Output{Exporter: "json", MeasurementType: "hdrhistogram", Granularity: time.Second, Buckets: 1000}},
		{map[string]string{"measurementtype": "timeseries", "timeseries.granularity": "3000"},
			Output{Exporter: "text", MeasurementType: "timeseries", Granularity: 3 * time.Second, Buckets: 1000}},
		{map[string]string{"measurementtype": "histogram", "histogram.buckets": "50", "measurement.histogram.verbose": "true"},
			Output{Exporter: "text", MeasurementType: "histogram", Granularity: time.Second, Buckets: 50, Verbose: true}},
		{map[string]string{"hdrhistogram.fileoutput": "true", "hdrhistogram.output.path": "/tmp/run1-"},
			Output{Exporter: "text", MeasurementType: "hdrhistogram", Granularity: time.Second, Buckets: 1000, HDRFiles: true, HDRPath: "/tmp/run1-"}},
	} {
		props := map[string]string{"recordcount": "10"}
		for k, v := range c.props {
			props[k] = v
		}
		cfg, warns, err := NewConfig("run", "memory", props)
		if err != nil {
			t.Errorf("%v: %v", c.props, err)
			continue
		}
		if cfg.Output != c.want {
			t.Errorf("%v: Output = %+v, want %+v", c.props, cfg.Output, c.want)
		}
		if len(warns) > 0 {
			t.Errorf("%v: honoured properties warned: %v", c.props, warns)
		}
	}
}

func TestOutputRefusals(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		props map[string]string
		key   string
	}{
		{map[string]string{"measurementtype": "raw"}, "measurementtype"},
		{map[string]string{"measurementtype": "hdrhistogram+histogram"}, "measurementtype"},
		{map[string]string{"exporter": "site.ycsb.measurements.exporter.XMLExporter"}, "exporter"},
		{map[string]string{"exporter": "org.example.TextMeasurementsExporter"}, "exporter"},
		{map[string]string{"measurementtype": "timeseries", "timeseries.granularity": "1500"}, "timeseries.granularity"},
		{map[string]string{"histogram.buckets": "0"}, "histogram.buckets"},
	} {
		_, _, err := NewConfig("run", "memory", c.props)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != c.key {
			t.Errorf("%v: error %v, want a ConfigError on %s", c.props, err, c.key)
		}
	}
	_, _, err := NewConfig("run", "memory", map[string]string{"measurementtype": "raw"})
	if !strings.Contains(err.Error(), "not every latency") {
		t.Errorf("the raw refusal does not say why: %v", err)
	}
}

// YCSB's client properties are all read or warned: none is accepted
// silently.
func TestNoYCSBPropertyIsSilent(t *testing.T) {
	t.Parallel()
	read := map[string]string{
		"exporter": "site.ycsb.measurements.exporter.TextMeasurementsExporter", "exportfile": "x",
		"measurementtype": "hdrhistogram", "timeseries.granularity": "1000", "histogram.buckets": "10",
		"measurement.histogram.verbose": "false", "hdrhistogram.fileoutput": "false", "hdrhistogram.output.path": "",
		"hdrhistogram.percentiles": "90", "measurement.interval": "op", "status.interval": "1", "readallfieldsbyname": "true",
		"core_workload_insertion_retry_limit": "2", "core_workload_insertion_retry_interval": "1",
		"fieldlengthhistogram": "hist.txt",
	}
	warned := []string{"measurement.trackjvm", "db", "debug", "reportlatencyforeacherror", "latencytrackederrors",
		"measurement.raw.output_file"}
	props := map[string]string{"recordcount": "10"}
	for k, v := range read {
		props[k] = v
	}
	for _, k := range warned {
		props[k] = "true"
	}
	_, warns, err := NewConfig("run", "memory", props)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(warns, "\n")
	for _, k := range warned {
		if !strings.Contains(all, " "+k+" ") {
			t.Errorf("%s is not warned: %v", k, warns)
		}
	}
	for k := range read {
		if strings.Contains(all, " "+k+" ") || strings.Contains(all, `"`+k+`"`) {
			t.Errorf("%s is read, yet warned: %v", k, warns)
		}
	}
	if len(warns) != len(warned) {
		t.Errorf("%d warnings for %d names: %v", len(warns), len(warned), warns)
	}
}

func TestReportPercentilesDefaultToYCSBs(t *testing.T) {
	t.Parallel()
	cfg, _, err := NewConfig("run", "memory", map[string]string{"recordcount": "10"})
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Percentiles) != 2 || cfg.Percentiles[0] != 95 || cfg.Percentiles[1] != 99 {
		t.Errorf("Percentiles = %v, want YCSB's 95,99", cfg.Percentiles)
	}
}
