// Package report writes what a run measured: the final report in YCSB's
// text format (so that scripts written for YCSB keep working) followed by
// the segments table, the JSON summary, the CSV time series of every
// interval and HdrHistogram interval logs.
package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/engine/units"
	"benchtop/engine/verdict"
)

// ordinal is YCSB's percentile label: 95 → "95th", 99.9 → "99.9".
func ordinal(q float64) string {
	if q == math.Trunc(q) {
		j := int(q)
		switch j % 100 {
		case 11, 12, 13:
			return strconv.Itoa(j) + "th"
		}
		suffix := []string{"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"}[j%10]
		return strconv.Itoa(j) + suffix
	}
	return units.JavaDouble(q)
}

func us(ns int64) int64 { return ns / 1000 }

// writeMeasurement prints one YCSB measurement block.
func writeMeasurement(w io.Writer, name string, h *hdr.Histogram, pct []float64) {
	fmt.Fprintf(w, "[%s], Operations, %d\n", name, h.TotalCount())
	fmt.Fprintf(w, "[%s], AverageLatency(us), %s\n", name, units.JavaDouble(h.Mean()/1000))
	fmt.Fprintf(w, "[%s], MinLatency(us), %d\n", name, us(h.Min()))
	fmt.Fprintf(w, "[%s], MaxLatency(us), %d\n", name, us(h.Max()))
	for _, q := range pct {
		fmt.Fprintf(w, "[%s], %sPercentileLatency(us), %d\n", name, ordinal(q), us(h.ValueAtQuantile(q)))
	}
}

// returnName maps an error kind to YCSB's status name.
func returnName(kind string) string {
	switch kind {
	case "not_found":
		return "NOT_FOUND"
	case "integrity":
		return "UNEXPECTED_STATE"
	}
	return "ERROR"
}

// WriteYCSB writes one phase's report in YCSB's text format. label is
// "OVERALL" for the main phase; a load phase run before the run phase is
// written with WriteLoadSummary instead.
func WriteYCSB(w io.Writer, res *engine.PhaseResult) {
	fmt.Fprintf(w, "[OVERALL], RunTime(ms), %d\n", res.RunTime.Milliseconds())
	fmt.Fprintf(w, "[OVERALL], Throughput(ops/sec), %s\n", units.JavaDouble(res.Throughput()))
	writeGC(w, res)
	set := res.Set
	showOp := res.Measurement != "intended" || !res.Intended
	showIntended := res.Intended
	if res.Measurement == "op" {
		showIntended = false
		showOp = true
	}
	m := measurementWriter{res: res}
	for op := 0; op < len(res.OpNames) && op < measure.NumOps; op++ {
		name := res.OpNames[op]
		ok := set.H[measure.Slot(op, measure.OK)]
		failed := set.H[measure.Slot(op, measure.Failed)]
		if (ok == nil || ok.TotalCount() == 0) && (failed == nil || failed.TotalCount() == 0) {
			continue
		}
		if showOp {
			if ok != nil && ok.TotalCount() > 0 {
				m.head(w, name, ok)
			} else {
				fmt.Fprintf(w, "[%s], Operations, 0\n", name)
			}
			writeReturns(w, name, ok, set.Errors[op])
			if ok != nil && ok.TotalCount() > 0 {
				m.tail(w, name, ok, measure.Slot(op, measure.OK))
			}
			writeErrors(w, name, set.Errors[op], set.Causes[op])
			if failed != nil && failed.TotalCount() > 0 {
				m.head(w, name+"-FAILED", failed)
				m.tail(w, name+"-FAILED", failed, measure.Slot(op, measure.Failed))
			}
		}
		if showIntended {
			iok := set.H[measure.Slot(op, measure.OKIntended)]
			ifailed := set.H[measure.Slot(op, measure.FailedIntended)]
			if iok != nil && iok.TotalCount() > 0 {
				m.head(w, "Intended-"+name, iok)
				if !showOp {
					writeReturns(w, "Intended-"+name, iok, set.Errors[op])
					writeErrors(w, name, set.Errors[op], set.Causes[op])
				}
				m.tail(w, "Intended-"+name, iok, measure.Slot(op, measure.OKIntended))
			}
			if ifailed != nil && ifailed.TotalCount() > 0 {
				m.head(w, "Intended-"+name+"-FAILED", ifailed)
				m.tail(w, "Intended-"+name+"-FAILED", ifailed, measure.Slot(op, measure.FailedIntended))
			}
		}
		if oor := set.OutOfRange[measure.Slot(op, measure.OK)] + set.OutOfRange[measure.Slot(op, measure.OKIntended)]; oor > 0 {
			fmt.Fprintf(w, "[%s], OutOfRange(>1h), %d\n", name, oor)
		}
	}
	writeCleanup(w, res, showOp, showIntended)
}

