package stream

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/marks"
	"benchtop/engine/units"
	"benchtop/engine/workload"
)

// RowCounts is the account of a stream's rows, one process's (Summary)
// or a fleet's (Verdict): the same members in both JSON documents.
type RowCounts struct {
	// Produced counts rows acknowledged by their Produce call.
	Produced int64 `json:"produced"`
	// Consumed counts deliveries, duplicates included; Distinct the rows
	// delivered at least once.
	Consumed int64 `json:"consumed"`
	Distinct int64 `json:"delivered_distinct"`
	// Lost rows were produced and acknowledged and never delivered.
	Lost int64 `json:"lost"`
	// Duplicated counts deliveries beyond the first of a row, by the same
	// process or another (a redelivery after a rebalance).
	Duplicated int64 `json:"duplicated"`
	// OutOfOrder counts rows delivered after a later row of their key
	// from the same partition.
	OutOfOrder int64 `json:"out_of_order"`
	// Unknown counts rows delivered that no known producer wrote.
	Unknown int64 `json:"unknown_rows"`
	// FailedWrites are failed rows never delivered; FailedDelivered failed
	// rows delivered anyway.
	FailedWrites    int64 `json:"failed_writes"`
	FailedDelivered int64 `json:"failed_writes_delivered"`
}

// Summary is the stream's closing section: the "stream" member of the
// JSON summary, and the figures of the text report.
type Summary struct {
	RowCounts
	ReadErrors int64 `json:"read_errors"`
	Drained    bool  `json:"drained"`
	DrainMS    int64 `json:"drain_ms"`
	// FleetVerdict: the stream was shared by a fleet's agents (one
	// consumer group) and lost, duplicated and out-of-order rows are the
	// fleet's verdict (Merge of every agent's Ledger), not this summary's.
	FleetVerdict bool `json:"accounted_by_fleet,omitempty"`
	// Ledger is this agent's part of the fleet verdict (FleetVerdict only).
	Ledger *Ledger `json:"-"`

	StableRowsPerSec float64 `json:"rows_per_sec_stable"`
	PeakRowsPerSec   float64 `json:"rows_per_sec_peak"`
	MeanRowsPerSec   float64 `json:"rows_per_sec_mean"`
	MsPer1000Rows    float64 `json:"ms_per_1000_rows"`
	StableMBPerSec   float64 `json:"mb_per_sec"`
	PeakMBPerSec     float64 `json:"mb_per_sec_peak"`
	CPUCores         float64 `json:"cpu_cores"`
	PeakRSS          uint64  `json:"peak_rss_bytes"`
	E2E              E2EJSON `json:"e2e_us"`

	RowSize         int        `json:"row_size"`
	BatchSize       int        `json:"batch_size"`
	PartitionsFinal int        `json:"partitions_final"`
	Epochs          int        `json:"epochs"`
	Stream          string     `json:"stream,omitempty"`
	Scenarios       []Scenario `json:"scenarios"`
	// BestNote says why no scenario is marked best, when there are two
	// or more.
	BestNote string `json:"best_note,omitempty"`
}

