package stream

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/results/marks"
	"benchtop/rundata/units"
	"benchtop/workload"
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
	// Duplicated counts deliveries beyond the first of a row that the
	// stream holds more than once, or that one reader delivered twice.
	Duplicated int64 `json:"duplicated"`
	// Redelivered counts deliveries of a row again from the same position
	// (Kafka's at-least-once: the next owner of a partition starts at the
	// last committed offset after a rebalance). No fault.
	Redelivered int64 `json:"redelivered"`
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
	// Verdict says what the row counts judge: "" or VerdictComplete
	// (every row of the stream was delivered here), VerdictPartial (a
	// shared stream whose other members delivered some rows: lost rows
	// are not judged here, Merge of every member's ledger judges them) or
	// VerdictMerged (every member's ledger merged).
	Verdict string `json:"verdict,omitempty"`
	// ConsumedElsewhere counts rows produced here and not delivered here
	// (a partial verdict); ForeignConsumed rows delivered here that
	// another process produced.
	ConsumedElsewhere int64 `json:"consumed_elsewhere,omitempty"`
	ForeignConsumed   int64 `json:"consumed_from_elsewhere,omitempty"`
	// Origin and Run identify this process in a shared stream's rows;
	// OriginShared counts rows delivered here from another process that
	// drew the same origin (told apart by the run id).
	Origin       int    `json:"origin,omitempty"`
	Run          uint32 `json:"run,omitempty"`
	OriginShared int64  `json:"origin_shared_rows,omitempty"`
	// LogErrors counts reads that found rows missing from (or repeated
	// in) a partition's log, LogError the latest (an adapter's integrity
	// error: rows removed or expired before they were read).
	LogErrors int64  `json:"log_errors,omitempty"`
	LogError  string `json:"log_error,omitempty"`
	// Ledger is this process's account of a shared stream's rows: what
	// `benchtop verdict` (and a fleet's coordinator) merges.
	Ledger *Ledger `json:"ledger,omitempty"`

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
	Partitions int `json:"partitions"`
	// Threads are the producer threads; in a fleet all the agents', with
	// Agents and the threads per agent (the most any agent ran).
	Threads          int     `json:"threads"`
	Agents           int     `json:"agents,omitempty"`
	ThreadsPerAgent  int     `json:"threads_per_agent,omitempty"`
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
	// of; State is what the best rule made of the row (results/marks:
	// "qualified", "too short", ...), Best the one it chose.
	Intervals int    `json:"intervals"`
	State     string `json:"state,omitempty"`
	Best      bool   `json:"best"`
}

// markScenarios marks the best row by results/marks' rules, the same as the
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

// Verdicts of a Summary.
const (
	VerdictComplete = "complete"
	VerdictPartial  = "partial"
	VerdictMerged   = "merged"
)

// Finish accounts for every row once the consumers have stopped: produced,
// consumed, lost, duplicated and out of order. Lost (when judged here),
// duplicated or out-of-order rows, unknown rows, rows missing from the
// log and an unfinished drain are Problems; a partial verdict is a Note.
func (w *Workload) Finish(_ context.Context) (workload.Final, error) {
	w.ctlMu.Lock()
	started, drainErr := w.started, w.drainErr
	w.ctlMu.Unlock()
	if !started {
		return workload.Final{}, nil
	}
	s := w.Summary()
	problems := s.Problems()
	if drainErr != nil {
		problems = append(problems, "stream: "+drainErr.Error())
	}
	fin := workload.Final{
		Text:     func(out io.Writer) { writeText(out, s) },
		JSONKey:  "stream",
		JSON:     s,
		Problems: problems,
		Notes:    s.Notes(),
	}
	if s.Verdict != VerdictPartial { // one member of a shared stream cannot judge
		lost := s.Lost
		fin.Lost = &lost
	}
	return fin, nil
}

