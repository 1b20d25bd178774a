package timeseries

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"benchtop/htmlreport/page"
	"benchtop/rundata/units"
)

func init() { page.Register(JSONKey, htmlSection) }

// htmlSection is the time-series workload's section of the HTML report,
// from the JSON summary's member: the ingest check, the table per number
// of active writers and its charts, the headline's records/s and MB/s,
// and the check and backpressure for "What limited this run".
func htmlSection(member json.RawMessage) (*page.Section, error) {
	var ts Result
	if err := json.Unmarshal(member, &ts); err != nil {
		return nil, fmt.Errorf("timeseries: %w", err)
	}
	r := &page.Section{ID: "timeseries", Title: "Time-series ingest"}
	r.Headline = []page.Figure{{Label: "records/s", Value: page.Rate(ts.RecordsPerSec)},
		{Label: "MB/s", Value: strconv.FormatFloat(ts.MBPerSec, 'f', 2, 64)}}
	stored := "not counted"
	if ts.Stored >= 0 {
		stored = units.Count(ts.Stored)
	}
	r.Facts = []page.Fact{
		{Label: "Loss check", Values: []string{ts.Check}},
		{Label: "Records written / stored", Values: []string{units.Count(ts.Written) + " / " + stored}},
		{Label: "Records failed", Values: []string{units.Count(ts.Failed)}},
		{Label: "Batches (full / flush interval / final)", Values: []string{units.Count(ts.BatchesFull) + " / " + units.Count(ts.BatchesFlushed) + " / " + units.Count(ts.BatchesFinal)}},
		{Label: "Batch size / flush interval / in flight", Values: []string{strconv.Itoa(ts.BatchSize) + " / " + strconv.FormatFloat(ts.FlushIntervalMS, 'f', -1, 64) + " ms / " + strconv.Itoa(ts.InFlight)}},
		{Label: "Backpressure", Values: []string{strconv.FormatFloat(ts.Backpressure*100, 'f', 1, 64) + " %"}},
	}
	t := &page.Table{ID: "timeseries", Caption: "Records and MB acknowledged per number of active writers (the first interval after a change left out)",
		Columns: []string{"writers", "duration", "records/s", "MB/s", "backpressure", "batches/s", "write p50", "write p95", "write p99", "errors"}}
	recs := page.Series{Name: "records/s", Color: page.ColBlue}
	mb := page.Series{Name: "MB/s", Color: page.ColGreen}
	for _, row := range ts.ByParallelism {
		t.Rows = append(t.Rows, page.TRow{Cells: []page.Cell{
			page.NumCell(strconv.Itoa(row.Writers), "writers", float64(row.Writers)),
			page.NumCell(page.Seconds(row.Seconds), "duration_s", row.Seconds),
			page.NumCell(page.Rate(row.RecordsPerSec), "records_per_sec", row.RecordsPerSec),
			page.NumCell(strconv.FormatFloat(row.MBPerSec, 'f', 2, 64), "mb_per_sec", row.MBPerSec),
			page.NumCell(strconv.FormatFloat(row.Backpressure*100, 'f', 0, 64)+" %", "backpressure", row.Backpressure),
			page.NumCell(strconv.FormatFloat(row.BatchesPerSec, 'f', 1, 64), "batches_per_sec", row.BatchesPerSec),
			page.NumCell(page.US(float64(row.Write.P50)), "write_latency_us.p50", float64(row.Write.P50)),
			page.NumCell(page.US(float64(row.Write.P95)), "write_latency_us.p95", float64(row.Write.P95)),
			page.NumCell(page.US(float64(row.Write.P99)), "write_latency_us.p99", float64(row.Write.P99)),
			page.NumCell(units.Count(row.Errors), "errors", float64(row.Errors)),
		}})
		recs.Points = append(recs.Points, page.XY{X: float64(row.Writers), Y: row.RecordsPerSec})
		mb.Points = append(mb.Points, page.XY{X: float64(row.Writers), Y: row.MBPerSec})
	}
	if len(t.Rows) > 0 {
		r.Table = t
	}
	if len(ts.ByParallelism) > 1 {
		page.SortXY(recs.Points)
		page.SortXY(mb.Points)
		r.Charts = []*page.Chart{
			{ID: "ts-records", Title: "Records/s against parallelism", XLabel: "active writers", YLabel: "records/s", Points: true, Series: []page.Series{recs}},
			{ID: "ts-mb", Title: "MB/s against parallelism", XLabel: "active writers", YLabel: "MB/s", Points: true, Series: []page.Series{mb}},
		}
	}
	if !strings.HasPrefix(ts.Check, "ok") && !strings.HasPrefix(ts.Check, "skipped") {
		r.Findings = append(r.Findings, page.Finding{Signal: "check", Text: fmt.Sprintf("The ingest check says %q: %s written, %d stored.", ts.Check, units.Count(ts.Written), ts.Stored)})
	}
	if ts.Backpressure > 0.5 {
		r.Findings = append(r.Findings, page.Finding{Signal: "backpressure", Text: fmt.Sprintf("Writers waited for the server %.0f %% of the time (backpressure): the server set the ingest rate.", 100*ts.Backpressure)})
	}
	return r, nil
}
