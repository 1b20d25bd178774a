// Package page is the HTML report's page model (facts, figures, tables,
// charts) and the registry of the sections a workload adds to it: a leaf
// that imports only the standard library and benchtop's units, so that a
// workload draws its section without importing the report, the runner or
// another workload.
package page

import (
	"encoding/json"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"benchtop/rundata/units"
)

// Fact is one line of a header: a label and one value per run.
type Fact struct {
	Label  string
	Values []string
}

// Figure is one headline number.
type Figure struct {
	Label, Value, Note string
}

// Finding is one measured signal of what limited the run, with its figure.
type Finding struct {
	Signal string // cpu, nic, errors, target, knee, stream, check, none
	Text   string
}

// Table is a table of the page. Cells keep the figure they show in a
// machine-readable form (Value), written as data-value in the page.
type Table struct {
	ID      string
	Caption string
	Columns []string
	Rows    []TRow
}

// TRow is one row; Class is best, knee, baseline, total or "".
type TRow struct {
	Class string
	Cells []Cell
}

// Cell is one table cell: the text shown and, for figures, the JSON
// member it comes from and its value there.
type Cell struct {
	Text  string
	Key   string `json:",omitempty"`
	Value string `json:",omitempty"`
	Num   bool   `json:",omitempty"`
}

// Chart is one chart: its series and marks, drawn by gonum/plot.
type Chart struct {
	ID, Title, Caption string
	XLabel, YLabel     string
	// XQuantile draws x as 1/(1-q) on a log axis labelled in percentiles.
	XQuantile bool
	// XTime says x is seconds since a start: ticks at whole steps of
	// time, read as a clock beyond two minutes (timeaxis.go).
	XTime bool
	// LogY draws y on a log axis (a latency spectrum's long tail).
	LogY bool
	// Half is drawn two to a row on the page.
	Half bool `json:"-"`
	// YUS says y is a latency in microseconds: ticks read 500µs, 1.5ms.
	YUS bool
	// XCategories draws points with lines over a few discrete values.
	Points bool
	Series []Series
	// Marks are vertical lines on the x axis (changes, marks).
	Marks []Mark
	// Levels are horizontal reference lines (90 % CPU, link speed).
	Levels []Mark
	SVG    template.HTML `json:"-"`
}

// Series is one line of a chart.
type Series struct {
	Name   string
	Color  int  // index into the palette
	Dashed bool // intended latency, baseline
	Faint  bool
	// Scatter draws the points alone, with no line between them.
	Scatter bool `json:",omitempty"`
	Points  []XY
}

// XY is one point.
type XY struct{ X, Y float64 }

// Mark is a labelled line at X (vertical) or Y (horizontal).
type Mark struct {
	At    float64
	Label string
}

// Palette indexes (see htmlreport's charts.go).
const (
	ColBlue = iota
	ColVermillion
	ColGreen
	ColOrange
	ColPurple
	ColSky
	ColGrey
)

// Section is a workload's section of the page, made from its member of
// a JSON summary: facts, one table, charts, the figures it adds to the
// headline, and what it adds to "What limited this run".
type Section struct {
	// ID is the section's anchor, Title its heading.
	ID, Title string
	Facts     []Fact
	Table     *Table
	Charts    []*Chart
	// Headline are figures added to the top row.
	Headline []Figure
	// Findings are measured signals of what limited the run; Calm the
	// signals checked that did not fire ("the stream lost nothing").
	Findings []Finding
	Calm     []string
	// AdviceBelowNIC is advice that holds unless the client's NIC was
	// found to limit the run.
	AdviceBelowNIC []string
}

// SectionFunc makes a workload's section from its member of a JSON
// summary (as encoded); nil when it has nothing to show.
type SectionFunc func(member json.RawMessage) (*Section, error)

var (
	mu       sync.RWMutex
	sections = map[string]SectionFunc{}
)

// Register adds the section of the JSON summary's member key (a
// workload's Final.JSONKey); it panics on a duplicate key.
func Register(key string, f SectionFunc) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := sections[key]; dup {
		panic("page: duplicate section " + key)
	}
	sections[key] = f
}

// Keys are the registered members' keys, sorted: the order of the
// sections on the page.
func Keys() []string {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]string, 0, len(sections))
	for k := range sections {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Of is the section function of key (nil: none).
func Of(key string) SectionFunc {
	mu.RLock()
	defer mu.RUnlock()
	return sections[key]
}

// Formatting: figures as a reader wants them, values as the JSON has them.

// Rate is a rate rounded to a whole count: "12,345".
func Rate(v float64) string { return units.Count(int64(math.Round(v))) }

// US is a latency in µs, compactly: "850ns", "11.0ms".
func US(us float64) string { return units.Duration(time.Duration(math.Round(us * 1e3))) }

// Seconds is a length of time: "12.5 s", "3m20s".
func Seconds(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d < time.Minute:
		return strconv.FormatFloat(s, 'f', 1, 64) + " s"
	case d < time.Hour:
		return d.Round(time.Second).String()
	}
	return d.Round(time.Minute).String()
}

// OrDash is s, or "—" when it is blank.
func OrDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// NumCell is a figure's cell: its text and its JSON member and value.
func NumCell(text, key string, v float64) Cell {
	return Cell{Text: text, Key: key, Value: strconv.FormatFloat(v, 'g', -1, 64), Num: true}
}

// TextCell is a cell of text.
func TextCell(t string) Cell { return Cell{Text: t} }

// SortXY sorts points by x.
func SortXY(p []XY) { sort.Slice(p, func(i, j int) bool { return p[i].X < p[j].X }) }
