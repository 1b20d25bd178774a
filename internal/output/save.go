package output

// The s key of the live screen: the report so far, saved into the
// current directory while the run goes on.

import (
	"errors"
	"fmt"
	"io"
	"time"

	"benchtop/engine"
	"benchtop/fleet"
	"benchtop/results/report"
	"benchtop/rundata"
)

// SaveRun writes the report of r so far (YCSB text and JSON summary, and
// the page with --html) into the current directory and returns what it
// wrote.
func SaveRun(r *engine.Runner, e *Exports) (string, error) {
	info := r.Info()
	return save(r.Current(), info, e, func(w io.Writer, results []*engine.PhaseResult) {
		report.WriteText(w, results, info)
	}, func(results []*engine.PhaseResult) *Summary {
		return NewSummary(results, info, e.Baseline()).WithCapacity(e.capacityNow())
	})
}

// SaveFleet is SaveRun for a fleet run: the merged report so far, with
// the agents.
func SaveFleet(c *fleet.Coordinator, e *Exports) (string, error) {
	info := c.Info()
	return save(c.Current(), info, e, func(w io.Writer, results []*engine.PhaseResult) {
		report.WriteText(w, results, info)
		WriteFleetText(w, c)
	}, func(results []*engine.PhaseResult) *Summary {
		s := NewSummary(results, info, e.Baseline()).WithCapacity(e.capacityNow())
		s.FleetMembers = FleetOf(c)
		return s
	})
}

// save writes results as SaveRun does, the text and the JSON summary
// made by the functions given.
func save(results []*engine.PhaseResult, info engine.Info, e *Exports,
	text func(io.Writer, []*engine.PhaseResult), doc func([]*engine.PhaseResult) *Summary) (string, error) {
	if len(results) == 0 {
		return "", errors.New("nothing measured yet")
	}
	// [screen] A live save is not an interrupted run: the run goes on.
	live := *results[len(results)-1]
	live.Interrupted = false
	results[len(results)-1] = &live
	base := "benchtop-report-" + time.Now().Format("20060102-150405")
	var g *Guard
	if e != nil {
		g = e.guard
	}
	for _, ext := range []string{".txt", ".json", ".html"} {
		if err := g.Check("save", base+ext); err != nil {
			return "", fmt.Errorf("save report: %w", err)
		}
	}
	d := doc(results)
	err := writeFileAtomic(base+".txt", func(w io.Writer) error {
		text(w, results)
		WriteCapacity(w, d.Capacity)
		return nil
	})
	if err == nil {
		err = writeFileAtomic(base+".json", d.Write)
	}
	if err != nil {
		return "", fmt.Errorf("save report: %w", err)
	}
	if e != nil && e.html != nil {
		err := writeFileAtomic(base+".html", func(w io.Writer) error { return e.html.render(w, results, info, d) })
		if err != nil {
			return "", fmt.Errorf("save report: %w", err)
		}
		return base + ".txt, .json and .html", nil
	}
	return base + ".txt and .json", nil
}

// capacityNow is the capacity search's report so far, nil without one.
func (e *Exports) capacityNow() *rundata.Capacity {
	if e == nil || e.capacity == nil {
		return nil
	}
	return e.capacity()
}
