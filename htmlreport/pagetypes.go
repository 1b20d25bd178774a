package htmlreport

import (
	"encoding/json"

	"benchtop/htmlreport/page"
)

// The page's model types live in htmlreport/page, a leaf that the
// workloads' sections import too; these are their names here.
type (
	Fact    = page.Fact
	Figure  = page.Figure
	Finding = page.Finding
	Table   = page.Table
	TRow    = page.TRow
	Cell    = page.Cell
	Chart   = page.Chart
	Series  = page.Series
	XY      = page.XY
	Mark    = page.Mark
)

// sectionsOf makes the sections of the workload members a JSON summary
// holds (members by key), in page.Keys' order.
func sectionsOf(members map[string]json.RawMessage) ([]*page.Section, error) {
	var out []*page.Section
	for _, k := range page.Keys() {
		raw, ok := members[k]
		if !ok || len(raw) == 0 || string(raw) == "null" {
			continue
		}
		s, err := page.Of(k)(raw)
		if err != nil {
			return nil, err
		}
		if s != nil {
			out = append(out, s)
		}
	}
	return out, nil
}
