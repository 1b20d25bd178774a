package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/results/ci"
	"benchtop/results/thresholds"
	"benchtop/rundata"
)

// Summary is the JSON summary document.
type Summary struct {
	Tool        string  `json:"tool"`
	Command     string  `json:"command"`
	Database    string  `json:"database"`
	Target      float64 `json:"target"`                // ops/s at the start, 0 = unlimited (segments have each one's)
	Description string  `json:"description,omitempty"` // the adapter's, e.g. "in-process, 1 partition"
	// Run is the run's metadata: the command line (secrets masked), the
	// build and the client host with its links.
	Run         *engine.RunMeta `json:"run,omitempty"`
	Workload    string          `json:"workload"`
	Mix         string          `json:"mix"`
	Start       time.Time       `json:"start"`
	Interrupted bool            `json:"interrupted"`
	Phases      []PhaseSummary  `json:"phases"`
	RuntimeMS   int64           `json:"runtime_ms"`
	// Throughput is successful operations per second (goodput) over the
	// last phase; FailedRate the failed ones. (Before benchtop counted
	// failures in "throughput_ops_per_sec"; YCSB's [OVERALL] line still
	// does, as YCSB does.)
	Throughput float64 `json:"throughput_ops_per_sec"`
	FailedRate float64 `json:"failed_ops_per_sec"`
	// OpsPerSec is Throughput again, under the name the segments and
	// find-max's probes give it, with its 95 % confidence interval
	// (results/ci); P99US is the successful operations' p99 over the
	// last phase (from the intended start when measured), with its
	// interval; null when nothing succeeded.
	rundata.RateCI
	// ThroughputUnit is the unit of Throughput (and of the segments'
	// ops_per_sec) when it is a workload's own rate rather than
	// operations (the time series' "records/s": records acknowledged).
	ThroughputUnit string           `json:"throughput_unit,omitempty"`
	Operations     []OpSummary      `json:"operations"`
	Segments       []SegmentSummary `json:"segments"`
	// SegmentsNote says why best is undecided, when it is.
	SegmentsNote string `json:"segments_note,omitempty"`
	// CutOff counts the operations in flight when the grace after the
	// deadline (or a stop) ended: in no throughput and no error count.
	CutOff int64 `json:"cut_off"`
	// Outages are the spans of 3 or more intervals in which no operation
	// succeeded.
	Outages   []OutageSummary `json:"outages,omitempty"`
	Integrity int64           `json:"integrity_mismatches"`
	// Missing counts reads of records the run loaded and did not delete
	// that came back NOT_FOUND (dataintegrity).
	Missing int64    `json:"integrity_missing"`
	MeanCPU *float64 `json:"mean_client_cpu_percent"` // null: not measured
	// Pacer is the pacer's lateness in the last phase; absent unpaced.
	Pacer       *PacerSummary      `json:"pacer,omitempty"`
	Properties  map[string]string  `json:"properties"`
	Extra       map[string]any     `json:"extra,omitempty"`
	Errors      map[string]int64   `json:"errors_by_kind,omitempty"`
	Causes      map[string]string  `json:"last_error_by_kind,omitempty"`
	Percentiles []float64          `json:"percentiles"`
	Intended    map[string]OpStats `json:"intended,omitempty"`
	// Thresholds are the --threshold verdicts; Crossed counts those that
	// did not pass.
	Thresholds []thresholds.Result `json:"thresholds,omitempty"`
	Crossed    int                 `json:"thresholds_crossed,omitempty"`
	Events     []EventSummary      `json:"events,omitempty"`
}

// Machine is the client host of the run, nil when the summary has none.
func (s *Summary) Machine() *host.Machine {
	if s.Run == nil || s.Run.Host.OS == "" {
		return nil
	}
	return &s.Run.Host
}

// EventSummary is one change, mark or phase start, timed from the start
// of the run like the segments.
type EventSummary struct {
	AtS  float64 `json:"at_s"`
	Kind string  `json:"kind"`
	From string  `json:"from,omitempty"`
	To   string  `json:"to,omitempty"`
	Text string  `json:"text"`
}

// OutageSummary is one outage: from StartS (seconds since the run's
// start), Intervals intervals in which no operation succeeded.
type OutageSummary struct {
	StartS    float64 `json:"start_s"`
	DurationS float64 `json:"duration_s"`
	Intervals int     `json:"intervals"`
}

