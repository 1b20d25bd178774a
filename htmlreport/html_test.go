package htmlreport

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// node helpers over golang.org/x/net/html.
func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

func findAll(n *html.Node, pred func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	walk(n, func(m *html.Node) {
		if pred(m) {
			out = append(out, m)
		}
	})
	return out
}

func byID(doc *html.Node, id string) *html.Node {
	for _, n := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode && attr(n, "id") == id }) {
		return n
	}
	return nil
}

func elems(n *html.Node, tag string) []*html.Node {
	return findAll(n, func(m *html.Node) bool { return m.Type == html.ElementNode && m.Data == tag })
}

func textOf(n *html.Node) string {
	var b strings.Builder
	walk(n, func(m *html.Node) {
		if m.Type == html.TextNode {
			b.WriteString(m.Data)
		}
	})
	return strings.TrimSpace(b.String())
}

func renderFixture(t *testing.T, name string) (*html.Node, []byte) {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, Build(loadFixture(t, name, true, true))); err != nil {
		t.Fatal(err)
	}
	doc, err := html.Parse(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return doc, b.Bytes()
}

// rawJSON is the fixture's JSON read generically, apart from the
// package's own types, so that the tables are checked against the file.
func rawJSON(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// tableRows returns, per body row, the data-key → data-value of its cells.
func tableRows(t *testing.T, doc *html.Node, id string) []map[string]string {
	t.Helper()
	tbl := byID(doc, "table-"+id)
	if tbl == nil {
		t.Fatalf("no table-%s", id)
	}
	var out []map[string]string
	for _, tb := range elems(tbl, "tbody") {
		for _, tr := range elems(tb, "tr") {
			row := map[string]string{}
			for _, td := range elems(tr, "td") {
				if k := attr(td, "data-key"); k != "" {
					row[k] = attr(td, "data-value")
				}
			}
			out = append(out, row)
		}
	}
	return out
}

func sameNumber(t *testing.T, where, got string, want any) {
	t.Helper()
	w, ok := want.(float64)
	if !ok {
		t.Errorf("%s: JSON value %v is not a number", where, want)
		return
	}
	g, err := strconv.ParseFloat(got, 64)
	if err != nil || g != w {
		t.Errorf("%s: page has %q, JSON has %v", where, got, w)
	}
}

func TestPageSections(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		fixture string
		want    []string
	}{
		{"sweep", []string{"header", "headline", "limits", "throughput", "segments", "latency", "spectrum", "client", "operations", "events", "properties"}},
		{"stream", []string{"header", "limits", "throughput", "segments", "stream", "latency", "spectrum", "client"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			doc, raw := renderFixture(t, tc.fixture)
			for _, id := range tc.want {
				if byID(doc, id) == nil {
					t.Errorf("no section #%s", id)
				}
			}
			// Every chart is an inline SVG with a title.
			for _, fig := range findAll(doc, func(n *html.Node) bool { return n.Data == "figure" }) {
				if len(elems(fig, "svg")) != 1 || textOf(elems(fig, "figcaption")[0]) == "" {
					t.Errorf("figure %s: want one svg and a title", attr(fig, "id"))
				}
			}
			if n := len(findAll(doc, func(n *html.Node) bool { return n.Data == "figure" })); n < 6 {
				t.Errorf("%d charts, want at least 6", n)
			}
			// Self-contained: no script, nothing that loads.
			for _, n := range findAll(doc, func(n *html.Node) bool { return n.Type == html.ElementNode }) {
				switch n.Data {
				case "script", "link", "img", "iframe", "object", "embed":
					t.Errorf("page has a <%s> element", n.Data)
				}
				for _, a := range n.Attr {
					if a.Key == "src" || a.Key == "href" || a.Key == "xlink:href" || (a.Key == "style" && strings.Contains(a.Val, "url(")) {
						t.Errorf("<%s %s=%q> could load something", n.Data, a.Key, a.Val)
					}
				}
			}
			if bytes.Contains(raw, []byte("@import")) || bytes.Contains(raw, []byte("@font-face")) {
				t.Error("the stylesheet imports or loads fonts")
			}
			csp := findAll(doc, func(n *html.Node) bool {
				return n.Data == "meta" && attr(n, "http-equiv") == "Content-Security-Policy"
			})
			if len(csp) != 1 || !strings.HasPrefix(attr(csp[0], "content"), "default-src 'none'") {
				t.Error("no Content-Security-Policy meta with default-src 'none'")
			}
		})
	}
}