func writeReturns(w io.Writer, name string, ok *hdr.Histogram, errs map[string]int64) {
	var n int64
	if ok != nil {
		n = ok.TotalCount()
	}
	fmt.Fprintf(w, "[%s], Return=OK, %d\n", name, n)
	byStatus := map[string]int64{}
	for k, c := range errs {
		byStatus[returnName(k)] += c
	}
	keys := make([]string, 0, len(byStatus))
	for k := range byStatus {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(w, "[%s], Return=%s, %d\n", name, k, byStatus[k])
	}
}

// writeErrors adds benchtop's own error lines after YCSB's Return= lines:
// per kind the count, `[READ], Errors(unavailable), 12`, and the latest
// message as a comment, `# last unavailable: dial tcp ...: connection
// refused` (credentials masked), the cause a user can act on.
func writeErrors(w io.Writer, name string, errs map[string]int64, causes map[string]string) {
	kinds := make([]string, 0, len(errs))
	for k := range errs {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		fmt.Fprintf(w, "[%s], Errors(%s), %d\n", name, k, errs[k])
		if c := causes[k]; c != "" {
			fmt.Fprintf(w, "# last %s: %s\n", k, MaskCause(c))
		}
	}
}

// MaskCause makes an error message fit for a screen or a report: one
// line, and every URL in it with its password masked.
func MaskCause(msg string) string {
	fields := strings.Fields(msg)
	for i, f := range fields {
		if strings.Contains(f, "@") {
			fields[i] = adapters.MaskURL(f)
		}
	}
	return strings.Join(fields, " ")
}

// maskCauses is MaskCause over a map of causes by kind (nil for none).
func maskCauses(c map[string]string) map[string]string {
	if len(c) == 0 {
		return nil
	}
	out := make(map[string]string, len(c))
	for k, v := range c {
		out[k] = MaskCause(v)
	}
	return out
}

// WriteLoadSummary writes a load phase that ran before the run phase as
// [LOAD] lines, so that [OVERALL] stays the run phase's.
func WriteLoadSummary(w io.Writer, res *engine.PhaseResult) {
	fmt.Fprintf(w, "[LOAD], RunTime(ms), %d\n", res.RunTime.Milliseconds())
	fmt.Fprintf(w, "[LOAD], Throughput(ops/sec), %s\n", units.JavaDouble(res.Throughput()))
	fmt.Fprintf(w, "[LOAD], Operations, %d\n", res.Set.Ops)
	var errs int64
	for _, m := range res.Set.Errors {
		for _, n := range m {
			errs += n
		}
	}
	fmt.Fprintf(w, "[LOAD], Errors, %d\n", errs)
}

// FormatDuration renders a latency compactly: 850ns, 2.1µs, 11.0ms, 1.20s.
func FormatDuration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return trimFloat(float64(d)/1e3) + "µs"
	case d < time.Second:
		return trimFloat(float64(d)/1e6) + "ms"
	}
	return trimFloat(float64(d)/1e9) + "s"
}

