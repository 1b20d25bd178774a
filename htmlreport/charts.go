package htmlreport

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart size in points: wide and short, as a page column holds it.
const (
	chartW = 640 * vg.Length(1)
	chartH = 270 * vg.Length(1)
	// Charts two to a row are drawn smaller, so that their text is as
	// large on the page as a full-width chart's.
	halfW  = 430 * vg.Length(1)
	halfH  = 250 * vg.Length(1)
	pngDPI = 144
)

// palette is Okabe and Ito's colour-blind-safe set, then grey.
var palette = []color.RGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // green
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0xCC, 0x79, 0xA7, 0xff}, // purple
	{0x56, 0xB4, 0xE9, 0xff}, // sky
	{0x88, 0x88, 0x88, 0xff}, // grey
}

var (
	markColor  = color.RGBA{0x99, 0x99, 0x99, 0xff}
	levelColor = color.RGBA{0xB0, 0x30, 0x30, 0xff}
	// Liberation Sans has Arial's and Helvetica's metrics, so the text
	// the SVG names sits right in the fonts a browser falls back to.
	sans     = font.Font{Typeface: "Liberation", Variant: "Sans"}
	sansBold = font.Font{Typeface: "Liberation", Variant: "Sans", Weight: xfont.WeightBold}
)

// plotOf draws the chart with gonum/plot.
// The page gives each chart its title in HTML; a PNG carries its own.
func plotOf(c *Chart, titled bool) (*plot.Plot, error) {
	p := plot.New()
	if titled {
		p.Title.Text = c.Title
	}
	p.Title.TextStyle.Font = font.From(sansBold, 11)
	p.Title.Padding = 6
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
		a.Tick.Color = color.Gray{0x66}
		a.LineStyle.Color = color.Gray{0x66}
		a.Padding = 2
	}
	p.X.Label.Text = c.XLabel
	p.Y.Label.Text = c.YLabel
	p.Legend.TextStyle.Font = font.From(sans, 9)
	p.Legend.Top = true
	p.Legend.ThumbnailWidth = 18
	grid := plotter.NewGrid()
	p.Add(grid)
	grid.Vertical.Color = color.Gray{0xe6}
	grid.Horizontal.Color = color.Gray{0xe6}

	ymax := maxY(c.Series)
	for _, l := range c.Levels {
		ymax = max(ymax, l.At)
	}
	if ymax <= 0 {
		ymax = 1
	}
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range c.Series {
		for _, pt := range s.Points {
			xmin, xmax = min(xmin, pt.X), max(xmax, pt.X)
		}
	}
	for _, m := range c.Marks {
		xmin, xmax = min(xmin, m.At), max(xmax, m.At)
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	// Headroom above the data for the legend and the mark labels.
	p.Y.Min, p.Y.Max = 0, ymax*1.32
	label := human
	if c.YUS {
		label = durTick
	}
	p.Y.Tick.Marker = relabel(plot.DefaultTicks{}, label)
	if c.LogY {
		lo := minPositiveY(c.Series)
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = relabel(plot.LogTicks{Prec: -1}, label)
		p.Y.Min = math.Pow(10, math.Floor(math.Log10(lo)))
		p.Y.Max = math.Pow(10, math.Log10(ymax)+0.18*(math.Log10(ymax)-math.Log10(p.Y.Min)))
	}
	if c.XQuantile {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.TickerFunc(quantileTicks)
		p.X.Min, p.X.Max = 1, math.Pow(10, math.Ceil(math.Log10(max(xmax, 10))))
	} else {
		pad := (xmax - xmin) * 0.03
		if c.Points {
			pad = max(pad, 0.5)
		}
		p.X.Min, p.X.Max = xmin-pad, xmax+pad
		if !c.Points && xmin >= 0 {
			p.X.Min = max(0, p.X.Min)
		}
		if c.XTime {
			most := 8
			if c.Half {
				most = 5
			}
			p.X.Tick.Marker = timeTicker(most)
			p.X.Label.Text = timeAxisLabel(c.XLabel, p.X.Min, p.X.Max)
		}
		if c.Points {
			if ticks := valueTicks(c.Series); ticks != nil {
				p.X.Tick.Marker = ticks
			}
		}
	}

	for i, s := range c.Series {
		xys := make(plotter.XYs, 0, len(s.Points))
		for _, pt := range s.Points {
			if c.XQuantile && pt.X < 1 || !finite(pt.X) || !finite(pt.Y) || c.LogY && pt.Y <= 0 {
				continue // a log axis has no 0; no value is no point
			}
			xys = append(xys, plotter.XY{X: pt.X, Y: pt.Y})
		}
		if len(xys) == 0 {
			continue
		}
		col := palette[s.Color%len(palette)]
		if s.Faint {
			col.A = 0x70
		}
		var entry []plot.Thumbnailer
		if !s.Scatter {
			l, err := plotter.NewLine(xys)
			if err != nil {
				return nil, fmt.Errorf("chart %s, series %d: %w", c.ID, i, err)
			}
			l.Color = col
			l.Width = 1.4
			if s.Dashed {
				l.Dashes = []vg.Length{4, 2.5}
			}
			p.Add(l)
			entry = append(entry, l)
		}
		if c.Points || s.Scatter || len(xys) == 1 {
			sc, err := plotter.NewScatter(xys)
			if err != nil {
				return nil, fmt.Errorf("chart %s, series %d: %w", c.ID, i, err)
			}
			sc.GlyphStyle.Color = col
			sc.GlyphStyle.Radius = 2.6
			sc.GlyphStyle.Shape = draw.CircleGlyph{}
			p.Add(sc)
			entry = append(entry, sc)
		}
		p.Legend.Add(s.Name, entry...)
	}

	for _, l := range c.Levels {
		line, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: l.At}, {X: p.X.Max, Y: l.At}})
		if err != nil {
			return nil, err
		}
		line.Color = levelColor
		line.Width = 0.8
		line.Dashes = []vg.Length{2, 2}
		p.Add(line)
		if err := addLabel(p, p.X.Min, l.At, l.Label, 0, levelColor); err != nil {
			return nil, err
		}
	}
	for _, m := range mergeMarks(c.Marks, (p.X.Max-p.X.Min)*0.025) {
		line, err := plotter.NewLine(plotter.XYs{{X: m.At, Y: p.Y.Min}, {X: m.At, Y: p.Y.Max}})
		if err != nil {
			return nil, err
		}
		line.Color = markColor
		line.Width = 0.7
		line.Dashes = []vg.Length{1.5, 1.5}
		p.Add(line)
		if err := addLabel(p, m.At, p.Y.Max, m.Label, math.Pi/2, color.Gray{0x55}); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func addLabel(p *plot.Plot, x, y float64, label string, rot float64, col color.Color) error {
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: y}}, Labels: []string{label}})
	if err != nil {
		return err
	}
	for i := range lb.TextStyle {
		lb.TextStyle[i].Font = font.From(sans, 7.5)
		lb.TextStyle[i].Color = col
		lb.TextStyle[i].Rotation = rot
		// Rotated: the text ends at the top of the chart, beside its line.
		lb.TextStyle[i].XAlign = text.XRight
		lb.TextStyle[i].YAlign = text.YBottom
		lb.Offset = vg.Point{X: -1.5, Y: -2}
		if rot == 0 {
			lb.TextStyle[i].YAlign = text.YBottom
			lb.TextStyle[i].XAlign = 0
			lb.Offset = vg.Point{X: 2, Y: 1.5}
		}
	}
	p.Add(lb)
	return nil
}

