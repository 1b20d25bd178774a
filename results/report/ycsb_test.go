package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/workload"
	"benchtop/workload/ycsb"
)

// fullResult is a run phase with everything the text report can hold:
// GC figures, cleanups, segments, a workload's closing table.
func fullResult() *engine.PhaseResult {
	res := sampleResult(false, "both")
	res.Percentiles = []float64{95, 99}
	res.Output = engine.Output{Exporter: "text", MeasurementType: "hdrhistogram", Buckets: 1000}
	res.GC = engine.GCStats{Collections: 12, Forced: 1, Pause: 50 * time.Millisecond, CPU: 300 * time.Millisecond}
	res.Cleanup = measure.NewHistogram()
	for i := 0; i < 4; i++ {
		res.Cleanup.RecordValue(int64(i+1) * 1000)
	}
	res.Segments = []engine.Segment{
		{Index: 1, End: time.Second, Threads: 1, Partitions: 1, Ops: 500, OpsPerSec: 500, P99: time.Millisecond, Label: "run phase"},
		{Index: 2, Start: time.Second, End: 2 * time.Second, Threads: 2, Partitions: 1, Ops: 502, OpsPerSec: 502, P99: 2 * time.Millisecond, Label: "threads 1→2", Best: true},
	}
	res.Closing = &workload.Final{Text: func(w io.Writer) {
		fmt.Fprintf(w, "[STREAM], RowsLost, 0\n\n# Stream (one row per partitions)\n%10s %7s\n%10d %7d\n", "partitions", "rows/s", 4, 1000)
	}, Problems: []string{"2 rows lost"}}
	return res
}

// parseYCSB reads a report as a YCSB script does: every line that is not a
// comment must be "[SECTION], name, value"; it returns them by section.
func parseYCSB(t *testing.T, report string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(report))
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "#") {
			continue
		}
		if !strings.HasPrefix(l, "[") || strings.Count(l, ", ") != 2 {
			t.Errorf("a line a YCSB parser would misread: %q", l)
			continue
		}
		sec, rest, _ := strings.Cut(l[1:], "], ")
		name, val, _ := strings.Cut(rest, ", ")
		if out[sec] == nil {
			out[sec] = map[string]string{}
		}
		out[sec][name] = val
	}
	return out
}

func TestTextReportParsesLikeYCSB(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	info := engine.Info{Meta: engine.RunMeta{CommandLine: "benchtop run memory", Version: engine.BuildVersion{Module: "v1.0.0", GoVersion: "go1.26"}},
		Start: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600)), Thresholds: []string{"READ.p99<10ms", "ops>1e9"}}
	WriteText(&b, []*engine.PhaseResult{fullResult()}, info)
	report := b.String()
	got := parseYCSB(t, report)
	for sec, want := range map[string]map[string]string{
		"OVERALL":            {"RunTime(ms)": "2000"},
		"TOTAL_GCS_Go":       {"Count": "12"},
		"TOTAL_GC_TIME_Go":   {"Time(ms)": "50"},
		"TOTAL_GC_TIME_%_Go": {"Time(%)": "2.5"},
		"TOTAL_GCs":          {"Count": "12"},
		"TOTAL_GC_TIME":      {"Time(ms)": "50"},
		"TOTAL_GC_TIME_%":    {"Time(%)": "2.5"},
		"READ":               {"95thPercentileLatency(us)": "950", "Return=OK": "1000"},
		"CLEANUP":            {"Operations": "4", "MaxLatency(us)": "4"},
		"STREAM":             {"RowsLost": "0"},
	} {
		for k, v := range want {
			if got[sec][k] != v {
				t.Errorf("[%s], %s = %q, want %q", sec, k, got[sec][k], v)
			}
		}
	}
	if _, ok := got["READ"]["50thPercentileLatency(us)"]; ok {
		t.Error("YCSB's default percentiles are 95,99: no 50th")
	}
	if _, ok := got["CLEANUP"]["Return=OK"]; ok {
		t.Error("YCSB reports no status for CLEANUP")
	}
	// The order YCSB 0.17.0 writes: OVERALL, the GC lines, the
	// measurements.
	if i, j, k := strings.Index(report, "[OVERALL], Throughput"), strings.Index(report, "[TOTAL_GCS_Go]"), strings.Index(report, "[READ], Operations"); !(i < j && j < k) {
		t.Errorf("order: OVERALL %d, GC %d, READ %d", i, j, k)
	}
	for _, want := range []string{
		"# command line: benchtop run memory\n", "# start: 2026-01-02T02:04:05Z\n", "# benchtop v1.0.0 go1.26\n",
		"#  1 00:00", "# PROBLEM: 2 rows lost\n", "#          4    1000\n", "# FAIL  ops>1e9", "# pass  READ.p99<10ms",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if !strings.HasPrefix(report, "# benchtop v1.0.0") {
		t.Errorf("the run metadata is not at the top:\n%s", report)
	}
}

