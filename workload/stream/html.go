package stream

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"

	"benchtop/htmlreport/page"
	"benchtop/rundata/units"
)

func init() { page.Register("stream", htmlSection) }

// htmlSection is the stream's section of the HTML report, from the JSON
// summary's "stream" member: the loss check, the table of scenarios and
// its charts, the headline's rows/s and MB/s, and what the partitions did
// for "What limited this run".
func htmlSection(member json.RawMessage) (*page.Section, error) {
	var st Summary
	if err := json.Unmarshal(member, &st); err != nil {
		return nil, fmt.Errorf("stream: %w", err)
	}
	r := &page.Section{ID: "stream", Title: "Partitioned stream"}
	r.Headline = []page.Figure{{Label: "rows/s consumed", Value: page.Rate(st.StableRowsPerSec), Note: "stable (median)"},
		{Label: "MB/s consumed", Value: strconv.FormatFloat(st.StableMBPerSec, 'f', 1, 64)}}
	check := "passed: nothing lost, duplicated or out of order"
	lost := units.Count(st.Lost)
	if st.Verdict == VerdictPartial {
		// Another process of the group holds the rest of the rows.
		check = "partial: " + units.Count(st.ConsumedElsewhere) + " rows produced here were consumed elsewhere; nothing duplicated or out of order here (benchtop verdict merges the group's summaries)"
		lost = "— (partial)"
	}
	if len(st.Problems()) > 0 || !st.Drained {
		check = "FAILED"
	}
	r.Facts = []page.Fact{
		{Label: "Loss check", Values: []string{check}},
		{Label: "Rows produced / consumed", Values: []string{units.Count(st.Produced) + " / " + units.Count(st.Consumed)}},
		{Label: "Lost / duplicated / out of order", Values: []string{lost + " / " + units.Count(st.Duplicated) + " / " + units.Count(st.OutOfOrder)}},
		{Label: "Drained at the end", Values: []string{strconv.FormatBool(st.Drained) + " (" + strconv.FormatInt(st.DrainMS, 10) + " ms)"}},
		{Label: "Row size / batch", Values: []string{strconv.Itoa(st.RowSize) + " B / " + strconv.Itoa(st.BatchSize)}},
		{Label: "Stream", Values: []string{page.OrDash(st.Stream)}},
	}
	thHead := "threads"
	if len(st.Scenarios) > 0 && st.Scenarios[0].Agents > 0 {
		thHead = "agents × threads"
	}
	t := &page.Table{ID: "stream", Caption: "Rows consumed per partitions and producer threads held (stable = median of the intervals; transitions left out)",
		Columns: []string{"partitions", thHead, "duration", "rows/s stable", "rows/s peak", "ms per 1,000 rows", "MB/s", "e2e p50", "e2e p99", "lag max", "client CPU (cores)", ""}}
	rows := page.Series{Name: "rows/s (stable)", Color: page.ColBlue}
	mb := page.Series{Name: "MB/s", Color: page.ColGreen}
	for _, sc := range st.Scenarios {
		mark, class := "", ""
		if sc.Best {
			mark, class = "★ best", "best"
		} else if sc.State != "" && sc.State != "qualified" {
			mark = "(" + sc.State + ")" // not judged, and why: the table says so
		}
		t.Rows = append(t.Rows, page.TRow{Class: class, Cells: []page.Cell{
			page.NumCell(strconv.Itoa(sc.Partitions), "partitions", float64(sc.Partitions)),
			page.NumCell(threadsText(sc), "threads", float64(sc.Threads)),
			page.NumCell(page.Seconds(sc.DurationS), "duration_s", sc.DurationS),
			page.NumCell(page.Rate(sc.StableRowsPerSec), "rows_per_sec_stable", sc.StableRowsPerSec),
			page.NumCell(page.Rate(sc.PeakRowsPerSec), "rows_per_sec_peak", sc.PeakRowsPerSec),
			page.NumCell(strconv.FormatFloat(sc.MsPer1000Rows, 'f', 3, 64), "ms_per_1000_rows", sc.MsPer1000Rows),
			page.NumCell(strconv.FormatFloat(sc.StableMBPerSec, 'f', 1, 64), "mb_per_sec", sc.StableMBPerSec),
			page.NumCell(page.US(sc.E2E.P50), "e2e_us.p50", sc.E2E.P50),
			page.NumCell(page.US(sc.E2E.P99), "e2e_us.p99", sc.E2E.P99),
			page.NumCell(units.Count(sc.MaxLag), "lag_max", float64(sc.MaxLag)),
			page.NumCell(strconv.FormatFloat(sc.CPUCores, 'f', 2, 64), "cpu_cores", sc.CPUCores),
			page.TextCell(mark),
		}})
		rows.Points = append(rows.Points, page.XY{X: float64(sc.Partitions), Y: sc.StableRowsPerSec})
		mb.Points = append(mb.Points, page.XY{X: float64(sc.Partitions), Y: sc.StableMBPerSec})
	}
	if len(t.Rows) > 0 {
		r.Table = t
	}
	if len(st.Scenarios) > 1 {
		page.SortXY(rows.Points)
		page.SortXY(mb.Points)
		r.Charts = []*page.Chart{
			{ID: "stream-rows", Title: "Rows/s consumed against partitions", XLabel: "partitions", YLabel: "rows/s", Points: true, Series: []page.Series{rows},
				Caption: "Stable (median) rows per second consumed, one point per scenario."},
			{ID: "stream-mb", Title: "MB/s consumed against partitions", XLabel: "partitions", YLabel: "MB/s", Points: true, Series: []page.Series{mb},
				Caption: "The same scenarios in MB/s (1 Gbit/s is 125 MB/s)."},
		}
	}
	htmlLimits(r, &st)
	return r, nil
}

