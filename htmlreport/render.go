package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

//go:embed page.html.tmpl
var pageText string

//go:embed style.css
var styleText string

var pageTmpl = template.Must(template.New("page").Parse(pageText))

// charts lists every chart of the report, in page order.
func (r *Report) charts() []*Chart {
	var out []*Chart
	add := func(cs ...*Chart) {
		for _, c := range cs {
			if c != nil {
				out = append(out, c)
			}
		}
	}
	if r.Capacity != nil {
		add(r.Capacity.Charts...)
	}
	add(r.Throughput)
	add(r.Sweep...)
	add(r.Latency...)
	add(r.Spectrum...)
	add(r.CPU, r.NIC)
	for _, s := range r.Sections {
		add(s.Charts...)
	}
	return out
}

// Render writes the report as one self-contained HTML page.
func Render(w io.Writer, r *Report) error {
	halves := [][]*Chart{r.Sweep, r.Latency, r.Spectrum, {r.CPU, r.NIC}}
	for _, s := range r.Sections {
		halves = append(halves, s.Charts)
	}
	if r.Capacity != nil {
		halves = append(halves, r.Capacity.Charts)
	}
	for _, cs := range halves {
		for _, c := range cs {
			if c != nil {
				c.Half = true
			}
		}
	}
	if r.Compare {
		for _, c := range r.Latency {
			c.Half = false
		}
	}
	for _, c := range r.charts() {
		svg, err := chartSVG(c)
		if err != nil {
			return fmt.Errorf("html report: %w", err)
		}
		// The SVG is gonum/plot's output, its text escaped by vgsvg.
		c.SVG = template.HTML(svg)
	}
	data := struct {
		*Report
		CSS template.CSS
	}{r, template.CSS(styleText)}
	if err := pageTmpl.Execute(w, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// PNG is one chart of the report as a PNG file (1280x540, for slides).
// Its writer (benchtop report --png) checks and writes the file as it
// does every output.
type PNG struct {
	Name  string // the file's name: the chart's ID, .png
	chart *Chart
}

// PNGs lists the report's charts as PNG files, in page order.
func PNGs(r *Report) []PNG {
	var out []PNG
	for _, c := range r.charts() {
		out = append(out, PNG{Name: fileName(c.ID) + ".png", chart: c})
	}
	return out
}

// Write draws the chart as a PNG into w.
func (p PNG) Write(w io.Writer) error {
	if err := drawPNG(p.chart, w); err != nil {
		return fmt.Errorf("png %s: %w", p.Name, err)
	}
	return nil
}
