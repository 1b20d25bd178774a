package htmlreport

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"benchtop/results/thresholds"
)

// The verdicts become the section: a row per threshold, pass or FAIL
// (no data fails), and the status they give; none without thresholds.
func TestThresholdSection(t *testing.T) {
	t.Parallel()
	if sec := thresholdSection(&Run{}); sec != nil {
		t.Errorf("a run without thresholds has a section: %+v", sec)
	}
	rs := []thresholds.Result{
		{Threshold: "READ.p99<1ms", Actual: 412, Unit: "us", Text: "412µs", Pass: true},
		{Threshold: "UPDATE.p99<100us", Actual: 2300, Unit: "us", Text: "2.3ms"},
		{Threshold: "SCAN.p99<1ms", Text: "no data", NoData: true},
	}
	for _, c := range []struct {
		name     string
		run      Run
		crossed  int
		status   int
		verdicts []string
	}{
		{"crossed", Run{}, 2, 99, []string{"pass", "FAIL", "FAIL: no data"}},
		{"passed", Run{}, 0, 0, []string{"pass"}},
		{"closing check failed", Run{Problems: []string{"stream: 3 rows lost"}}, 2, 1, []string{"pass", "FAIL", "FAIL: no data"}},
	} {
		run := c.run
		run.Summary.Thresholds = rs
		if c.crossed == 0 {
			run.Summary.Thresholds = rs[:1]
		}
		sec := thresholdSection(&run)
		if sec == nil || sec.Crossed != c.crossed || sec.Status != c.status || len(sec.Table.Rows) != len(c.verdicts) {
			t.Errorf("%s: section %+v, want %d crossed, status %d, %d rows", c.name, sec, c.crossed, c.status, len(c.verdicts))
			continue
		}
		for i, row := range sec.Table.Rows {
			if got := row.Cells[2].Text; got != c.verdicts[i] || row.Cells[0].Text != rs[i].Threshold || row.Cells[1].Text != rs[i].Text {
				t.Errorf("%s: row %d %+v, want %s %s %s", c.name, i, row.Cells, rs[i].Threshold, rs[i].Text, c.verdicts[i])
			}
		}
	}
}

// The page of a run that crossed a threshold (exit status 99: the JSON
// summary of a real one, testdata/README), opened in headless Chromium:
// the DOM the browser built has the verdict table right after the
// headline, before anything else, with the crossed threshold marked FAIL,
// what the run observed, and the exit status.
func TestChromiumShowsTheThresholds(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	run := loadFixture(t, "thresholds", false, false)
	if run.Summary.Crossed == 0 {
		t.Fatalf("the fixture crossed no threshold: %+v", run.Summary.Thresholds)
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "thresholds.html")
	if err := writeFile(page, Build(run)); err != nil {
		t.Fatal(err)
	}
	dom := dumpDOM(t, bin, page, dir)

	sections := regexp.MustCompile(`<section id="([a-z]+)"`).FindAllStringSubmatch(dom, -1)
	var order []string
	for _, m := range sections {
		order = append(order, m[1])
	}
	if len(order) < 2 || order[0] != "headline" || order[1] != "thresholds" {
		t.Errorf("sections in the order %v: want the thresholds right after the headline", order)
	}
	i := strings.Index(dom, `<section id="thresholds"`)
	if i < 0 {
		t.Fatalf("no thresholds section in the DOM Chromium built")
	}
	sec := dom[i : i+strings.Index(dom[i:], "</section>")]
	text := regexp.MustCompile(`\s+`).ReplaceAllString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(sec, " "), " ")
	for _, want := range []string{
		`data-exit-status="99"`, `Thresholds: 1 of 3 crossed`, `Exit status 99`,
		`<tr class="fail"><td>READ.p99&lt;100ns</td><td class="num" data-key="us" data-value="0.815">815ns</td><td>FAIL</td></tr>`,
		`<tr class="pass"><td>UPDATE.p99&lt;1s</td>`, `<tr class="pass"><td>errors&lt;1</td>`,
	} {
		if !strings.Contains(sec, want) && !strings.Contains(text, want) {
			t.Errorf("the thresholds section lacks %q:\n%s", want, sec)
		}
	}
}

// dumpDOM opens page in headless Chromium and returns the DOM it built.
func dumpDOM(t *testing.T, bin, page, dir string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(chromiumFlags(filepath.Join(dir, "profile")), "--dump-dom", "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	var out, logb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &logb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, tail(logb.String(), 30))
	}
	if keep := os.Getenv("BENCHTOP_SCREENSHOTS"); keep != "" {
		_ = os.WriteFile(filepath.Join(keep, "thresholds.dom.html"), out.Bytes(), 0o644)
	}
	return out.String()
}
