package htmlreport

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// measureScript writes, for every table of the page, its id, the width of
// its content (scrollWidth) and the width it is shown in (clientWidth)
// into the body's data-measure attribute, which --dump-dom prints.
const measureScript = `<script>
const out = [];
document.querySelectorAll("table").forEach((t, i) => {
  const box = t.closest(".table-wrap") || t.parentElement;
  const name = t.id || (t.className.replace(/ /g, ".") + "-" + i);
  out.push(name + " " + box.scrollWidth + " " + box.clientWidth + " " + t.scrollWidth);
});
document.body.setAttribute("data-measure", out.join(";"));
</script>`

var measureAttr = regexp.MustCompile(`data-measure="([^"]*)"`)

// tableWidths opens page in headless Chromium at a window w pixels wide
// and returns, per table, the width of its content and the width of the
// box that shows it. The page's policy forbids scripts, so the test
// measures a copy with the measuring script and without the policy.
func tableWidths(t *testing.T, bin, page string, w int) map[string][2]int {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy"[^>]*>`).ReplaceAllString(string(b), "")
	html = strings.Replace(html, "</body>", measureScript+"</body>", 1)
	dir := t.TempDir()
	measured := filepath.Join(dir, "measured.html")
	if err := os.WriteFile(measured, []byte(html), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(chromiumFlags(filepath.Join(dir, "profile")),
		"--dump-dom", "--window-size="+strconv.Itoa(w)+",2000", "file://"+measured)
	out, err := exec.CommandContext(ctx, bin, args...).Output()
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v", err)
	}
	m := measureAttr.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no measurement in the dumped page (%d bytes)", len(out))
	}
	widths := map[string][2]int{}
	for _, item := range strings.Split(string(m[1]), ";") {
		f := strings.Fields(item)
		if len(f) != 4 {
			t.Fatalf("measurement %q", item)
		}
		scroll, _ := strconv.Atoi(f[1])
		client, _ := strconv.Atoi(f[2])
		widths[f[0]] = [2]int{scroll, client}
	}
	return widths
}

// Every table of the report fits a 1400-pixel window without a
// scrollbar (its content no wider than the box that shows it): the
// segments of a sweep, the stream's tables, and the comparison of two
// runs, whose segments carry Δ ops/s and Δ p99 at their right end.
func TestChromiumTablesFit1400(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	dir := t.TempDir()
	base := loadFixture(t, "sweep", true, true)
	reports := map[string]*Report{
		"sweep":   Build(loadFixture(t, "sweep", true, true)),
		"stream":  Build(loadFixture(t, "stream", true, true)),
		"compare": Compare(base, loadFixture(t, "sweep", true, true), "/x/before-the-change.json", "/x/after-the-change.json"),
	}
	for name, rep := range reports {
		t.Run(name, func(t *testing.T) {
			page := filepath.Join(dir, name+".html")
			if err := writeFile(page, rep); err != nil {
				t.Fatal(err)
			}
			widths := tableWidths(t, bin, page, 1400)
			if name == "compare" {
				if _, ok := widths["table-segments"]; !ok || !hasColumn(rep.Segments, "Δ p99") {
					t.Fatalf("the comparison has no segments table with Δ p99: %v", widths)
				}
			}
			for id, w := range widths {
				if w[1] <= 0 {
					t.Errorf("%s: shown in %d pixels", id, w[1])
				}
				if w[0] > w[1] {
					t.Errorf("%s is %d pixels wide in a box of %d at a 1400-pixel window: it scrolls", id, w[0], w[1])
				}
			}
			t.Logf("%v", widths)
		})
	}
}

func hasColumn(t *Table, name string) bool {
	return t != nil && strings.Contains(strings.Join(t.Columns, "|"), name)
}
