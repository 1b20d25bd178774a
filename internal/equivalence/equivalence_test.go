package equivalence

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	_ "benchtop/adapters/influx" // the stores of the runs, as main registers them
	_ "benchtop/adapters/memory"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/fleet"
	"benchtop/internal/cli"
	"benchtop/workload"
	"benchtop/workload/stream"
	_ "benchtop/workload/timeseries"
	_ "benchtop/workload/ycsb" // the workloads, as main registers them
)

var update = flag.Bool("update", false, "write the goldens from this build")

// workloadFile is the repository's workload file name.
func workloadFile(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "workloads", name)
}

// run is one command of the binary's Main, headless, with --json: its
// report (standard output) and its JSON summary.
func run(t *testing.T, args ...string) (report string, summary []byte) {
	t.Helper()
	dir := t.TempDir()
	js := filepath.Join(dir, "run.json")
	var out, errb bytes.Buffer
	code := cli.Main(append(args, "--headless", "--json", js), os.Stdin, &out, &errb, nil)
	if code != 0 {
		t.Fatalf("%v: exit %d\n%s", args, code, errb.String())
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), b
}

var digits = regexp.MustCompile(`[0-9]+([.,][0-9]+)*`)

// reportShape is a YCSB text report's lines with every number made #:
// its sections, names and units, in a sorted set (a run's timing moves
// neither, and a line that comes and goes with timing is left to
// optional).
func reportShape(report string, optional *regexp.Regexp) []string {
	seen := map[string]bool{}
	for _, l := range strings.Split(report, "\n") {
		l = digits.ReplaceAllString(l, "#")
		if l == "" || optional != nil && optional.MatchString(l) {
			continue
		}
		seen[l] = true
	}
	return sorted(seen)
}

// jsonShape is a JSON document's paths (array indices taken out) with
// each value's kind: what a reader of the document relies on.
func jsonShape(t *testing.T, doc []byte, optional *regexp.Regexp) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		kind := ""
		switch x := v.(type) {
		case map[string]any:
			kind = "object"
			for k, e := range x {
				walk(path+"."+digits.ReplaceAllString(k, "#"), e)
			}
		case []any:
			kind = "array"
			for _, e := range x {
				walk(path+"[]", e)
			}
		case string:
			kind = "string"
		case float64:
			kind = "number"
		case bool:
			kind = "bool"
		case nil:
			kind = "null"
		}
		if optional != nil && optional.MatchString(path) {
			return
		}
		seen[path+" "+kind] = true
	}
	walk("", v)
	return sorted(seen)
}

func sorted(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// golden compares got with testdata/name (writes it with -update).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/equivalence/ -update writes it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		t.Errorf("%s differs from the golden:\n%s", name, diff(wl, gl))
	}
}