// PhaseSummary is one phase in the JSON summary: Operations counts
// every operation, OK and Failed split them, Throughput is the
// successful ones per second.
type PhaseSummary struct {
	Phase      string  `json:"phase"`
	RuntimeMS  int64   `json:"runtime_ms"`
	Operations int64   `json:"operations"`
	OK         int64   `json:"ok"`
	Failed     int64   `json:"failed"`
	CutOff     int64   `json:"cut_off"`
	Throughput float64 `json:"throughput_ops_per_sec"`
	FailedRate float64 `json:"failed_ops_per_sec"`
}

// OpSummary is one operation type in the JSON summary.
type OpSummary struct {
	Name string `json:"name"`
	OpStats
	Intended *OpStats `json:"intended,omitempty"`
}

// OpStats are an operation type's counts and its successful operations'
// latency in microseconds: null (nil) when none succeeded, never 0.
type OpStats struct {
	Count    int64              `json:"count"`
	OK       int64              `json:"ok"`
	Errors   int64              `json:"errors"`
	ByKind   map[string]int64   `json:"errors_by_kind,omitempty"`
	Causes   map[string]string  `json:"last_error_by_kind,omitempty"`
	MeanUS   *float64           `json:"mean_us"`
	MinUS    *float64           `json:"min_us"`
	MaxUS    *float64           `json:"max_us"`
	P50US    *float64           `json:"p50_us"`
	P95US    *float64           `json:"p95_us"`
	P99US    *float64           `json:"p99_us"`
	P999US   *float64           `json:"p999_us"`
	PctUS    map[string]float64 `json:"percentiles_us,omitempty"`
	OutRange int64              `json:"out_of_range,omitempty"`
}

// SegmentSummary is one row of the what-if table.
type SegmentSummary struct {
	Index      int     `json:"index"`
	StartS     float64 `json:"start_s"`
	DurationS  float64 `json:"duration_s"`
	Label      string  `json:"label"`
	Threads    int     `json:"threads"`
	Partitions int     `json:"partitions"`
	Target     float64 `json:"target"`
	// Ops counts every operation of the segment, OK the successful ones;
	// OpsPerSec is successful operations per second over its steady part
	// (failures apart, FailedPerSec).
	Ops          int64   `json:"operations"`
	OK           int64   `json:"ok"`
	OpsPerSec    float64 `json:"ops_per_sec"`
	FailedPerSec float64 `json:"failed_per_sec"`
	// OpsPerSecCILow and OpsPerSecCIHigh are OpsPerSec's 95 %
	// confidence interval, P99USCILow and P99USCIHigh P99US's
	// (results/ci).
	OpsPerSecCILow  float64 `json:"ops_per_sec_ci_low"`
	OpsPerSecCIHigh float64 `json:"ops_per_sec_ci_high"`
	// The latencies are null when nothing succeeded in the steady part.
	P50US       *float64 `json:"p50_us"`
	P95US       *float64 `json:"p95_us"`
	P99US       *float64 `json:"p99_us"`
	P99USCILow  *float64 `json:"p99_us_ci_low"`
	P99USCIHigh *float64 `json:"p99_us_ci_high"`
	// ServiceP99US and IntendedP99US: p99 of service time and of latency
	// from the intended start (absent without a target).
	ServiceP99US  *float64 `json:"service_p99_us"`
	IntendedP99US *float64 `json:"intended_p99_us,omitempty"`
	Errors        int64    `json:"errors"`
	ErrorRate     float64  `json:"error_rate"`
	Intervals     int      `json:"steady_intervals"`
	Stalls        int      `json:"stalls"`
	Paused        bool     `json:"paused,omitempty"`
	CPU           *float64 `json:"cpu_percent"` // null: not measured
	// State and Note are what the best and knee rules made of the
	// segment (results/marks): "qualified", "too short", "errors",
	// "stalled", "paused", "empty", and why in words.
	State string `json:"state"`
	Note  string `json:"note,omitempty"`
	Best  bool   `json:"best"`
	Knee  bool   `json:"knee"`
	// KneeFrom is, on the knee, the segment it was judged against.
	KneeFrom int `json:"knee_from,omitempty"`
	// Extra holds workload figures (rows_per_sec, mb_per_sec, ...); they
	// are written as members of the segment object itself.
	Extra map[string]float64 `json:"-"`
}

