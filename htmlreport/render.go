package htmlreport

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
)

//go:embed page.html.tmpl
var pageText string

//go:embed style.css
var styleText string

var page = template.Must(template.New("page").Parse(pageText))

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
	add(r.StreamPlot...)
	add(r.TSPlot...)
	return out
}

// Render writes the report as one self-contained HTML page.
func Render(w io.Writer, r *Report) error {
	halves := [][]*Chart{r.Sweep, r.Latency, r.Spectrum, {r.CPU, r.NIC}, r.StreamPlot, r.TSPlot}
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
	if err := page.Execute(w, data); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// WritePNGs writes every chart as a PNG into dir (created if missing) and
// returns the paths.
func WritePNGs(r *Report, dir string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("png: %w", err)
	}
	var paths []string
	for _, c := range r.charts() {
		p, err := writePNG(c, dir)
		if err != nil {
			return paths, fmt.Errorf("png: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