// diff lists the lines only one side has.
func diff(want, got []string) string {
	in := func(xs []string) map[string]bool {
		m := map[string]bool{}
		for _, x := range xs {
			m[x] = true
		}
		return m
	}
	w, g := in(want), in(got)
	var b strings.Builder
	for _, l := range want {
		if !g[l] {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	for _, l := range got {
		if !w[l] {
			fmt.Fprintf(&b, "+ %s\n", l)
		}
	}
	if b.Len() == 0 {
		return "(the same lines, in another order)"
	}
	return b.String()
}

// The lines and members that come and go with a run's timing: warnings,
// stalls, outages, the client-bottleneck notes, segment states and marks
// (a segment is too short or qualified by how the ticks fell), the GC
// line's count, the pacer line's units (µs or ms by the run's timing),
// events and CPU figures the host may not give.
var (
	optionalLines = regexp.MustCompile(`^# (host:|benchtop |command line:|start:)|warning|ClockOffset|stall|outage|too short|best|knee|undecided|^#  *# |qualif|target not met|CPU|cpu|GC|collections|^# pacer:|^# [a-z]+ [a-z]+ undecided|Segments|^#$`)
	optionalPaths = regexp.MustCompile(`warnings|stalls|outages|segments_note|\.segments\[\]\.(state|best|knee|cpu|extra|note)|events|cpu|_ci_|percentiles_note|\.host|gc`)
)

func check(t *testing.T, name, report string, summary []byte) {
	t.Helper()
	golden(t, name+".report", []byte(strings.Join(reportShape(report, optionalLines), "\n")+"\n"))
	golden(t, name+".json", []byte(strings.Join(jsonShape(t, summary, optionalPaths), "\n")+"\n"))
}

// YCSB's core workload A on the memory store, load and run: the report's
// lines and the JSON summary's members, numbers aside.
func TestCoreReportAndSummary(t *testing.T) {
	t.Parallel()
	report, summary := run(t, "run", "memory", "-P", workloadFile("workloada"), "-p", "recordcount=500",
		"-p", "operationcount=5000", "-threads", "1", "-p", "status.interval=100ms")
	check(t, "core", report, summary)
}

// The partitioned stream on the memory store, with a partition change.
func TestStreamReportAndSummary(t *testing.T) {
	t.Parallel()
	report, summary := run(t, "run", "memory", "-p", "workload=stream", "-p", "partitions=2", "-p", "stream.keys=50",
		"-threads", "1", "-target", "2000", "-p", "status.interval=100ms", "--at", "500ms:partitions=3", "-p", "maxexecutiontime=1.2")
	check(t, "stream", report, summary)
}

// Line-protocol ingest against the real InfluxDB.
func TestTimeseriesReportAndSummary(t *testing.T) {
	t.Parallel()
	url := os.Getenv("BENCHTOP_INFLUX_URL")
	if url == "" {
		t.Skip(`BENCHTOP_INFLUX_URL is not set: start the server with eval "$(bash .ci/servers/influx.sh start)" to run this comparison`)
	}
	// 250 ms intervals: an outage is 4 intervals without a completed
	// batch, and at 100 ms one writer's batch held 400 ms by a loaded
	// InfluxDB (CI run 27, load average above 30) made one, and exit 1.
	report, summary := run(t, "run", "influx", "-P", workloadFile("timeseries-opengemini"), "-p", "influx.url="+url,
		"-p", fmt.Sprintf("timeseries.measurement=equiv%08x", rand.Uint32()), "-threads", "1", "-p", "status.interval=250ms", "--duration", "2s")
	check(t, "timeseries", report, summary)
}

// A fleet of two in-process agents, core and stream: the coordinator's
// report ([FLEET], [AGENT] lines) and JSON summary ("agents", "fleet").
func TestFleetReportAndSummary(t *testing.T) {
	t.Parallel()
	const token = "equivalence-token-0123456789abcdef"
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	agents := func() string {
		var addrs []string
		for range 2 {
			ln, err := fleet.Listen("127.0.0.1:0", token, nil)
			if err != nil {
				t.Fatal(err)
			}
			go fleet.ServeListener(t.Context(), ln, fleet.AgentConfig{Token: token, Version: "test"})
			addrs = append(addrs, ln.Addr().String())
		}
		return strings.Join(addrs, ",")
	}
	report, summary := run(t, "run", "memory", "-P", workloadFile("workloada"), "-p", "recordcount=200", "-p", "operationcount=3000",
		"-p", "status.interval=100ms", "--agents", agents(), "--token-file", tokenFile)
	check(t, "fleet-core", report, summary)
	report, summary = run(t, "run", "memory", "-p", "workload=stream", "-p", "partitions=2", "-p", "stream.keys=50", "-target", "2000",
		"-p", "status.interval=100ms", "-p", "maxexecutiontime=1.2", "--agents", agents(), "--token-file", tokenFile)
	check(t, "fleet-stream", report, summary)
}

// The fleet protocol's messages, as an agent and a coordinator send them
// (fleet.Conn's frames), from fixed values: their bytes.
func TestFleetProtocolBytes(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	set := &measure.Set{Ops: 3}
	set.Record(measure.Slot(0, measure.OK), 1500)
	set.Record(measure.Slot(1, measure.OK), 2500)
	set.Record(measure.Slot(1, measure.Failed), 9000)
	var ledger stream.Ledger
	if err := json.Unmarshal([]byte(`{"origin":2,"run":77,"keys":[{"o":2,"r":77,"p":0,"k":3,"n":5,"f":[2],"d":[[0,1],[3,4]],"x":1}],"positions":[{"p":1,"d":[[0,9]]}],"corrupt":1}`), &ledger); err != nil {
		t.Fatal(err)
	}
	seg := engine.Segment{Index: 1, Label: "run phase", Start: time.Second, End: 3 * time.Second, Threads: 2, Partitions: 4, OpsPerSec: 1234.5}
	msgs := []struct {
		typ string
		v   any
	}{
		{fleet.TypeReady, fleet.Ready{Hash: "abc", OpNames: []string{"READ", "UPDATE"}, Info: engine.Info{Command: "run", Adapter: "memory", Workload: "stream", Properties: map[string]string{"partitions": "2"}},
			Share: fleet.Share{Threads: 2, Target: 500, InsertStart: -1, InsertCount: -1, Partitions: 2, SharedPartitions: true}}},
		{fleet.TypeInterval, fleet.Interval{Seq: 3, Phase: engine.PhaseRun, OpNames: []string{"READ", "UPDATE"}, Start: at, End: at.Add(time.Second), Set: set,
			Host:   host.Sample{Cores: 2, CPUTotal: 40, NICs: []host.NIC{{Name: "eth0", RxBytesPerSec: 1e6, TxBytesPerSec: 2e6}}},
			Events: []engine.Event{{At: time.Second, Kind: "threads", From: "1", To: "2", Text: "threads 1→2"}}, Threads: 2, Target: 500, Partitions: 2, OpsDone: 3,
			Workload: &workload.View{Figures: []workload.Figure{{Name: "rows/s", Value: 100, Unit: "1/s"}},
				Partitions: &workload.PartitionsView{Produced: 10, Consumed: 9, Lag: 1}},
			Delta: map[string]float64{"rows": 10, "mb": 0.5}}},
		{fleet.TypeDone, fleet.Done{Phases: []fleet.PhaseFigures{{Phase: engine.PhaseRun, RunTime: 2 * time.Second, RunTimeMs: 2000, Operations: 3, Throughput: 1.5, Errors: 1}},
			Segments: []engine.Segment{seg}, Report: "[OVERALL], RunTime(ms), 2000\n", Summary: json.RawMessage(`{"tool":"benchtop"}`),
			Problems: []string{"stream: 1 row lost"}, Rows: ledgerJSON(t, &ledger)}},
	}
	var buf bytes.Buffer
	c := fleet.NewConn(bytes.NewReader(nil), &buf, io.NopCloser(nil))
	for _, m := range msgs {
		if err := c.Send(m.typ, m.v); err != nil {
			t.Fatal(err)
		}
	}
	golden(t, "fleet-protocol.bin", buf.Bytes())
}

// ledgerJSON is a ledger as the stream's Group sends it (Done.Rows).
func ledgerJSON(t *testing.T, l *stream.Ledger) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
