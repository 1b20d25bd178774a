package timeseries

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/rundata/units"
	"benchtop/workload"
)

// JSONKey is the member of the JSON summary that holds Result.
const JSONKey = "timeseries"

// Result is the closing section of a run: the text report's [TIMESERIES]
// lines and table, and the JSON summary's "timeseries" member.
type Result struct {
	// Written counts records (points) the server acknowledged; Stored the
	// points counted back (-1 when not counted); Check says how they
	// compare: "ok", "mismatch", "skipped: ..." or "error: ...".
	Written int64  `json:"written"`
	Stored  int64  `json:"stored"`
	Check   string `json:"check"`
	// Failed counts records of batches that failed for good.
	Failed        int64 `json:"failed"`
	FailedBatches int64 `json:"failed_batches"`
	// Acknowledged batches by why they were sent, write attempts and
	// retries.
	Batches        int64 `json:"batches"`
	BatchesFull    int64 `json:"batches_full"`
	BatchesFlushed int64 `json:"batches_flush_interval"`
	BatchesFinal   int64 `json:"batches_final"`
	Attempts       int64 `json:"write_attempts"`
	Retries        int64 `json:"retries"`
	// Bytes of line protocol acknowledged (before any gzip).
	Bytes          int64   `json:"bytes"`
	BytesPerRecord float64 `json:"bytes_per_record"`
	// The last phase: its length up to the end of its final sends, its
	// average rates and backpressure.
	Phase         string  `json:"phase"`
	PhaseSeconds  float64 `json:"phase_seconds"`
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	Backpressure  float64 `json:"backpressure"`
	// Batch write latency of successful attempts over the run.
	WriteLatencyUS Latency `json:"write_latency_us"`
	// Failed attempts by HTTP status and by error kind.
	HTTPStatus   map[string]int64 `json:"http_errors_by_status,omitempty"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind,omitempty"`
	// ByParallelism is the table of rates by number of active writers.
	ByParallelism []Row `json:"by_parallelism"`
	// The configuration.
	Measurement     string  `json:"measurement"`
	RunID           string  `json:"run_id,omitempty"`
	Series          int64   `json:"series"`
	BatchSize       int     `json:"batch_size"`
	FlushIntervalMS float64 `json:"flush_interval_ms"`
	InFlight        int     `json:"inflight"`
}

// Latency is a latency summary in microseconds.
type Latency struct {
	Count int64 `json:"count"`
	P50   int64 `json:"p50"`
	P95   int64 `json:"p95"`
	P99   int64 `json:"p99"`
	Max   int64 `json:"max"`
}

func latencyOf(h *hdr.Histogram) Latency {
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	return Latency{Count: h.TotalCount(), P50: h.ValueAtQuantile(50), P95: h.ValueAtQuantile(95), P99: h.ValueAtQuantile(99), Max: h.Max()}
}

// Row is one row of the parallelism table: the intervals during which the
// same number of writers was active, the first interval after a change
// left out when there are others. A row of that one interval only (writers
// still starting or already exiting when it was sampled) is left out when
// other rows have more, or when it is short.
type Row struct {
	Writers       int     `json:"writers"`
	Seconds       float64 `json:"duration_s"`
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	Backpressure  float64 `json:"backpressure"`
	BatchesPerSec float64 `json:"batches_per_sec"`
	Write         Latency `json:"write_latency_us"`
	Errors        int64   `json:"errors"`
}

// Finish implements workload.Finisher: it sends anything still buffered,
// counts the points back and compares them with what was acknowledged.
// Fewer stored than acknowledged, more stored than sent, records that
// could not be written and a count that fails are Problems.
func (w *Workload) Finish(ctx context.Context) (workload.Final, error) {
	_ = w.drain(ctx) // normally a no-op: each phase's Stop drained it
	res, problems := w.result(ctx)
	return workload.Final{
		Text:     res.WriteText,
		JSONKey:  JSONKey,
		JSON:     res,
		Problems: problems,
	}, nil
}