// mergeMarks joins marks closer than gap into one label, so that the
// changes of one instant (a phase start and a sweep's first step) do not
// print over each other.
func mergeMarks(ms []Mark, gap float64) []Mark {
	var out []Mark
	for _, m := range ms {
		if n := len(out); n > 0 && m.At-out[n-1].At < gap {
			// The last change of an instant is the configuration that
			// held after it.
			out[n-1].Label = m.Label
			continue
		}
		out = append(out, m)
	}
	for i := range out {
		if r := []rune(out[i].Label); len(r) > 22 {
			out[i].Label = string(r[:21]) + "…"
		}
	}
	return out
}

// relabel keeps a ticker's ticks and writes their labels with label:
// 250k, 1.5M; 500µs, 1.5ms.
func relabel(t plot.Ticker, label func(float64) string) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		ticks := t.Ticks(lo, hi)
		for i := range ticks {
			if ticks[i].Label != "" {
				ticks[i].Label = label(ticks[i].Value)
			}
		}
		return ticks
	})
}

func human(v float64) string {
	a := math.Abs(v)
	trim := func(f float64, suffix string) string {
		return strconv.FormatFloat(f, 'f', -1, 64) + suffix
	}
	switch {
	case a >= 1e9:
		return trim(math.Round(v/1e7)/100, "G")
	case a >= 1e6:
		return trim(math.Round(v/1e4)/100, "M")
	case a >= 1e4:
		return trim(math.Round(v/10)/100, "k")
	case a == 0:
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// durTick labels a latency tick given in microseconds: 800ns, 500µs,
// 1.5ms, 2s.
func durTick(us float64) string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
	switch {
	case us == 0:
		return "0"
	case us < 1:
		return g(us*1e3) + "ns"
	case us < 1e3:
		return g(us) + "µs"
	case us < 1e6:
		return g(us/1e3) + "ms"
	}
	return g(us/1e6) + "s"
}

// valueTicks puts a tick at each x of a chart of a few discrete values
// (threads 1, 2, 4, 8), nil when there are many.
func valueTicks(ss []Series) plot.Ticker {
	seen := map[float64]bool{}
	var ticks plot.ConstantTicks
	for _, s := range ss {
		for _, p := range s.Points {
			if !seen[p.X] {
				seen[p.X] = true
				ticks = append(ticks, plot.Tick{Value: p.X, Label: human(p.X)})
			}
		}
	}
	if len(ticks) > 12 {
		return nil
	}
	return ticks
}

// quantileTicks label 1/(1-q) in percentiles: 1 → 0%, 10 → 90%, 100 →
// 99%, ...
func quantileTicks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for x := 1.0; x <= hi*1.0001; x *= 10 {
		q := 100 * (1 - 1/x)
		label := strconv.FormatFloat(q, 'f', -1, 64) + "%"
		if x > 1e3 {
			label = strconv.FormatFloat(q, 'f', int(math.Log10(x))-2, 64) + "%"
		}
		out = append(out, plot.Tick{Value: x, Label: label})
		for k := 2.0; k < 10; k++ {
			if x*k <= hi {
				out = append(out, plot.Tick{Value: x * k})
			}
		}
	}
	return out
}

