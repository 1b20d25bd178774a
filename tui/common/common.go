// Package common is what every TUI component shares: the contract each
// keeps (Component and Renderer, component.go), the program context
// (screen size, styles, run info) and the small drawing helpers that keep
// every component's output exactly as wide and as tall as it was given, so
// that resizes never leave garbage on screen.
package common

import (
	"math"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/charmbracelet/x/ansi"

	"benchtop/rundata"
	"benchtop/themes"
)

// Context is the program context shared by the root model and its
// components; the root re-syncs it on resize and theme change.
type Context struct {
	Width, Height int // the whole screen
	Styles        themes.Styles
	Info          rundata.Info
	Interval      time.Duration
	// Bordered is true when there is room for boxed panels; compact
	// screens draw a title rule instead of a box.
	Bordered bool
	// Baseline is the run given with --baseline, nil without one.
	Baseline *Baseline
	// MaskCause makes an error's cause fit for the screen: one line, a
	// URL's password masked (report.MaskCause); nil leaves causes as
	// they are.
	MaskCause func(string) string
}

// Width is the display width of s (ANSI sequences ignored).
func Width(s string) int { return ansi.StringWidth(s) }

// Fit pads or cuts the single line s to exactly w cells.
func Fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := ansi.StringWidth(s)
	if sw > w {
		s = ansi.Truncate(s, w, "")
		sw = ansi.StringWidth(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// FitTail is Fit with an ellipsis where the line is cut.
func FitTail(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return Fit(s, w)
}

// Block makes lines exactly w wide and h tall and joins them.
func Block(lines []string, w, h int) string {
	if h <= 0 || w <= 0 {
		return ""
	}
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = Fit(lines[i], w)
		} else {
			out[i] = strings.Repeat(" ", w)
		}
	}
	return strings.Join(out, "\n")
}

// Spread joins left and right on one line of width w, padding between
// them; right is dropped when both do not fit.
func Spread(left, right string, w int) string {
	lw, rw := Width(left), Width(right)
	if lw+1+rw > w {
		return Fit(left, w)
	}
	return left + strings.Repeat(" ", w-lw-rw) + right
}

// Inner returns the size left inside a panel of outer size w x h.
func Inner(bordered bool, w, h int) (int, int) {
	if bordered {
		return w - 2, h - 2
	}
	return w, h - 1
}

// Panel frames body lines (already sized to the inner size) under a title:
// a box when bordered, else a title followed by a rule.
func Panel(st themes.Styles, bordered bool, title string, body []string, w, h int) string {
	iw, ih := Inner(bordered, w, h)
	if iw <= 0 || ih < 0 {
		return Block(nil, w, h)
	}
	t := ""
	if title != "" {
		t = st.PanelTitle.Render(ansi.Truncate(title, max(0, iw-2), "…"))
	}
	lines := make([]string, 0, h)
	if bordered {
		top := st.Border.Render("┌")
		if t != "" {
			top += st.Border.Render("─") + " " + t + " "
		}
		top += st.Border.Render(strings.Repeat("─", max(0, w-1-Width(top)))) + st.Border.Render("┐")
		lines = append(lines, Fit(top, w))
		side := st.Border.Render("│")
		for i := 0; i < ih; i++ {
			l := ""
			if i < len(body) {
				l = body[i]
			}
			lines = append(lines, side+Fit(l, iw)+side)
		}
		lines = append(lines, st.Border.Render("└"+strings.Repeat("─", w-2)+"┘"))
		return strings.Join(lines, "\n")
	}
	top := t
	if t != "" {
		top += " "
	}
	top += st.Border.Render(strings.Repeat("─", max(0, w-Width(top))))
	lines = append(lines, Fit(top, w))
	for i := 0; i < ih; i++ {
		l := ""
		if i < len(body) {
			l = body[i]
		}
		lines = append(lines, Fit(l, iw))
	}
	return strings.Join(lines, "\n")
}

// LevelStyle picks the gauge style for a share p in 0-100.
func LevelStyle(st themes.Styles, p float64) func(...string) string {
	switch {
	case p >= 85:
		return st.GaugeHigh.Render
	case p >= 60:
		return st.GaugeMid.Render
	default:
		return st.GaugeLow.Render
	}
}

var eighths = []string{"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"}

// Gauge draws a horizontal bar w cells wide filled to p percent (0-100),
// coloured by level, with eighth-cell resolution.
func Gauge(st themes.Styles, w int, p float64) string {
	if w <= 0 {
		return ""
	}
	if math.IsNaN(p) || p < 0 {
		p = 0
	}
	if p > 100 {
		p = 100
	}
	cells := p / 100 * float64(w)
	full := int(cells)
	part := int((cells - float64(full)) * 8)
	if full >= w {
		full, part = w, 0
	}
	fill := strings.Repeat("█", full) + eighths[part]
	used := full
	if part > 0 {
		used++
	}
	return LevelStyle(st, p)(fill) + st.GaugeEmpty.Render(strings.Repeat("░", w-used))
}

var levels = []rune("▁▂▃▄▅▆▇█")

// Level is one cell showing p percent (0-100) as a block height.
func Level(st themes.Styles, p float64) string {
	if math.IsNaN(p) || p < 0 {
		p = 0
	}
	i := int(p / 100 * float64(len(levels)-1))
	if i >= len(levels) {
		i = len(levels) - 1
	}
	return LevelStyle(st, p)(string(levels[i]))
}

// CanvasLines renders an ntcharts canvas line by line like its View, but
// writes empty cells as plain spaces and styles each run of cells of one
// look at once instead of every cell: styling cells one by one is most of
// the cost of drawing a chart. Cells are grouped by foreground colour and
// boldness, the only properties benchtop's chart styles differ by.
func CanvasLines(c *canvas.Model) []string {
	w, h := c.Width(), c.Height()
	lines := make([]string, h)
	var b, run strings.Builder
	for y := 0; y < h; y++ {
		b.Reset()
		for x := 0; x < w; {
			cell := c.Cell(canvas.Point{X: x, Y: y})
			if cell.Rune == 0 {
				b.WriteByte(' ')
				x++
				continue
			}
			fg, bold := cell.Style.GetForeground(), cell.Style.GetBold()
			run.Reset()
			run.WriteRune(cell.Rune)
			x++
			for ; x < w; x++ {
				next := c.Cell(canvas.Point{X: x, Y: y})
				if next.Rune == 0 || next.Style.GetForeground() != fg || next.Style.GetBold() != bold {
					break
				}
				run.WriteRune(next.Rune)
			}
			b.WriteString(cell.Style.Render(run.String()))
		}
		lines[y] = b.String()
	}
	return lines
}

// ShortName shortens the long YCSB operation names for narrow columns
// (the latency, operations and errors panels share it).
func ShortName(op string) string {
	if op == "READ-MODIFY-WRITE" {
		return "RMW"
	}
	return op
}