// result assembles the Result and runs the final check.
func (w *Workload) result(ctx context.Context) (*Result, []string) {
	r := &Result{
		Written:         w.acked.Load(),
		Stored:          -1,
		Failed:          w.failed.Load(),
		FailedBatches:   w.failedBatches.Load(),
		BatchesFull:     w.batches[reasonFull].Load(),
		BatchesFlushed:  w.batches[reasonAged].Load(),
		BatchesFinal:    w.batches[reasonFinal].Load(),
		Attempts:        w.attempts.Load(),
		Retries:         w.retries.Load(),
		Bytes:           w.ackedBytes.Load(),
		Measurement:     w.cfg.Measurement,
		Series:          w.gen.series,
		BatchSize:       w.cfg.BatchSize,
		FlushIntervalMS: float64(w.cfg.FlushInterval) / 1e6,
		InFlight:        w.cfg.InFlight,
	}
	if w.cfg.RunTag {
		r.RunID = w.runID
	}
	r.Batches = r.BatchesFull + r.BatchesFlushed + r.BatchesFinal
	if r.Written > 0 {
		r.BytesPerRecord = float64(r.Bytes) / float64(r.Written)
	}

	w.stats.fill(r, w.now())
	problems := w.check(ctx, r)
	return r, problems
}

// fill adds the measured figures to the result: phase rates, write
// latency, statuses and kinds of errors, the table by parallelism.
func (s *stats) fill(r *Result, now int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runHist.Merge(s.ivlHist) // attempts after the last sample
	s.ivlHist.Reset()
	r.WriteLatencyUS = latencyOf(s.runHist)
	r.Phase = s.phase
	end, acked, bytes := s.phaseEnd, s.ackedEnd, s.bytesEnd
	if end == 0 {
		end, acked, bytes = now, r.Written, r.Bytes
	}
	if el := end - s.phaseStart; el > 0 {
		r.PhaseSeconds = secs(el)
		r.RecordsPerSec = float64(acked-s.acked0) / secs(el)
		r.MBPerSec = float64(bytes-s.bytes0) / 1e6 / secs(el)
	}
	if s.phaseTotal.writerNs > 0 {
		r.Backpressure = float64(s.phaseTotal.blocked) / float64(s.phaseTotal.writerNs)
	}
	for st, n := range s.status {
		if r.HTTPStatus == nil {
			r.HTTPStatus = map[string]int64{}
		}
		r.HTTPStatus[strconv.Itoa(st)] = n
	}
	for k, n := range s.kinds {
		if r.ErrorsByKind == nil {
			r.ErrorsByKind = map[string]int64{}
		}
		r.ErrorsByKind[k] = n
	}
	r.ByParallelism = []Row{}
	steadyRows := false
	for _, rw := range s.rows {
		steadyRows = steadyRows || rw.steady.ns > 0
	}
	for _, rw := range s.rows {
		p := rw.figures()
		if p.ns <= 0 || (rw.steady.ns == 0 && (steadyRows || p.ns < s.longest/2)) {
			// Nothing, or a single interval around a change (writers
			// still starting, or exiting at the end) while other rows
			// have steady intervals, or a short one.
			continue
		}
		row := Row{
			Writers:       rw.writers,
			Seconds:       secs(p.ns),
			RecordsPerSec: float64(p.records) / secs(p.ns),
			MBPerSec:      float64(p.bytes) / 1e6 / secs(p.ns),
			BatchesPerSec: float64(p.batches) / secs(p.ns),
			Write:         latencyOf(rw.hist),
			Errors:        p.errors,
		}
		if p.writerNs > 0 {
			row.Backpressure = float64(p.blocked) / float64(p.writerNs)
		}
		r.ByParallelism = append(r.ByParallelism, row)
	}
}

// check compares what was written with what the server stores and
// returns the problems.
func (w *Workload) check(ctx context.Context, r *Result) []string {
	var problems []string
	if r.Failed > 0 {
		problems = append(problems, fmt.Sprintf("timeseries: %d records were not written: %d batches failed for good (see the errors)", r.Failed, r.FailedBatches))
	}
	switch {
	case !w.cfg.Check:
		r.Check = "skipped: timeseries.check=false"
	case w.counter == nil:
		r.Check = "skipped: the adapter cannot count points"
	default:
		stored, err := w.countBack(ctx, r.Written)
		if err != nil {
			r.Check = "error: " + err.Error()
			problems = append(problems, fmt.Sprintf("timeseries: could not count the points back: %v", err))
			break
		}
		r.Stored = stored
		where := fmt.Sprintf("measurement %s", w.cfg.Measurement)
		if w.cfg.RunTag {
			where += ", run=" + w.runID
		}
		switch {
		case stored == r.Written:
			r.Check = "ok"
		case stored < r.Written:
			r.Check = "mismatch"
			problems = append(problems, fmt.Sprintf("timeseries: %d of %d acknowledged points are missing: %d stored (%s)", r.Written-stored, r.Written, stored, where))
		case stored > r.Written+r.Failed:
			r.Check = "mismatch"
			problems = append(problems, fmt.Sprintf("timeseries: %d points stored, %d more than were sent (%d acknowledged, %d failed; %s)", stored, stored-r.Written-r.Failed, r.Written, r.Failed, where))
		default:
			// A failed batch may have been applied before its error (a
			// timeout, a lost answer).
			r.Check = fmt.Sprintf("ok: %d points of failed batches were stored anyway", stored-r.Written)
		}
	}
	return problems
}