// The figures in the tables are the JSON's.
func TestTablesEqualTheJSON(t *testing.T) {
	t.Parallel()
	doc, _ := renderFixture(t, "sweep")
	js := rawJSON(t, "sweep")
	segs := js["segments"].([]any)
	rows := tableRows(t, doc, "segments")
	if len(rows) != len(segs) {
		t.Fatalf("segments table has %d rows, JSON %d segments", len(rows), len(segs))
	}
	for i, s := range segs {
		seg := s.(map[string]any)
		for _, k := range []string{"index", "start_s", "duration_s", "threads", "partitions", "target", "ops_per_sec", "p50_us", "p95_us", "p99_us", "errors", "cpu_percent"} {
			sameNumber(t, "segment "+strconv.Itoa(i+1)+" "+k, rows[i][k], seg[k])
		}
	}
	ops := js["operations"].([]any)
	orows := tableRows(t, doc, "operations")
	if len(orows) != len(ops) {
		t.Fatalf("operations table has %d rows, JSON %d operations", len(orows), len(ops))
	}
	for i, o := range ops {
		for _, k := range []string{"count", "errors", "mean_us", "p50_us", "p95_us", "p99_us", "p999_us", "max_us"} {
			sameNumber(t, "operation "+strconv.Itoa(i)+" "+k, orows[i][k], o.(map[string]any)[k])
		}
	}
	ev := js["events"].([]any)
	erows := tableRows(t, doc, "events")
	if len(erows) != len(ev) {
		t.Fatalf("events table has %d rows, JSON %d events", len(erows), len(ev))
	}
	for i, e := range ev {
		sameNumber(t, "event "+strconv.Itoa(i), erows[i]["at_s"], e.(map[string]any)["at_s"])
	}

	sdoc, _ := renderFixture(t, "stream")
	sjs := rawJSON(t, "stream")
	scen := sjs["stream"].(map[string]any)["scenarios"].([]any)
	srows := tableRows(t, sdoc, "stream")
	if len(srows) != len(scen) {
		t.Fatalf("stream table has %d rows, JSON %d scenarios", len(srows), len(scen))
	}
	for i, s := range scen {
		sc := s.(map[string]any)
		for _, k := range []string{"partitions", "threads", "duration_s", "rows_per_sec_stable", "rows_per_sec_peak", "mb_per_sec", "lag_max", "cpu_cores"} {
			sameNumber(t, "scenario "+strconv.Itoa(i)+" "+k, srows[i][k], sc[k])
		}
		sameNumber(t, "scenario e2e p99", srows[i]["e2e_us.p99"], sc["e2e_us"].(map[string]any)["p99"])
	}
	// Stream segments carry their rows/s as columns too.
	ssegs := sjs["segments"].([]any)
	for i, row := range tableRows(t, sdoc, "segments") {
		sameNumber(t, "stream segment rows_per_sec", row["rows_per_sec"], ssegs[i].(map[string]any)["rows_per_sec"])
	}
}

// writeFile renders rep into path, for the tests that open a page.
func writeFile(path string, rep *Report) error {
	var b bytes.Buffer
	if err := Render(&b, rep); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

func TestPNGs(t *testing.T) {
	t.Parallel()
	pngs := PNGs(Build(loadFixture(t, "sweep", true, true)))
	if len(pngs) < 6 {
		t.Fatalf("%d PNGs", len(pngs))
	}
	names := map[string]bool{}
	for _, p := range pngs {
		if names[p.Name] {
			t.Errorf("two charts named %s", p.Name)
		}
		names[p.Name] = true
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		// 640 x 270 points at 144 dpi.
		if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 540 {
			t.Errorf("%s is %dx%d, want 1280x540", p.Name, b.Dx(), b.Dy())
		}
	}
	if !names["throughput.png"] {
		t.Errorf("no throughput.png among %v", names)
	}
}