// Problems are what the summary finds wrong, one line each: rows lost
// (unless the verdict is partial: other processes may hold them),
// duplicated, out of order or unknown, and reads that found rows missing
// from the log.
func (s *Summary) Problems() []string {
	var problems []string
	if s.Lost > 0 && s.Verdict != VerdictPartial {
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
	if s.LogErrors > 0 {
		problems = append(problems, fmt.Sprintf("stream: %d reads found rows missing from the stream (removed or expired before they were read; the last: %s)", s.LogErrors, s.LogError))
	}
	return problems
}

// Notes are what the summary says without failing: a partial verdict,
// another process with this one's origin.
func (s *Summary) Notes() []string {
	var notes []string
	if s.Verdict == VerdictPartial {
		notes = append(notes, fmt.Sprintf("stream: %s; %d rows produced elsewhere were consumed here; lost rows are judged by merging every member's ledger: benchtop verdict A.json B.json ... (each process's --json)",
			partialText(s.ConsumedElsewhere), s.ForeignConsumed))
	}
	if s.OriginShared > 0 {
		notes = append(notes, fmt.Sprintf("stream: origin %d was drawn by another process of the group too (%d of its rows were delivered here); the run ids tell the two apart, so the verdicts hold (stream.origin sets distinct origins)", s.Origin, s.OriginShared))
	}
	return notes
}

// partialText is the verdict line of a partial verdict.
func partialText(elsewhere int64) string {
	return fmt.Sprintf("partial: %d rows produced here were consumed elsewhere", elsewhere)
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
	s.LogErrors = w.integrity.Load()
	if e := w.lastIntegrity.Load(); e != nil {
		s.LogError = *e
	}
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
	switch s.Verdict {
	case VerdictPartial:
		line("RowsVerdict", partialText(s.ConsumedElsewhere))
		line("RowsConsumedFromElsewhere", s.ForeignConsumed)
	case VerdictComplete, VerdictMerged:
		line("RowsVerdict", s.Verdict)
	}
	if s.Origin > 0 {
		line("Origin", s.Origin)
	}
	if s.OriginShared > 0 {
		line("RowsOfAnotherProcessWithThisOrigin", s.OriginShared)
	}
	if s.Verdict != VerdictPartial {
		line("RowsLost", s.Lost) // a partial verdict cannot judge it
	}
	line("RowsDuplicated", s.Duplicated)
	if s.Verdict != "" {
		line("RowsRedelivered", s.Redelivered)
	}
	line("RowsOutOfOrder", s.OutOfOrder)
	if s.Unknown > 0 {
		line("RowsUnknown", s.Unknown)
	}
	line("FailedWrites", s.FailedWrites)
	if s.ReadErrors > 0 {
		line("ReadErrors", s.ReadErrors)
	}
	if s.LogErrors > 0 {
		line("LogErrors", s.LogErrors)
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
	// In a fleet: the threads per agent, then all the agents'.
	fleet := rows[0].Agents > 0
	threads := func(r Scenario) string {
		if fleet {
			return fmt.Sprintf("%d×%d=%d", r.Agents, r.ThreadsPerAgent, r.Threads)
		}
		return strconv.Itoa(r.Threads)
	}
	thHead, thW := "threads", 7
	if fleet {
		thHead, thW = "agents×threads", 14
	}
	fmt.Fprintf(out, "%10s %*s %8s %14s %14s %9s %8s %9s %9s %11s %5s %7s  %s\n",
		"partitions", thW, thHead, "duration", "rows/s stable", "rows/s peak", "ms/1000", "MB/s", "e2e p50", "e2e p99", "lag max", "cpu", "rss MB", "")
	for _, r := range rows {
		mark := ""
		if r.Best {
			mark = "★ best"
		} else if r.State != "" && r.State != string(marks.Qualified) {
			mark = "(" + r.State + ")"
		}
		fmt.Fprintf(out, "%10d %*s %8s %14s %14s %9.3f %8.1f %9s %9s %11s %5.2f %7.0f  %s\n",
			r.Partitions, thW, threads(r), (time.Duration(r.DurationS * float64(time.Second))).Round(100*time.Millisecond).String(),
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
