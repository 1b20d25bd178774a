// Package errpanel draws the errors panel: per operation and error kind
// the count since the start and the latest message (credentials masked),
// the cause a user can act on, e.g. "database is locked (SQLITE_BUSY)".
package errpanel

import (
	"sort"
	"strings"
	"time"

	"benchtop/rundata"
	"benchtop/tui/common"
	"benchtop/tui/format"
	"benchtop/tui/history"
)

// MaxRows bounds the rows the panel asks for.
const MaxRows = 4

// Row is one operation and kind.
type Row struct {
	Op, Kind    string
	Count, Last int64 // since the start; in the last interval
	Cause       string
}

// Rows lists the errors of s by operation and kind: the most recently
// seen first (seen, from the history, may be nil), then the most frequent.
func Rows(s *rundata.Snapshot, seen map[string]time.Duration, mask func(string) string) []Row {
	if s == nil {
		return nil
	}
	var rows []Row
	for _, op := range s.Ops {
		for k, n := range op.Cumulative.ErrorsByKind {
			r := Row{Op: op.Name, Kind: k, Count: n, Last: op.Interval.ErrorsByKind[k],
				Cause: op.Cumulative.Causes[k]}
			if c := op.Interval.Causes[k]; c != "" {
				r.Cause = c
			}
			if mask != nil {
				r.Cause = mask(r.Cause)
			}
			rows = append(rows, r)
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		if sa, sb := seen[a.Op+" "+a.Kind], seen[b.Op+" "+b.Kind]; sa != sb {
			return sa > sb
		}
		if a.Last != b.Last {
			return a.Last > b.Last
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Op+a.Kind < b.Op+b.Kind
	})
	return rows
}

// Height is the outer height the panel wants for s: 0 without errors.
func Height(s *rundata.Snapshot, bordered bool) int {
	n := min(len(Rows(s, nil, nil)), MaxRows)
	if n == 0 {
		return 0
	}
	if bordered {
		return n + 2
	}
	return n + 1
}

// Model is the errors panel.
type Model struct {
	ctx  *common.Context
	w, h int
	view string
}

var _ common.Renderer[*history.History] = (*Model)(nil)

// New returns an errors panel drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Render draws the panel from the newest snapshot.
func (m *Model) Render(h *history.History) {
	st := m.ctx.Styles
	iw, ih := common.Inner(m.ctx.Bordered, m.w, m.h)
	rows := Rows(h.Last, h.ErrorSeen, m.ctx.MaskCause)
	var lines []string
	for i, r := range rows {
		if i >= ih {
			break
		}
		if i == ih-1 && len(rows) > ih {
			lines = append(lines, st.Muted.Render(" … "+format.Int(int64(len(rows)-i))+" more kinds (see the report)"))
			break
		}
		left := " " + st.Text.Render(common.Fit(common.ShortName(r.Op), 7)) + " " +
			st.Alarm.Render(common.Fit(r.Kind, 11)) + " " +
			st.Value.Render(pad(format.SI(float64(r.Count)), 6))
		if r.Last > 0 {
			left += st.Alarm.Render(pad("+"+format.SI(float64(r.Last)), 7))
		} else {
			left += strings.Repeat(" ", 7)
		}
		cause := r.Cause
		if cause == "" {
			cause = "(no message)"
		}
		room := iw - common.Width(left) - 8
		lines = append(lines, common.FitTail(left+"  "+st.Muted.Render("last: ")+st.Text.Render(Elide(cause, room)), iw))
	}
	m.view = common.Panel(st, m.ctx.Bordered, "Errors · since the start, +last interval · latest message", lines, m.w, m.h)
}

// Elide shortens s to w cells by cutting its middle: an error's start
// names the operation, its end the root cause.
func Elide(s string, w int) string {
	r := []rune(s)
	if len(r) <= w || w < 12 {
		return s
	}
	head := w / 3
	tail := w - head - 1
	return string(r[:head]) + "…" + string(r[len(r)-tail:])
}

func pad(s string, w int) string {
	if n := common.Width(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}
