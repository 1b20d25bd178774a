// Package htmlreport renders a run as one self-contained HTML page to hand
// over: its metadata, the --threshold verdicts and the exit status they
// gave (thresholds.go), throughput and latency over time with every change
// marked, the latency percentile spectrum per operation, the client's CPU
// and network, the segments (what-if) table, the stream and time-series
// tables, and what limited the run. `benchtop report` reads a run from the
// exports benchtop writes (the JSON summary, the HDR interval log, the CSV
// time series: input.go); a live run's --html takes the same figures from
// the run itself (Recorder, recorder.go), so that a report made later from
// saved files equals the one written at the end of the run. Charts are
// drawn with gonum.org/v1/plot: SVG inlined in the page, PNG for slides.
// The page fetches nothing.
package htmlreport

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/htmlreport/page"
	"benchtop/results/report"
	"benchtop/rundata"
)

// Run is one run's exports as read: the JSON summary with the workload's
// closing section, and, when given, the CSV rows and HDR log intervals.
type Run struct {
	Summary report.Summary
	// Sections are the workload's own sections of the page, made from
	// its closing member (page.Register: the stream's, the time series').
	Sections []*page.Section
	Problems []string
	// Agents are a fleet run's client machines (nil: a run of one).
	Agents []Agent
	// Capacity is a --find-max search's outcome (nil: none).
	Capacity *rundata.Capacity
	// Rows are the CSV time series, one per interval; nil without one.
	Rows []Row
	// Intervals are the HDR log's histograms; nil without a log.
	Intervals []Interval
}

// Row is one CSV row: one interval of the run.
type Row struct {
	ElapsedS, IntervalS float64
	Phase               string
	Threads, Partitions int
	Target              float64
	Ops                 int64
	OpsPerSec           float64
	Errors              int64
	P50US, P95US, P99US float64
	// HasLatency: something succeeded in the interval (its latency
	// columns are not empty); without it P50US ... P99US mean nothing.
	HasLatency   bool
	CPU, ProcCPU float64 // percent of all cores; percent of one core
	RSS          float64
	RxBps, TxBps float64
}

// Interval is one histogram of the HDR log.
type Interval struct {
	Op       string // READ, UPDATE, ...
	Load     bool   // the load phase (LOAD- tags)
	Intended bool   // latency from the intended start
	Failed   bool
	// StartS and EndS are seconds since the run's start (Summary.Start).
	StartS, EndS float64
	H            *hdr.Histogram
}

// jsonDoc is the JSON summary with the members others add (a
// workload's closing member is read apart, by its key).
type jsonDoc struct {
	report.Summary
	Problems []string          `json:"problems"`
	Agents   []Agent           `json:"agents"`
	Capacity *rundata.Capacity `json:"capacity"`
}

// ReadJSON reads a JSON summary written by --json.
func ReadJSON(r io.Reader) (*Run, error) {
	var raw json.RawMessage
	if err := json.NewDecoder(r).Decode(&raw); err != nil {
		return nil, fmt.Errorf("not a benchtop JSON summary: %w", err)
	}
	var d jsonDoc
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("not a benchtop JSON summary: %w", err)
	}
	if d.Tool != "benchtop" {
		return nil, errors.New(`not a benchtop JSON summary (no "tool": "benchtop")`)
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, fmt.Errorf("not a benchtop JSON summary: %w", err)
	}
	secs, err := sectionsOf(members)
	if err != nil {
		return nil, fmt.Errorf("not a benchtop JSON summary: %w", err)
	}
	return &Run{Summary: d.Summary, Sections: secs, Problems: d.Problems, Agents: d.Agents, Capacity: d.Capacity}, nil
}

// ReadCSV reads the time series written by --timeseries into run.
func (run *Run) ReadCSV(r io.Reader) error {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err != nil {
		return fmt.Errorf("time series CSV: %w", err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, need := range []string{"elapsed_s", "ops_per_sec", "cpu_percent"} {
		if _, ok := col[need]; !ok {
			return fmt.Errorf("time series CSV: no %s column (not written by benchtop --timeseries?)", need)
		}
	}
	rows := []Row{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("time series CSV: %w", err)
		}
		var bad error
		f := func(name string) float64 {
			i, ok := col[name]
			if !ok || i >= len(rec) || rec[i] == "" {
				return 0
			}
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil && bad == nil {
				bad = fmt.Errorf("time series CSV line %d: %s %q is not a number", line, name, rec[i])
			}
			return v
		}
		row := Row{
			ElapsedS: f("elapsed_s"), IntervalS: f("interval_s"),
			Threads: int(f("threads")), Partitions: int(f("partitions")), Target: f("target"),
			Ops: int64(f("ops")), OpsPerSec: f("ops_per_sec"), Errors: int64(f("errors")),
			P50US: f("p50_us"), P95US: f("p95_us"), P99US: f("p99_us"),
			CPU: f("cpu_percent"), ProcCPU: f("proc_cpu_percent"), RSS: f("rss_bytes"),
			RxBps: f("rx_bytes_per_sec"), TxBps: f("tx_bytes_per_sec"),
		}
		if i, ok := col["phase"]; ok && i < len(rec) {
			row.Phase = rec[i]
		}
		if i, ok := col["p99_us"]; ok && i < len(rec) {
			row.HasLatency = rec[i] != "" // empty: nothing succeeded
		}
		if bad != nil {
			return bad
		}
		rows = append(rows, row)
	}
	run.Rows = rows
	return nil
}

// ReadHDRLog reads the interval log written by --hdr-log into run.
// hdrhistogram-go decodes its own format; times become seconds since the
// run's start.
func (run *Run) ReadHDRLog(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("HDR log: %w", err)
	}
	if !bytes.Contains(b, []byte("#[StartTime:")) && !bytes.Contains(b, []byte("HISTF")) {
		return errors.New("HDR log: no StartTime header and no histogram (not written by --hdr-log?)")
	}
	t0 := float64(run.Summary.Start.UnixNano()) / 1e9
	lr := hdr.NewHistogramLogReader(bytes.NewReader(b))
	ivls := []Interval{}
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return fmt.Errorf("HDR log: %w", err)
		}
		if h == nil {
			break
		}
		tag := h.Tag()
		iv := Interval{H: h, StartS: float64(h.StartTimeMs())/1e3 - t0, EndS: float64(h.EndTimeMs())/1e3 - t0}
		if rest, ok := strings.CutPrefix(tag, "LOAD-"); ok {
			iv.Load, tag = true, rest
		}
		if rest, ok := strings.CutPrefix(tag, "Intended-"); ok {
			iv.Intended, tag = true, rest
		}
		if rest, ok := strings.CutSuffix(tag, "-FAILED"); ok {
			iv.Failed, tag = true, rest
		}
		iv.Op = tag
		ivls = append(ivls, iv)
	}
	run.Intervals = ivls
	return nil
}

// Duration is the main phase's run time.
func (run *Run) Duration() time.Duration {
	return time.Duration(run.Summary.RuntimeMS) * time.Millisecond
}
