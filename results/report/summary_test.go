package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
)

func TestSummaryReadsBackWithExtrasEventsAndHost(t *testing.T) {
	t.Parallel()
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

func TestJSONCarriesCauses(t *testing.T) {
	t.Parallel()
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
