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
	"benchtop/engine/verdict"
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
	Run         *engine.RunMeta    `json:"run,omitempty"`
	Workload    string             `json:"workload"`
	Mix         string             `json:"mix"`
	Start       time.Time          `json:"start"`
	Interrupted bool               `json:"interrupted"`
	Phases      []PhaseSummary     `json:"phases"`
	RuntimeMS   int64              `json:"runtime_ms"`
	Throughput  float64            `json:"throughput_ops_per_sec"`
	Operations  []OpSummary        `json:"operations"`
	Segments    []SegmentSummary   `json:"segments"`
	Integrity   int64              `json:"integrity_mismatches"`
	MeanCPU     *float64           `json:"mean_client_cpu_percent"` // null: not measured
	Properties  map[string]string  `json:"properties"`
	Extra       map[string]any     `json:"extra,omitempty"`
	Errors      map[string]int64   `json:"errors_by_kind,omitempty"`
	Causes      map[string]string  `json:"last_error_by_kind,omitempty"`
	Percentiles []float64          `json:"percentiles"`
	Intended    map[string]OpStats `json:"intended,omitempty"`
	// Thresholds are the --threshold verdicts; Crossed counts those that
	// did not pass.
	Thresholds []verdict.Result `json:"thresholds,omitempty"`
	Crossed    int              `json:"thresholds_crossed,omitempty"`
	Events     []EventSummary   `json:"events,omitempty"`
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

// PhaseSummary is one phase in the JSON summary.
type PhaseSummary struct {
	Phase      string  `json:"phase"`
	RuntimeMS  int64   `json:"runtime_ms"`
	Operations int64   `json:"operations"`
	Throughput float64 `json:"throughput_ops_per_sec"`
}

// OpSummary is one operation type in the JSON summary.
type OpSummary struct {
	Name string `json:"name"`
	OpStats
	Intended *OpStats `json:"intended,omitempty"`
}

// OpStats are latency figures in microseconds.
type OpStats struct {
	Count    int64              `json:"count"`
	OK       int64              `json:"ok"`
	Errors   int64              `json:"errors"`
	ByKind   map[string]int64   `json:"errors_by_kind,omitempty"`
	Causes   map[string]string  `json:"last_error_by_kind,omitempty"`
	MeanUS   float64            `json:"mean_us"`
	MinUS    float64            `json:"min_us"`
	MaxUS    float64            `json:"max_us"`
	P50US    float64            `json:"p50_us"`
	P95US    float64            `json:"p95_us"`
	P99US    float64            `json:"p99_us"`
	P999US   float64            `json:"p999_us"`
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
	Ops        int64   `json:"operations"`
	OpsPerSec  float64 `json:"ops_per_sec"`
	P50US      float64 `json:"p50_us"`
	P95US      float64 `json:"p95_us"`
	P99US      float64 `json:"p99_us"`
	// ServiceP99US and IntendedP99US: p99 of service time and of latency
	// from the intended start (0 without a target).
	ServiceP99US  float64  `json:"service_p99_us"`
	IntendedP99US float64  `json:"intended_p99_us,omitempty"`
	Errors        int64    `json:"errors"`
	ErrorRate     float64  `json:"error_rate"`
	Intervals     int      `json:"steady_intervals"`
	CPU           *float64 `json:"cpu_percent"` // null: not measured
	Best          bool     `json:"best"`
	Knee          bool     `json:"knee"`
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
	s.Thresholds = Verdicts(results, info)
	s.Crossed = verdict.Crossed(s.Thresholds)
	for _, r := range results {
		s.Phases = append(s.Phases, PhaseSummary{Phase: string(r.Phase), RuntimeMS: r.RunTime.Milliseconds(), Operations: r.Set.Ops, Throughput: r.Throughput()})
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
	s.Throughput = main.Throughput()
	s.Integrity = main.Set.Integrity
	s.MeanCPU = cpuJSON(main.MeanCPU)
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
		s.Segments = append(s.Segments, SegmentSummary{
			Index: g.Index, StartS: g.Start.Seconds(), DurationS: g.Duration().Seconds(), Label: g.Label,
			Threads: g.Threads, Partitions: g.Partitions, Target: g.Target, Ops: g.Ops, OpsPerSec: g.OpsPerSec,
			P50US: usf(g.P50), P95US: usf(g.P95), P99US: usf(g.P99), Errors: g.Errors, CPU: cpuJSON(g.CPU),
			ServiceP99US: usf(g.ServiceP99), IntendedP99US: usf(g.IntendedP99), ErrorRate: g.ErrorRate, Intervals: g.Intervals,
			Best: g.Best, Knee: g.Knee, Extra: g.Extra,
		})
	}
	return s
}

func toOpStats(s engine.Stats) OpStats {
	o := OpStats{
		Count: s.Count, OK: s.Count - s.Errors, Errors: s.Errors, ByKind: s.ErrorsByKind, Causes: maskCauses(s.Causes),
		MeanUS: usf(s.Mean), MinUS: usf(s.Min), MaxUS: usf(s.Max),
		P50US: usf(s.P50), P95US: usf(s.P95), P99US: usf(s.P99), P999US: usf(s.P999),
		OutRange: s.OutOfRange,
	}
	if len(s.Percentiles) > 0 {
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