// UnmarshalJSON reads a segment written by MarshalJSON: members it does
// not name that hold numbers become Extra figures again.
func (s *SegmentSummary) UnmarshalJSON(b []byte) error {
	type plain SegmentSummary
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	known := map[string]bool{}
	t := reflect.TypeOf(p)
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		known[name] = true
	}
	for k, raw := range m {
		var f float64
		if known[k] || json.Unmarshal(raw, &f) != nil {
			continue
		}
		if p.Extra == nil {
			p.Extra = map[string]float64{}
		}
		p.Extra[k] = f
	}
	*s = SegmentSummary(p)
	return nil
}

// MarshalJSON writes the segment with its Extra figures as members.
func (s SegmentSummary) MarshalJSON() ([]byte, error) {
	type plain SegmentSummary
	b, err := json.Marshal(plain(s))
	if err != nil || len(s.Extra) == 0 {
		return b, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range s.Extra {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// BuildSummary assembles the JSON summary of a run.
func BuildSummary(results []*engine.PhaseResult, info engine.Info) *Summary {
	s := &Summary{
		Tool: "benchtop", Command: info.Command, Database: info.Adapter, Description: info.Target,
		Workload: info.Workload, Mix: info.Mix, Start: info.Start.UTC(), Properties: info.Properties,
		Operations: []OpSummary{}, Segments: []SegmentSummary{}, Phases: []PhaseSummary{},
	}
	s.Target, _ = strconv.ParseFloat(strings.TrimSpace(info.Properties["target"]), 64)
	s.Run = runMeta(info.Meta)
	if len(results) == 0 {
		return s
	}
	s.Thresholds = CheckThresholds(results, info)
	s.Crossed = thresholds.Crossed(s.Thresholds)
	for _, r := range results {
		s.Phases = append(s.Phases, PhaseSummary{Phase: string(r.Phase), RuntimeMS: r.RunTime.Milliseconds(), Operations: r.Set.Ops,
			OK: r.Set.OK(), Failed: r.Set.Failed, CutOff: r.Set.CutOff, Throughput: r.Goodput(), FailedRate: r.FailedRate()})
		for _, e := range r.Events {
			s.Events = append(s.Events, EventSummary{AtS: e.At.Seconds(), Kind: e.Kind, From: e.From, To: e.To, Text: e.String()})
		}
	}
	main := results[len(results)-1]
	if main.Final != nil {
		s.Run.Host = s.Run.Host.WithLinks(main.Final.Host)
	}
	s.Interrupted = main.Interrupted
	s.RuntimeMS = main.RunTime.Milliseconds()
	s.Throughput, s.FailedRate = main.Goodput(), main.FailedRate()
	s.OpsPerSec = s.Throughput
	s.OpsPerSecCILow, s.OpsPerSecCIHigh = min(main.GoodputLow, s.Throughput), max(main.GoodputHigh, s.Throughput)
	if main.Rated && main.RunTime > 0 {
		iv := ci.Poisson(s.Throughput, main.RateCount, main.RunTime.Seconds())
		s.OpsPerSecCILow, s.OpsPerSecCIHigh = iv.Low, iv.High
	}
	s.P99US, s.P99USCILow, s.P99USCIHigh = usJSON(main.P99, main.HasP99), usJSON(main.P99Low, main.HasP99), usJSON(main.P99High, main.HasP99)
	s.ThroughputUnit = info.RateUnit
	s.CutOff = main.Set.CutOff
	for _, o := range main.Outages {
		s.Outages = append(s.Outages, OutageSummary{StartS: o.Start.Seconds(), DurationS: (o.End - o.Start).Seconds(), Intervals: o.Intervals})
	}
	s.Integrity, s.Missing = main.Set.Integrity, main.Set.Missing
	s.MeanCPU = cpuJSON(main.MeanCPU)
	s.Pacer = pacerSummary(main.Pacer)
	s.Percentiles = main.Percentiles
	if f := main.Final; f != nil {
		for _, o := range f.Ops {
			os := OpSummary{Name: o.Name, OpStats: toOpStats(o.Cumulative)}
			if o.IntendedCumulative != nil {
				is := toOpStats(*o.IntendedCumulative)
				os.Intended = &is
			}
			s.Operations = append(s.Operations, os)
		}
		s.Errors = f.Total.Cumulative.ErrorsByKind
		s.Causes = maskCauses(f.Total.Cumulative.Causes)
	}
	for _, g := range main.Segments {
		s.Segments = append(s.Segments, segmentSummary(g))
	}
	if f := main.Final; f != nil {
		s.SegmentsNote = f.SegmentsNote
	}
	return s
}

// segmentSummary is one segment as the JSON summary holds it.
func segmentSummary(g engine.Segment) SegmentSummary {
	has := g.HasLatency
	return SegmentSummary{
		Index: g.Index, StartS: g.Start.Seconds(), DurationS: g.Duration().Seconds(), Label: g.Label,
		Threads: g.Threads, Partitions: g.Partitions, Target: g.Target, Ops: g.Ops, OK: g.OK, OpsPerSec: g.OpsPerSec,
		FailedPerSec: g.FailedPerSec, OpsPerSecCILow: min(g.OpsPerSecLow, g.OpsPerSec), OpsPerSecCIHigh: max(g.OpsPerSecHigh, g.OpsPerSec),
		P50US: usJSON(g.P50, has), P95US: usJSON(g.P95, has), P99US: usJSON(g.P99, has), Errors: g.Errors, CPU: cpuJSON(g.CPU),
		P99USCILow: usJSON(min(g.P99Low, g.P99), has), P99USCIHigh: usJSON(max(g.P99High, g.P99), has),
		ServiceP99US: usJSON(g.ServiceP99, has), IntendedP99US: usJSON(g.IntendedP99, has && g.IntendedP99 > 0),
		ErrorRate: g.ErrorRate, Intervals: g.Intervals, Stalls: g.Stalls, Paused: g.Paused,
		State: string(g.State), Note: g.Note, Best: g.Best, Knee: g.Knee, KneeFrom: g.KneeFrom, Extra: g.Extra,
	}
}

func toOpStats(s engine.Stats) OpStats {
	has := s.HasLatency()
	o := OpStats{
		Count: s.Count, OK: s.OK, Errors: s.Errors, ByKind: s.ErrorsByKind, Causes: maskCauses(s.Causes),
		MeanUS: usJSON(s.Mean, has), MinUS: usJSON(s.Min, has), MaxUS: usJSON(s.Max, has),
		P50US: usJSON(s.P50, has), P95US: usJSON(s.P95, has), P99US: usJSON(s.P99, has), P999US: usJSON(s.P999, has),
		OutRange: s.OutOfRange,
	}
	if len(s.Percentiles) > 0 && has {
		o.PctUS = map[string]float64{}
		for _, p := range s.Percentiles {
			o.PctUS[strconv.FormatFloat(p.Q, 'f', -1, 64)] = usf(p.Value)
		}
	}
	return o
}

// runMeta is the run's metadata, with the build and this host filled in
// when the caller left them out (tests, tools building a summary).
func runMeta(m engine.RunMeta) *engine.RunMeta {
	if m.Version.GoVersion == "" {
		m.Version = engine.Version()
	}
	if m.Host.OS == "" {
		m.Host = host.Describe()
	}
	return &m
}

// WriteJSON writes the JSON summary; a workload's closing section becomes
// a top-level member under its key (e.g. "stream").
func WriteJSON(w io.Writer, results []*engine.PhaseResult, info engine.Info) error {
	s := BuildSummary(results, info)
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	if n := len(results); n > 0 && results[n-1].Closing != nil && results[n-1].Closing.JSONKey != "" {
		c := results[n-1].Closing
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return err
		}
		extra, err := json.Marshal(c.JSON)
		if err != nil {
			return fmt.Errorf("%s section: %w", c.JSONKey, err)
		}
		m[c.JSONKey] = extra
		if len(c.Problems) > 0 {
			pb, _ := json.Marshal(c.Problems)
			m["problems"] = pb
		}
		if b, err = json.Marshal(m); err != nil {
			return err
		}
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	_, err = w.Write(out.Bytes())
	return err
}
