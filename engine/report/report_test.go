package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/core"
	"benchtop/engine/host"
	"benchtop/engine/measure"
)

func TestOrdinal(t *testing.T) {
	cases := map[float64]string{50: "50th", 95: "95th", 99: "99th", 1: "1st", 2: "2nd", 3: "3rd", 11: "11th", 99.9: "99.9", 21: "21st"}
	for in, want := range cases {
		if got := ordinal(in); got != want {
			t.Errorf("ordinal(%v) = %q, want %q", in, got, want)
		}
	}
}

func sampleResult(intended bool, measurement string) *engine.PhaseResult {
	set := &measure.Set{}
	for i := 1; i <= 1000; i++ {
		set.Record(measure.Slot(core.OpRead, measure.OK), int64(i)*1000) // 1..1000 µs
		if intended {
			set.Record(measure.Slot(core.OpRead, measure.OKIntended), int64(i)*2000)
		}
	}
	set.Record(measure.Slot(core.OpUpdate, measure.Failed), 5000)
	set.AddError(core.OpUpdate, "unavailable", 1)
	set.SetCause(core.OpUpdate, "unavailable", "dial tcp 127.0.0.1:6879: connect: connection refused (redis://app:s3cret@127.0.0.1:6879)")
	set.Record(measure.Slot(core.OpUpdate, measure.OK), 7000)
	set.Ops = 1002
	return &engine.PhaseResult{Phase: engine.PhaseRun, RunTime: 2 * time.Second, Set: set,
		Percentiles: []float64{50, 95, 99}, Intended: intended, Measurement: measurement, OpNames: core.OpNames}
}

// The report must parse like YCSB's: "[NAME], Measurement, value" lines
// with the names and values scripts look for.
func TestWriteYCSB(t *testing.T) {
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

func TestTimeSeriesCSV(t *testing.T) {
	var b bytes.Buffer
	ts := NewTimeSeries(&b)
	s := &engine.Snapshot{Time: time.Unix(0, 0), Elapsed: time.Second, Interval: time.Second, Phase: engine.PhaseRun, Threads: 4, Partitions: 2,
		Total: engine.OpSnapshot{Interval: engine.Stats{Count: 10, Rate: 10}},
		Ops:   []engine.OpSnapshot{{Name: "READ", Interval: engine.Stats{Count: 10, P99: 3 * time.Microsecond}}}}
	ts.Write(s)
	ts.Write(s)
	if err := ts.Flush(); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want header + 2 rows, got %d lines", len(lines))
	}
	cols := len(strings.Split(lines[0], ","))
	for _, l := range lines[1:] {
		if n := len(strings.Split(l, ",")); n != cols {
			t.Errorf("row has %d columns, header %d: %q", n, cols, l)
		}
	}
	if !strings.Contains(lines[1], ",run,4,2,") || !strings.Contains(lines[1], ",10,0,0,3,") {
		t.Errorf("row content: %q", lines[1])
	}
}

