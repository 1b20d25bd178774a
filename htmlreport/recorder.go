package htmlreport

import (
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/results/report"
)

// Recorder keeps a live run's series for its page: one Row per snapshot
// and one Interval per histogram, taken from the run as it goes (no
// export is written and read back). The figures are the ones the
// --timeseries CSV and the --hdr-log file hold (three decimals, times as
// the interval log gives them back), so that the page it makes at the end
// (or on a save) is the one `benchtop report` makes later from those
// files and the JSON summary.
type Recorder struct {
	mu     sync.Mutex
	baseMs int64 // the interval log's base time: the run's start, whole seconds
	rows   []Row
	ivls   []recorded
	err    error
}

// recorded is one interval's histogram of one operation type and
// variant. A histogram at the engine's range takes 270 KB, so it is kept
// in HdrHistogram's compressed encoding (as the log's lines and the
// fleet's wire carry it) until the page is made.
type recorded struct {
	op                     string
	load, intended, failed bool
	startMs, endMs         int64 // as the interval log's reader gives them
	data                   []byte
}

// NewRecorder starts recording. start must be the start time given to
// the --hdr-log writer, if any, so that both carry the same times.
func NewRecorder(start time.Time) *Recorder {
	return &Recorder{baseMs: start.Unix() * 1000}
}

// Snapshot records one snapshot; it matches engine.Options.OnSnapshot.
func (r *Recorder) Snapshot(s *engine.Snapshot) {
	row := rowOf(s)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows = append(r.rows, row)
}

// Interval records one interval's histograms, the ones --hdr-log writes;
// it matches engine.Options.OnInterval.
func (r *Recorder) Interval(phase engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	startMs, endMs := logTimes(start.UnixMilli(), end.UnixMilli(), r.baseMs)
	var out []recorded
	var err error
	for op := 0; op < len(names) && op < measure.NumOps; op++ {
		for _, v := range []struct {
			variant          int
			intended, failed bool
		}{{measure.OK, false, false}, {measure.OKIntended, true, false}, {measure.Failed, false, true}} {
			h := set.H[measure.Slot(op, v.variant)]
			if h == nil || h.TotalCount() == 0 {
				continue
			}
			data, e := h.Encode(hdr.V2CompressedEncodingCookieBase)
			if e != nil && err == nil {
				err = e
			}
			out = append(out, recorded{op: names[op], load: phase == engine.PhaseLoad, intended: v.intended, failed: v.failed,
				startMs: startMs, endMs: endMs, data: data})
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ivls = append(r.ivls, out...)
	if err != nil && r.err == nil {
		r.err = err
	}
}

// Compare builds the report of the run so far against a baseline run, as
// `benchtop report --compare` does; the names label both runs.
func (r *Recorder) Compare(base *Run, baseName, runName string, results []*engine.PhaseResult, info engine.Info) (*Report, error) {
	run, err := r.Run(results, info)
	if err != nil {
		return nil, err
	}
	return Compare(base, run, baseName, runName), nil
}

// Run is the run so far as `benchtop report` reads it from its exports:
// the results' summary (RunOf) with the recorded series.
func (r *Recorder) Run(results []*engine.PhaseResult, info engine.Info) (*Run, error) {
	run := RunOf(results, info)
	r.mu.Lock()
	rows := append([]Row(nil), r.rows...)
	ivls := append([]recorded(nil), r.ivls...)
	err := r.err
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("html report: recording: %w", err)
	}
	if len(rows) > 0 {
		run.Rows = rows
	}
	t0 := float64(run.Summary.Start.UnixNano()) / 1e9
	run.Intervals = make([]Interval, 0, len(ivls))
	for _, iv := range ivls {
		h, err := hdr.Decode(iv.data)
		if err != nil {
			return nil, fmt.Errorf("html report: %s histogram: %w", iv.op, err)
		}
		run.Intervals = append(run.Intervals, Interval{Op: iv.op, Load: iv.load, Intended: iv.intended, Failed: iv.failed,
			StartS: float64(iv.startMs)/1e3 - t0, EndS: float64(iv.endMs)/1e3 - t0, H: h})
	}
	return run, nil
}

// RunOf is a run as `benchtop report` reads its JSON summary, taken from
// the results: the summary and the workload's closing section (its
// page section, as the JSON member would give it), without the series.
func RunOf(results []*engine.PhaseResult, info engine.Info) *Run {
	run := &Run{Summary: *report.BuildSummary(results, info)}
	n := len(results)
	if n == 0 || results[n-1].Closing == nil || results[n-1].Closing.JSONKey == "" {
		return run
	}
	c := results[n-1].Closing
	if b, err := json.Marshal(c.JSON); err == nil {
		run.Sections, _ = sectionsOf(map[string]json.RawMessage{c.JSONKey: b})
	}
	if len(c.Problems) > 0 {
		run.Problems = append([]string(nil), c.Problems...)
	}
	return run
}

// rowOf is the CSV row --timeseries writes for s, as ReadCSV reads it.
func rowOf(s *engine.Snapshot) Row {
	tot := s.Total.Interval
	var rx, tx float64
	for _, n := range s.Host.NICs {
		rx += n.RxBytesPerSec
		tx += n.TxBytesPerSec
	}
	us := func(d time.Duration) float64 { return csv3(float64(d) / 1e3) }
	row := Row{
		ElapsedS: csv3(s.Elapsed.Seconds()), IntervalS: csv3(s.Interval.Seconds()), Phase: string(s.Phase),
		Threads: s.Threads, Partitions: s.Partitions, Target: csv3(s.Target),
		Ops: int64(float64(tot.Count)), OpsPerSec: csv3(tot.Rate), Errors: int64(float64(tot.Errors)),
		P50US: us(tot.P50), P95US: us(tot.P95), P99US: us(tot.P99), HasLatency: tot.HasLatency(),
		ProcCPU: csv3(s.Host.ProcCPU), RSS: float64(s.Host.ProcRSS), RxBps: csv3(rx), TxBps: csv3(tx),
	}
	if s.Host.Cores != 0 { // an empty column otherwise: not measured
		row.CPU = csv3(s.Host.CPUTotal)
	}
	if !row.HasLatency { // empty columns: nothing succeeded
		row.P50US, row.P95US, row.P99US = 0, 0, 0
	}
	return row
}

// csv3 is x as the CSV holds it: three decimals.
func csv3(x float64) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 3, 64), 64)
	if err != nil || v == 0 { // -0 is written 0
		return 0
	}
	return v
}

// logTimes are an interval's start and end, in ms since the epoch, as
// hdrhistogram-go's log reader gives them back from the line its writer
// wrote: seconds since the base time with six decimals, to which the
// reader adds the base's whole seconds before it truncates to a ms.
func logTimes(startMs, endMs, baseMs int64) (int64, int64) {
	decimal6 := func(x float64) float64 {
		v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 6, 64), 64)
		return v
	}
	start := (float64(startMs) - float64(baseMs)) / 1000.0
	end := (float64(endMs) - float64(baseMs)) / 1000.0
	abs := decimal6(start) + float64(baseMs/1000)
	return int64(abs * 1000.0), int64((abs + decimal6(end-start)) * 1000.0)
}