// threadsText is a scenario's producer threads: in a fleet, the agents
// times the threads per agent, and their product.
func threadsText(sc Scenario) string {
	if sc.Agents > 0 {
		return strconv.Itoa(sc.Agents) + " × " + strconv.Itoa(sc.ThreadsPerAgent) + " = " + strconv.Itoa(sc.Threads)
	}
	return strconv.Itoa(sc.Threads)
}

// htmlLimits adds to "What limited this run": what more partitions did,
// the best scenario and the loss check.
func htmlLimits(r *page.Section, st *Summary) {
	find := func(signal, text string) { r.Findings = append(r.Findings, page.Finding{Signal: signal, Text: text}) }
	sc := append(st.Scenarios[:0:0], st.Scenarios...)
	sort.SliceStable(sc, func(i, j int) bool { return sc[i].Partitions < sc[j].Partitions })
	if len(sc) >= 2 && sc[0].Partitions != sc[len(sc)-1].Partitions {
		lo, hi := sc[0], sc[len(sc)-1]
		ratio := hi.StableRowsPerSec / math.Max(lo.StableRowsPerSec, 1)
		find("stream", fmt.Sprintf("From %d to %d partitions, stable rows/s went from %s to %s (×%.2f).", lo.Partitions, hi.Partitions, page.Rate(lo.StableRowsPerSec), page.Rate(hi.StableRowsPerSec), ratio))
		if ratio > 1.1 {
			r.AdviceBelowNIC = append(r.AdviceBelowNIC, "Below the NIC limit, more partitions raised throughput: more partitions (and consumers) are the lever here.")
		} else {
			r.AdviceBelowNIC = append(r.AdviceBelowNIC, "More partitions did not raise throughput: the limit is elsewhere (client CPU, the server, the producers).")
		}
	}
	if st.BestNote != "" {
		find("best", "Stream table: "+st.BestNote+".")
	}
	if st.Lost > 0 || st.Duplicated > 0 || st.OutOfOrder > 0 || st.Unknown > 0 || !st.Drained {
		find("check", fmt.Sprintf("The stream's check failed: %s lost, %s duplicated, %s out of order, drained %v.", units.Count(st.Lost), units.Count(st.Duplicated), units.Count(st.OutOfOrder), st.Drained))
	} else {
		r.Calm = append(r.Calm, fmt.Sprintf("the stream lost, duplicated and reordered nothing (%s rows)", units.Count(st.Consumed)))
	}
}