func TestSegmentExtrasInJSONAndTable(t *testing.T) {
	res := sampleResult(false, "op")
	res.Segments = []engine.Segment{{Index: 1, End: 10 * time.Second, Threads: 2, Partitions: 4, Ops: 100, OpsPerSec: 10,
		Extra: map[string]float64{"rows_per_sec": 2500000, "mb_per_sec": 550.5}}}
	res.Final = &engine.Snapshot{}
	var b bytes.Buffer
	if err := WriteJSON(&b, []*engine.PhaseResult{res}, engine.Info{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `"rows_per_sec": 2500000`) || !strings.Contains(b.String(), `"mb_per_sec": 550.5`) {
		t.Errorf("segment extras not members of the segment:\n%s", b.String())
	}
	b.Reset()
	WriteSegments(&b, res.Segments)
	if !strings.Contains(b.String(), "rows/s") || !strings.Contains(b.String(), "2,500,000") || !strings.Contains(b.String(), "551") {
		t.Errorf("segments table lacks the extra columns:\n%s", b.String())
	}
}

func TestSummaryReadsBackWithExtrasEventsAndHost(t *testing.T) {
	res := sampleResult(false, "op")
	res.Segments = []engine.Segment{{Index: 1, End: 10 * time.Second, Threads: 2, Partitions: 4, Ops: 100, OpsPerSec: 10,
		Extra: map[string]float64{"rows_per_sec": 2500000, "mb_per_sec": 550.5}}}
	res.Final = &engine.Snapshot{}
	res.Final.Host.Cores = 3
	res.Final.Host.NICs = []host.NIC{{Name: "eth0", SpeedMbps: 1000}}
	res.Events = []engine.Event{{At: 1500 * time.Millisecond, Kind: "threads", From: "1", To: "2", Text: "threads 1→2"}, {At: 2 * time.Second, Kind: "mark", Text: "here"}}
	var b bytes.Buffer
	if err := WriteJSON(&b, []*engine.PhaseResult{res}, engine.Info{Meta: engine.RunMeta{CommandLine: "benchtop run memory -threads 2"}}); err != nil {
		t.Fatal(err)
	}
	var s Summary
	if err := json.Unmarshal(b.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Segments) != 1 || s.Segments[0].Extra["rows_per_sec"] != 2500000 || s.Segments[0].Extra["mb_per_sec"] != 550.5 || len(s.Segments[0].Extra) != 2 {
		t.Errorf("segment read back = %+v, want its two extras", s.Segments)
	}
	if s.Segments[0].Threads != 2 || s.Segments[0].OpsPerSec != 10 {
		t.Errorf("segment read back = %+v", s.Segments[0])
	}
	if len(s.Events) != 2 || s.Events[0].AtS != 1.5 || s.Events[0].Text != "threads 1→2" || s.Events[1].Kind != "mark" {
		t.Errorf("events = %+v", s.Events)
	}
	if h := s.Machine(); h == nil || h.Cores != 3 || len(h.NICs) != 1 || h.NICs[0].SpeedMbps != 1000 || h.OS == "" {
		t.Errorf("run.host = %+v", h)
	}
	if s.Run.CommandLine != "benchtop run memory -threads 2" || s.Run.Version.GoVersion == "" {
		t.Errorf("run = %+v: want the command line and the build", s.Run)
	}
}

// The errors of a kind come with their count and the latest message,
// masked, after YCSB's Return= lines, which stay as they were; the JSON
// carries them too.
func TestErrorLinesAndCause(t *testing.T) {
	var b bytes.Buffer
	res := sampleResult(false, "op")
	WriteYCSB(&b, res)
	out := b.String()
	for _, want := range []string{
		"[UPDATE], Return=OK, 1\n[UPDATE], Return=ERROR, 1\n[UPDATE], Errors(unavailable), 1\n",
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

func TestMaskCause(t *testing.T) {
	got := MaskCause("auth failed\nfor mongodb://u:pw@h:27017/db now")
	if got != "auth failed for mongodb://u:****@h:27017/db now" {
		t.Errorf("MaskCause = %q", got)
	}
}

func TestJSONCarriesCauses(t *testing.T) {
	res := sampleResult(false, "op")
	st := engine.Stats{Count: 2, Errors: 1, ErrorsByKind: map[string]int64{"unavailable": 1},
		Causes: map[string]string{"unavailable": "redis://u:pw@h down"}}
	res.Final = &engine.Snapshot{Ops: []engine.OpSnapshot{{Name: "UPDATE", Cumulative: st}}, Total: engine.OpSnapshot{Cumulative: st}}
	var b bytes.Buffer
	if err := WriteJSON(&b, []*engine.PhaseResult{res}, engine.Info{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Count(out, `"unavailable": "redis://u:****@h down"`) != 2 {
		t.Errorf("JSON lacks the masked cause per operation and in total:\n%s", out)
	}
}