// countBack counts this run's points, asking again until the count
// reaches want or timeseries.check.timeout has passed (a server may make
// writes visible a little after acknowledging them).
func (w *Workload) countBack(ctx context.Context, want int64) (int64, error) {
	var tags map[string]string
	if w.cfg.RunTag {
		tags = map[string]string{"run": w.runID}
	}
	deadline := time.Now().Add(w.cfg.CheckTimeout)
	for {
		n, err := w.counter.CountPoints(ctx, w.cfg.Measurement, tags)
		if err == nil && !w.cfg.RunTag {
			n -= w.baseline
		}
		if err != nil || n >= want || !time.Now().Before(deadline) {
			return n, err
		}
		select {
		case <-ctx.Done():
			return n, nil
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// WriteText writes the [TIMESERIES] lines and the parallelism table.
func (r *Result) WriteText(out io.Writer) {
	p := func(name string, v any) { fmt.Fprintf(out, "[TIMESERIES], %s, %v\n", name, v) }
	f := func(v float64, prec int) string { return strconv.FormatFloat(v, 'f', prec, 64) }
	p("Written(records)", r.Written)
	if r.Stored >= 0 {
		p("Stored(records)", r.Stored)
	}
	p("Check", r.Check)
	p("Failed(records)", r.Failed)
	p("Bytes", r.Bytes)
	p("BytesPerRecord", f(r.BytesPerRecord, 1))
	p("Throughput(records/sec)", f(r.RecordsPerSec, 1))
	p("Throughput(MB/sec)", f(r.MBPerSec, 3))
	p("Backpressure(%)", f(r.Backpressure*100, 1))
	p("Batches", r.Batches)
	p("Batches(full)", r.BatchesFull)
	p("Batches(flush.interval)", r.BatchesFlushed)
	p("Batches(final)", r.BatchesFinal)
	if r.Retries > 0 || r.FailedBatches > 0 {
		p("Retries", r.Retries)
		p("FailedBatches", r.FailedBatches)
	}
	if l := r.WriteLatencyUS; l.Count > 0 {
		p("WriteLatency50thPercentile(us)", l.P50)
		p("WriteLatency95thPercentile(us)", l.P95)
		p("WriteLatency99thPercentile(us)", l.P99)
		p("WriteLatencyMax(us)", l.Max)
	}
	for _, st := range sortedKeys(r.HTTPStatus) {
		p("HTTP "+st, r.HTTPStatus[st])
	}
	for _, k := range sortedKeys(r.ErrorsByKind) {
		p("Errors("+k+")", r.ErrorsByKind[k])
	}
	if len(r.ByParallelism) == 0 {
		return
	}
	fmt.Fprintf(out, "\n# Time series ingest by parallelism (records and MB acknowledged; the first interval after a change left out)\n")
	fmt.Fprintf(out, "%8s %9s %13s %9s %13s %10s %10s %10s %10s %7s\n",
		"writers", "duration", "records/s", "MB/s", "backpressure", "batches/s", "write p50", "write p95", "write p99", "errors")
	us := func(v int64) string { return roundDur(time.Duration(v) * time.Microsecond).String() }
	for _, row := range r.ByParallelism {
		fmt.Fprintf(out, "%8d %9s %13s %9s %12.0f%% %10s %10s %10s %10s %7d\n",
			row.Writers, (time.Duration(row.Seconds * 1e9)).Round(100*time.Millisecond).String(),
			units.Count(int64(row.RecordsPerSec+0.5)), f(row.MBPerSec, 2), row.Backpressure*100, f(row.BatchesPerSec, 1),
			us(row.Write.P50), us(row.Write.P95), us(row.Write.P99), row.Errors)
	}
}

func sortedKeys(m map[string]int64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
