package tui

import (
	"strings"

	"benchtop/engine"
	"benchtop/results/report"
	"benchtop/tui/format"
)

// This file reads what went wrong in the last interval out of a snapshot,
// for the status line (status.go): the errors by kind, the most frequent
// kind and its latest cause, or a stall with no error to show.

// errorBurst describes the errors of the last interval by kind.
func errorBurst(s *engine.Snapshot) string {
	if s == nil {
		return ""
	}
	var text string
	n := s.Total.Interval.Errors
	kinds := s.Total.Interval.ErrorsByKind
	if len(kinds) == 0 {
		kinds = map[string]int64{}
		n = 0
		for _, op := range s.Ops {
			n += op.Interval.Errors
			for k, v := range op.Interval.ErrorsByKind {
				kinds[k] += v
			}
		}
	}
	if n > 0 {
		type kv struct {
			k string
			v int64
		}
		var list []kv
		for k, v := range kinds {
			list = append(list, kv{k, v})
		}
		// Most frequent first, then by name for a stable line.
		for i := 1; i < len(list); i++ {
			for j := i; j > 0 && (list[j].v > list[j-1].v || list[j].v == list[j-1].v && list[j].k < list[j-1].k); j-- {
				list[j], list[j-1] = list[j-1], list[j]
			}
		}
		var ks []string
		for _, e := range list {
			ks = append(ks, e.k+" "+format.Int(e.v))
		}
		text = format.Int(n) + " errors in the last interval"
		if len(ks) > 0 {
			text += ": " + strings.Join(ks, ", ")
		}
	}
	if s.IntegrityErrors > 0 {
		if text != "" {
			text += " · "
		}
		text += format.Int(s.IntegrityErrors) + " data integrity mismatches"
	}
	return text
}

// topKind is the most frequent error kind of the last interval.
func topKind(s *engine.Snapshot) string {
	kinds := map[string]int64{}
	for _, op := range s.Ops {
		for k, v := range op.Interval.ErrorsByKind {
			kinds[k] += v
		}
	}
	best := ""
	for k, v := range kinds {
		if best == "" || v > kinds[best] || v == kinds[best] && k < best {
			best = k
		}
	}
	return best
}

// intervalCause is the latest message of errors of kind in the last
// interval, masked, "" when there is none.
func intervalCause(s *engine.Snapshot, kind string) string {
	if c := s.Total.Interval.Causes[kind]; c != "" {
		return report.MaskCause(c)
	}
	for _, op := range s.Ops {
		if c := op.Interval.Causes[kind]; c != "" {
			return report.MaskCause(c)
		}
	}
	return ""
}

// stallNote says that nothing completed in the last interval while the
// run goes on, with the latest error's cause: during an outage the client
// waits on its dials and the interval has no error to show.
func (m *Model) stallNote() string {
	s := m.last()
	if s == nil || s.Paused || m.closed || s.Phase == engine.PhaseDone || s.Total.Interval.Count > 0 || s.Seq < 2 {
		return ""
	}
	text := "no operation completed in the last interval"
	if e := m.hist.LastError; e.Kind != "" {
		text += " · last " + e.Kind + " at " + format.Short(e.At)
		if e.Cause != "" {
			text += ": " + report.MaskCause(e.Cause)
		}
	}
	return text
}