func TestExporterShapes(t *testing.T) {
	t.Parallel()
	report := []byte("# comment\n[OVERALL], RunTime(ms), 2000\n[OVERALL], Throughput(ops/sec), 501.0\n[READ], Return=OK, 5\n#  1 00:00 table row\n[X], odd, NaN\n")
	var b bytes.Buffer
	if err := Export(&b, report, "json"); err != nil {
		t.Fatal(err)
	}
	// Jackson 1.9's DefaultPrettyPrinter: root values separated by a space.
	want := `{
  "metric" : "OVERALL",
  "measurement" : "RunTime(ms)",
  "value" : 2000
} {
  "metric" : "OVERALL",
  "measurement" : "Throughput(ops/sec)",
  "value" : 501.0
} {
  "metric" : "READ",
  "measurement" : "Return=OK",
  "value" : 5
} {
  "metric" : "X",
  "measurement" : "odd",
  "value" : "NaN"
}`
	if b.String() != want {
		t.Errorf("JSONMeasurementsExporter shape:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := Export(&b, report, "jsonarray"); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "[ {\n  \"metric\" : \"OVERALL\",") || !strings.Contains(b.String(), "\n}, {\n") || !strings.HasSuffix(b.String(), "\n} ]") {
		t.Errorf("JSONArrayMeasurementsExporter shape:\n%s", b.String())
	}
	var arr []struct {
		Metric, Measurement string
		Value               any
	}
	if err := json.Unmarshal(b.Bytes(), &arr); err != nil || len(arr) != 4 || arr[1].Value != 501.0 {
		t.Errorf("the array does not decode to the 4 measurements: %v %+v", err, arr)
	}
	b.Reset()
	if err := Export(&b, nil, "jsonarray"); err != nil || b.String() != "[ ]" {
		t.Errorf("empty array: %q %v", b.String(), err)
	}
	b.Reset()
	if err := Export(&b, report, "text"); err != nil || b.String() != string(report) {
		t.Errorf("the text exporter changed the report: %q", b.String())
	}
}

func TestMeasurementTypes(t *testing.T) {
	t.Parallel()
	res := sampleResult(false, "op")
	res.Output = engine.Output{MeasurementType: "histogram", Buckets: 1000, Verbose: true}
	var b bytes.Buffer
	WriteYCSB(&b, res)
	got := parseYCSB(t, b.String())
	// READ: 1..1000 µs, one each. YCSB's 1 ms buckets: 999 in bucket 0,
	// 1 in bucket 1; the 95th and 99th percentiles are bucket 0's start.
	for k, v := range map[string]string{"95thPercentileLatency(us)": "0", "99thPercentileLatency(us)": "0", "0": "999", "1": "1", ">1000": "0", "Return=OK": "1000"} {
		if got["READ"][k] != v {
			t.Errorf("histogram: [READ], %s = %q, want %q", k, got["READ"][k], v)
		}
	}
	if v := got["READ"]["LatencyVariance(us)"]; !strings.HasPrefix(v, "833") {
		t.Errorf("histogram: variance of 1..1000 µs is about 83333, got %q", v)
	}
	if i, j := strings.Index(b.String(), "[READ], Return=OK"), strings.Index(b.String(), "[READ], 0, 999"); i < 0 || j < i {
		t.Error("histogram: buckets must follow the Return= lines")
	}

	res.Output = engine.Output{MeasurementType: "timeseries", Granularity: time.Second}
	res.Units[measure.Slot(ycsb.OpRead, measure.OK)] = []engine.SeriesUnit{{Offset: 0, Mean: 250 * time.Microsecond}, {Offset: 2 * time.Second, Mean: 750500 * time.Nanosecond}}
	b.Reset()
	WriteYCSB(&b, res)
	got = parseYCSB(t, b.String())
	for k, v := range map[string]string{"0": "250.0", "2000": "750.5", "Operations": "1000"} {
		if got["READ"][k] != v {
			t.Errorf("timeseries: [READ], %s = %q, want %q", k, got["READ"][k], v)
		}
	}
	if _, ok := got["READ"]["95thPercentileLatency(us)"]; ok {
		t.Error("timeseries: YCSB exports no percentiles")
	}
}

func sampleResult(intended bool, measurement string) *engine.PhaseResult {
	set := &measure.Set{}
	for i := 1; i <= 1000; i++ {
		set.Record(measure.Slot(ycsb.OpRead, measure.OK), int64(i)*1000) // 1..1000 µs
		if intended {
			set.Record(measure.Slot(ycsb.OpRead, measure.OKIntended), int64(i)*2000)
		}
	}
	set.Record(measure.Slot(ycsb.OpUpdate, measure.Failed), 5000)
	set.AddError(ycsb.OpUpdate, "unavailable", 1)
	set.SetCause(ycsb.OpUpdate, "unavailable", "dial tcp 127.0.0.1:6879: connect: connection refused (redis://app:s3cret@127.0.0.1:6879)")
	set.Record(measure.Slot(ycsb.OpUpdate, measure.OK), 7000)
	set.Ops, set.Failed = 1002, 1
	return &engine.PhaseResult{Phase: engine.PhaseRun, RunTime: 2 * time.Second, Set: set,
		Percentiles: []float64{50, 95, 99}, Intended: intended, Measurement: measurement, OpNames: ycsb.OpNames}
}

func TestOrdinal(t *testing.T) {
	t.Parallel()
	cases := map[float64]string{50: "50th", 95: "95th", 99: "99th", 1: "1st", 2: "2nd", 3: "3rd", 11: "11th", 99.9: "99.9", 21: "21st"}
	for in, want := range cases {
		if got := ordinal(in); got != want {
			t.Errorf("ordinal(%v) = %q, want %q", in, got, want)
		}
	}
}

// The report must parse like YCSB's: "[NAME], Measurement, value" lines
// with the names and values scripts look for.
func TestWriteYCSB(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	WriteYCSB(&b, sampleResult(true, "both"))
	out := b.String()
	line := regexp.MustCompile(`^\[[A-Z][A-Za-z_%-]*\], [^,]+, -?[0-9.E]+$`)
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if strings.HasPrefix(l, "# ") {
			continue // benchtop's comments (the last error of a kind)
		}
		if !line.MatchString(l) {
			t.Errorf("not a YCSB report line: %q", l)
		}
	}
	for _, want := range []string{
		"[OVERALL], RunTime(ms), 2000\n",
		"[OVERALL], Throughput(ops/sec), 501.0\n",
		"[READ], Operations, 1000\n",
		"[READ], MinLatency(us), 1\n",
		"[READ], 50thPercentileLatency(us), 500\n",
		"[READ], 99thPercentileLatency(us), 990\n",
		"[READ], Return=OK, 1000\n",
		"[Intended-READ], Operations, 1000\n",
		"[Intended-READ], 99thPercentileLatency(us), 1980\n",
		"[UPDATE], Return=OK, 1\n",
		"[UPDATE], Return=ERROR, 1\n",
		"[UPDATE-FAILED], Operations, 1\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	b.Reset()
	WriteYCSB(&b, sampleResult(true, "op"))
	if strings.Contains(b.String(), "Intended-") {
		t.Errorf("measurement.interval=op printed intended blocks")
	}
}

// The errors of a kind come with their count and the latest message,
// masked, after YCSB's Return= lines, which stay as they were; the JSON
// carries them too.
func TestErrorLinesAndCause(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	res := sampleResult(false, "op")
	WriteYCSB(&b, res)
	out := b.String()
	for _, want := range []string{
		"[UPDATE], Return=OK, 1\n[UPDATE], Return=ERROR, 1\n# [UPDATE], Errors(unavailable), 1\n",
		"# last unavailable: dial tcp 127.0.0.1:6879: connect: connection refused (redis://app:****@127.0.0.1:6879)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "s3cret") {
		t.Error("the password reached the report")
	}
	if strings.Contains(out, "[READ], Errors(") {
		t.Error("error lines for an operation without errors")
	}
}

// What benchtop adds to YCSB's lines is a comment: the error counts by
// kind, the successful and failed rates beside YCSB's Throughput (which
// counts every operation, as YCSB's does), the [LOAD] phase before the
// run; and no Return=OK line where nothing succeeded, as YCSB prints none.
func TestAddedLinesAreComments(t *testing.T) {
	t.Parallel()
	set := &measure.Set{}
	for range 2000 {
		set.Record(measure.Slot(ycsb.OpRead, measure.Failed), 100000)
	}
	set.AddError(ycsb.OpRead, "not_found", 2000)
	set.Ops, set.Failed = 2000, 2000
	run := &engine.PhaseResult{Phase: engine.PhaseRun, RunTime: 2 * time.Second, Set: set, Percentiles: []float64{95, 99}, OpNames: ycsb.OpNames}
	load := &engine.PhaseResult{Phase: engine.PhaseLoad, RunTime: time.Second, Set: &measure.Set{Ops: 1000}, OpNames: ycsb.OpNames}
	var b bytes.Buffer
	WriteText(&b, []*engine.PhaseResult{load, run}, engine.Info{})
	out := b.String()
	for _, want := range []string{
		"[OVERALL], Throughput(ops/sec), 1000.0\n# throughput above counts every operation, as YCSB's does: successful 0.0 ops/s, failed 1000.0 ops/s (2,000 of 2,000 operations failed)\n",
		"[READ], Operations, 0\n[READ], Return=NOT_FOUND, 2000\n# [READ], Errors(not_found), 2000\n",
		"# [LOAD], RunTime(ms), 1000\n# [LOAD], Throughput(ops/sec), 1000.0\n# [LOAD], Operations, 1000\n# [LOAD], Errors, 0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Return=OK") {
		t.Errorf("a Return=OK line where nothing succeeded:\n%s", out)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(l, "[OVERALL]") && !strings.HasPrefix(l, "[READ") &&
			!strings.HasPrefix(l, "[TOTAL_GC") {
			t.Errorf("a line benchtop added is not a comment: %q", l)
		}
	}
}

// A load whose batches queue (jdbc.batchupdateapi) prints YCSB's two
// statuses: the records that sent a batch as OK, the queued ones as
// BATCHED_OK, both in the INSERT histogram.
func TestWriteYCSBBatchedOK(t *testing.T) {
	t.Parallel()
	set := &measure.Set{}
	set.RecordN(measure.Slot(ycsb.OpInsert, measure.OK), 2000, 990)
	set.RecordN(measure.Slot(ycsb.OpInsert, measure.OK), 9_000_000, 10)
	set.Batched[ycsb.OpInsert] = 990
	set.Ops = 1000
	res := &engine.PhaseResult{Phase: engine.PhaseLoad, RunTime: time.Second, Set: set,
		Percentiles: []float64{95, 99}, Measurement: "op", OpNames: ycsb.OpNames}
	var b bytes.Buffer
	WriteYCSB(&b, res)
	got := parseYCSB(t, b.String())["INSERT"]
	if got["Operations"] != "1000" || got["Return=OK"] != "10" || got["Return=BATCHED_OK"] != "990" {
		t.Errorf("INSERT: Operations %q, Return=OK %q, Return=BATCHED_OK %q; want 1000, 10, 990\n%s",
			got["Operations"], got["Return=OK"], got["Return=BATCHED_OK"], b.String())
	}
}