// E2EJSON is an end-to-end latency summary in microseconds.
type E2EJSON struct {
	Count int64   `json:"count"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// Scenario is one configuration held (partitions and producer threads):
// the published table's row.
type Scenario struct {
	Partitions       int     `json:"partitions"`
	Threads          int     `json:"threads"`
	StartS           float64 `json:"start_s"`
	DurationS        float64 `json:"duration_s"`
	Rows             int64   `json:"rows"`
	StableRowsPerSec float64 `json:"rows_per_sec_stable"`
	PeakRowsPerSec   float64 `json:"rows_per_sec_peak"`
	MsPer1000Rows    float64 `json:"ms_per_1000_rows"`
	StableMBPerSec   float64 `json:"mb_per_sec"`
	CPUCores         float64 `json:"cpu_cores"`
	RSS              uint64  `json:"rss_bytes"`
	MaxLag           int64   `json:"lag_max"`
	E2E              E2EJSON `json:"e2e_us"`
	// Intervals counts the clean intervals the stable rate is the median
	// of; State is what the best rule made of the row (engine/marks:
	// "qualified", "too short", ...), Best the one it chose.
	Intervals int    `json:"intervals"`
	State     string `json:"state,omitempty"`
	Best      bool   `json:"best"`
}

// markScenarios marks the best row by engine/marks' rules, the same as the
// segments' (at least two rows of 3 clean intervals, and no other row
// faster), and returns why best is undecided ("" when it is not).
func markScenarios(rows []Scenario) string {
	mr := make([]marks.Row, len(rows))
	for i, r := range rows {
		mr[i] = marks.Row{Index: i + 1, Rate: r.StableRowsPerSec, Intervals: r.Intervals, Ops: r.Rows,
			Config: fmt.Sprintf("partitions %d, threads %d", r.Partitions, r.Threads)}
	}
	v := marks.Decide(mr, "rows/s", "row")
	for i := range rows {
		rows[i].State, rows[i].Best = string(v.States[i]), i == v.Best
	}
	return v.Note
}

func e2eJSON(h *hdr.Histogram) E2EJSON {
	l := latencyOf(h)
	us := func(d time.Duration) float64 { return float64(d) / 1e3 }
	return E2EJSON{Count: l.Count, P50: us(l.P50), P95: us(l.P95), P99: us(l.P99), Max: us(l.Max)}
}

func msPer1000(rate float64) float64 {
	if rate <= 0 {
		return 0
	}
	return 1e6 / rate
}

// Finish accounts for every row once the consumers have stopped: produced,
// consumed, lost, duplicated and out of order. Lost, duplicated or
// out-of-order rows, unknown rows and an unfinished drain are Problems.
func (w *Workload) Finish(_ context.Context) (workload.Final, error) {
	w.ctlMu.Lock()
	started, drainErr := w.started, w.drainErr
	w.ctlMu.Unlock()
	if !started {
		return workload.Final{}, nil
	}
	s := w.Summary()
	var problems []string
	if s.FleetVerdict {
		// The coordinator merges every agent's ledger and decides.
		if drainErr != nil {
			problems = append(problems, "stream: "+drainErr.Error())
		}
		return workload.Final{Text: func(out io.Writer) { writeText(out, s) }, JSONKey: "stream", JSON: s, Problems: problems}, nil
	}
	if s.Lost > 0 {
		problems = append(problems, fmt.Sprintf("stream: %d rows lost (produced and acknowledged, never delivered)", s.Lost))
	}
	if s.Duplicated > 0 {
		problems = append(problems, fmt.Sprintf("stream: %d rows delivered more than once", s.Duplicated))
	}
	if s.OutOfOrder > 0 {
		problems = append(problems, fmt.Sprintf("stream: %d rows delivered out of order (after a later row of the same key)", s.OutOfOrder))
	}
	if s.Unknown > 0 {
		problems = append(problems, fmt.Sprintf("stream: %d rows delivered that no producer wrote (corrupt)", s.Unknown))
	}
	if drainErr != nil {
		problems = append(problems, "stream: "+drainErr.Error())
	}
	return workload.Final{
		Text:     func(out io.Writer) { writeText(out, s) },
		JSONKey:  "stream",
		JSON:     s,
		Problems: problems,
	}, nil
}

// Summary computes the closing figures. Call it after the run.
func (w *Workload) Summary() *Summary {
	w.ctlMu.Lock()
	drainErr, drainTime, finalParts := w.drainErr, w.drainTime, w.finalParts
	w.ctlMu.Unlock()
	s := &Summary{
		RowCounts: RowCounts{
			Produced:   w.produced.Load(),
			Consumed:   w.consumed.Load(),
			Duplicated: w.check.duplicated.Load(),
			OutOfOrder: w.check.outOfOrder.Load(),
		},
		ReadErrors:      w.readErrors.Load(),
		Drained:         drainErr == nil,
		DrainMS:         drainTime.Milliseconds(),
		RowSize:         w.opts.RowSize,
		BatchSize:       w.opts.BatchSize,
		PartitionsFinal: finalParts,
		Stream:          w.describeStream(),
		Scenarios:       []Scenario{},
	}
	if w.ep != nil {
		s.Epochs = w.ep.count() - 1 // the closing epoch is not one
	}
	w.ctlMu.Lock()
	shared := w.shared
	w.ctlMu.Unlock()
	for _, p := range *w.prods.Load() {
		if shared {
			break // accounted by the ledger below
		}
		p.mu.Lock()
		for k, produced := range p.keySeq {
			if produced == 0 && p.check[k].Load() == 0 {
				continue
			}
			t := w.check.tallyKey(&p.check[k], p.id, uint32(k), produced)
			s.Distinct += t.delivered
			s.Lost += t.lost
			s.FailedWrites += t.failedMissing
			s.FailedDelivered += t.failedDelivered
		}
		p.mu.Unlock()
	}
	s.Lost += w.check.presumed.Load()
	s.Unknown = w.check.unknown.Load()
	if shared {
		w.sharedSummary(s)
	}
	w.samp.scenarios(s)
	return s
}

// scenarios adds the published kind of table to the summary: one row per
// partition count and thread count held, and the figures over all of them.
func (sm *sampler) scenarios(s *Summary) {
	sm.mu.Lock()
	defer sm.mu.Unlock()
	if sm.cum != nil {
		s.E2E = e2eJSON(sm.cum)
	}
	var all, allMB, cpu []float64
	var dur time.Duration
	for _, sc := range sm.scen {
		rates := append([]float64(nil), sc.rates...)
		all = append(all, sc.rates...)
		allMB = append(allMB, sc.mbps...)
		cpu = append(cpu, sc.cpu...)
		dur += sc.dur
		row := Scenario{
			Partitions: sc.parts, Threads: sc.threads,
			StartS: sc.start.Seconds(), DurationS: sc.dur.Seconds(), Rows: sc.rows,
			StableRowsPerSec: median(rates), PeakRowsPerSec: maxOf(sc.rates),
			StableMBPerSec: median(append([]float64(nil), sc.mbps...)),
			CPUCores:       mean(sc.cpu), RSS: sc.rss, MaxLag: sc.maxLag, E2E: e2eJSON(sc.hist), Intervals: len(sc.rates),
		}
		row.MsPer1000Rows = msPer1000(row.StableRowsPerSec)
		s.Scenarios = append(s.Scenarios, row)
	}
	s.BestNote = markScenarios(s.Scenarios)
	s.PeakRowsPerSec = maxOf(all)
	s.PeakMBPerSec = maxOf(allMB)
	s.StableRowsPerSec = median(all)
	s.StableMBPerSec = median(allMB)
	s.MsPer1000Rows = msPer1000(s.StableRowsPerSec)
	s.CPUCores = mean(cpu)
	s.PeakRSS = sm.peakRSS
	var rows int64
	for _, sc := range sm.scen {
		rows += sc.rows
	}
	if dur > 0 {
		s.MeanRowsPerSec = float64(rows) / dur.Seconds()
	}
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t / float64(len(xs))
}

func round(f float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(f*p) / p
}

// writeText writes the stream section of the text report: YCSB-style
// [STREAM] lines for scripts, then the published kind of table.
func writeText(out io.Writer, s *Summary) {
	line := func(k string, v any) { fmt.Fprintf(out, "[STREAM], %s, %v\n", k, v) }
	line("RowsProduced", s.Produced)
	line("RowsConsumed", s.Consumed)
	if s.FleetVerdict {
		line("RowsVerdict", "fleet (one consumer group: see the fleet's [STREAM-FLEET] lines)")
	}
	line("RowsLost", s.Lost)
	line("RowsDuplicated", s.Duplicated)
	line("RowsOutOfOrder", s.OutOfOrder)
	if s.Unknown > 0 {
		line("RowsUnknown", s.Unknown)
	}
	line("FailedWrites", s.FailedWrites)
	if s.ReadErrors > 0 {
		line("ReadErrors", s.ReadErrors)
	}
	line("StableRowsPerSec", units.JavaDouble(round(s.StableRowsPerSec, 1)))
	line("PeakRowsPerSec", units.JavaDouble(round(s.PeakRowsPerSec, 1)))
	line("MsPer1000Rows", units.JavaDouble(round(s.MsPer1000Rows, 4)))
	line("MBPerSec", units.JavaDouble(round(s.StableMBPerSec, 2)))
	line("ClientCPUCores", units.JavaDouble(round(s.CPUCores, 2)))
	line("PeakRSS(MB)", units.JavaDouble(round(float64(s.PeakRSS)/1e6, 1)))
	line("E2E-50thPercentileLatency(us)", int64(s.E2E.P50))
	line("E2E-95thPercentileLatency(us)", int64(s.E2E.P95))
	line("E2E-99thPercentileLatency(us)", int64(s.E2E.P99))
	line("E2E-MaxLatency(us)", int64(s.E2E.Max))
	line("Drained", s.Drained)
	WriteScenarios(out, s.Scenarios)
	if s.BestNote != "" {
		fmt.Fprintf(out, "# %s\n", s.BestNote)
	}
}

// WriteScenarios writes the stream's table: one row per partition count
// and thread count held, with stable (median) and peak consumed rows/s,
// ms per 1,000 rows, MB/s, end-to-end latency, lag, client CPU and memory.
func WriteScenarios(out io.Writer, rows []Scenario) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(out, "\n# Stream (one row per partitions and threads held; rows consumed; transitions left out)\n")
	fmt.Fprintf(out, "%10s %7s %8s %14s %14s %9s %8s %9s %9s %11s %5s %7s  %s\n",
		"partitions", "threads", "duration", "rows/s stable", "rows/s peak", "ms/1000", "MB/s", "e2e p50", "e2e p99", "lag max", "cpu", "rss MB", "")
	for _, r := range rows {
		mark := ""
		if r.Best {
			mark = "★ best"
		} else if r.State != "" && r.State != string(marks.Qualified) {
			mark = "(" + r.State + ")"
		}
		fmt.Fprintf(out, "%10d %7d %8s %14s %14s %9.3f %8.1f %9s %9s %11s %5.2f %7.0f  %s\n",
			r.Partitions, r.Threads, (time.Duration(r.DurationS * float64(time.Second))).Round(100*time.Millisecond).String(),
			units.Count(int64(math.Round(r.StableRowsPerSec))), units.Count(int64(math.Round(r.PeakRowsPerSec))),
			r.MsPer1000Rows, r.StableMBPerSec, fmtUS(r.E2E.P50), fmtUS(r.E2E.P99), units.Count(r.MaxLag), r.CPUCores, float64(r.RSS)/1e6, mark)
	}
}

// fmtUS renders microseconds compactly: 850µs, 12.5ms, 1.20s.
func fmtUS(us float64) string {
	switch {
	case us <= 0:
		return "0"
	case us < 1000:
		return strconv.FormatFloat(us, 'f', 0, 64) + "µs"
	case us < 1e6:
		return strconv.FormatFloat(us/1e3, 'f', 1, 64) + "ms"
	}
	return strconv.FormatFloat(us/1e6, 'f', 2, 64) + "s"
}