func trimFloat(f float64) string {
	switch {
	case f >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	case f >= 10:
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// FormatCount renders an integer with thousands separators.
func FormatCount(n int64) string { return units.Count(n) }

// WriteSegments writes the what-if table: one row per segment.
func WriteSegments(w io.Writer, segs []engine.Segment) {
	if len(segs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n# Segments (one per configuration held; latency from the intended start when a target was set)\n")
	var extras []string
	seen := map[string]bool{}
	for _, s := range segs {
		for k := range s.Extra {
			if !seen[k] {
				seen[k] = true
				extras = append(extras, k)
			}
		}
	}
	sort.Strings(extras)
	head := fmt.Sprintf("%2s %5s %6s %7s %5s %9s %11s", "#", "from", "dur", "threads", "parts", "target", "ops/s")
	for _, k := range extras {
		head += fmt.Sprintf(" %11s", strings.ReplaceAll(strings.TrimSuffix(k, "_per_sec"), "_", " ")+"/s")
	}
	fmt.Fprintf(w, "%s %7s %7s %7s %6s %4s\n", head, "p50", "p95", "p99", "errors", "cpu")
	for _, s := range segs {
		mark := ""
		if s.Knee {
			mark = "← knee"
		}
		if s.Best {
			if mark != "" {
				mark += " "
			}
			mark += "★ best"
		}
		target := "∞"
		if s.Target > 0 {
			target = FormatCount(int64(s.Target))
		}
		row := fmt.Sprintf("%2d %5s %6s %7d %5d %9s %11s",
			s.Index, clock(s.Start), shortDur(s.Duration()), s.Threads, s.Partitions, target,
			FormatCount(int64(math.Round(s.OpsPerSec))))
		for _, k := range extras {
			v := s.Extra[k]
			if v >= 100 {
				row += fmt.Sprintf(" %11s", FormatCount(int64(math.Round(v))))
			} else {
				row += fmt.Sprintf(" %11.2f", v)
			}
		}
		fmt.Fprintf(w, "%s %7s %7s %7s %6d %4s  %s\n", row, FormatDuration(s.P50), FormatDuration(s.P95), FormatDuration(s.P99),
			s.Errors, cpuText(s.CPU), strings.TrimSpace(mark+"  "+s.Label))
	}
}

// cpuText is a CPU percentage, or n/a when it was not measured.
func cpuText(pct float64) string {
	if pct < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%3.0f%%", pct)
}

// cpuJSON is a CPU percentage for JSON: null when it was not measured.
func cpuJSON(pct float64) *float64 {
	if pct < 0 {
		return nil
	}
	return &pct
}

// shortDur renders a segment length in at most 6 characters: 9.5s, 1m30s,
// 2h05m.
func shortDur(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

func clock(d time.Duration) string {
	s := int(d.Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%02d:%02d", s/60, s%60)
}

// WriteText writes the whole final report: a preceding load phase as
// [LOAD] lines, the main phase in YCSB's format, the segments table, and
// the data-integrity line when checked.
func WriteText(w io.Writer, results []*engine.PhaseResult, info engine.Info) {
	if len(results) == 0 {
		return
	}
	writeMetaComment(w, info)
	main := results[len(results)-1]
	for _, r := range results[:len(results)-1] {
		WriteLoadSummary(w, r)
	}
	WriteYCSB(w, main)
	if main.Set.Integrity > 0 || info.Properties["dataintegrity"] == "true" {
		fmt.Fprintf(w, "[VERIFY], Mismatches, %d\n", main.Set.Integrity)
	}
	// What benchtop adds after the YCSB part: comment lines only (and the
	// workloads' own measurement lines, [STREAM], ...).
	var extra bytes.Buffer
	if main.Closing != nil && main.Closing.Text != nil {
		main.Closing.Text(&extra)
	}
	if main.Closing != nil {
		for _, p := range main.Closing.Problems {
			fmt.Fprintf(&extra, "# PROBLEM: %s\n", p)
		}
	}
	if main.Interrupted {
		fmt.Fprintf(&extra, "# interrupted: the report covers what ran until the stop\n")
	}
	writeGCComment(&extra, main)
	WriteSegments(&extra, main.Segments)
	writeVerdicts(&extra, Verdicts(results, info))
	commented(w, extra.Bytes())
}

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

func usf(d time.Duration) float64 { return float64(d) / 1e3 }

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