// SVG draws the chart as an SVG element to inline in the page.
func chartSVG(c *Chart) (string, error) {
	p, err := plotOf(c, false)
	if err != nil {
		return "", err
	}
	w, h := chartW, chartH
	if c.Half {
		w, h = halfW, halfH
	}
	cv := vgsvg.NewWith(vgsvg.UseWH(w, h))
	p.Draw(draw.New(cv))
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return "", fmt.Errorf("chart %s: %w", c.ID, err)
	}
	s := b.String()
	// Inline SVG needs neither the XML prolog nor the generator comment.
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	s = strings.Replace(s, "<svg ", `<svg role="img" aria-label="`+attrEscape(c.Title)+`" `, 1)
	return s, nil
}

func attrEscape(s string) string {
	r := strings.NewReplacer(`&`, "&amp;", `"`, "&quot;", `<`, "&lt;", `>`, "&gt;")
	return r.Replace(s)
}

// drawPNG draws the chart as a PNG into w.
func drawPNG(c *Chart, w io.Writer) error {
	p, err := plotOf(c, true)
	if err != nil {
		return err
	}
	cv := vgimg.NewWith(vgimg.UseWH(chartW, chartH), vgimg.UseDPI(pngDPI))
	// A white background: slides and viewers may not be white.
	dc := draw.New(cv)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	p.Draw(dc)
	_, err = (vgimg.PngCanvas{Canvas: cv}).WriteTo(w)
	return err
}

func fileName(id string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '-'
	}, strings.ToLower(id))
}
