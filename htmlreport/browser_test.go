package htmlreport

import (
	"bufio"
	"bytes"
	"context"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// chromiumFlags keep headless Chromium from its own background traffic
// (and resolve no name, so that none of it leaves the machine); with
// --enable-logging=stderr --v=1 it logs every URL request it is about to
// make and every console message, which is what the test reads.
func chromiumFlags(profile string) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--host-resolver-rules=MAP * ~NOTFOUND", "--user-data-dir=" + profile,
		"--enable-logging=stderr", "--v=1"}
}

func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("BENCHTOP_REQUIRE_CHROMIUM") != "" {
		t.Fatal("BENCHTOP_REQUIRE_CHROMIUM is set but chromium is not installed (apt-get install -y chromium)")
	}
	t.Skip("chromium is not installed: apt-get install -y chromium to open the report in a real browser")
	return ""
}

// browse opens page in headless Chromium, takes a screenshot of w x h and
// returns it with Chromium's log.
func browse(t *testing.T, bin, page string, w, h int) (image.Image, string) {
	t.Helper()
	dir := t.TempDir()
	shot := filepath.Join(dir, "shot.png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append(chromiumFlags(filepath.Join(dir, "profile")),
		"--screenshot="+shot, "--window-size="+strconv.Itoa(w)+","+strconv.Itoa(h), "file://"+page)
	cmd := exec.CommandContext(ctx, bin, args...)
	var logb bytes.Buffer
	cmd.Stderr = &logb
	cmd.Stdout = &logb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, tail(logb.String(), 30))
	}
	if keep := os.Getenv("BENCHTOP_SCREENSHOTS"); keep != "" {
		// For a person to look at: BENCHTOP_SCREENSHOTS=DIR go test ...
		name := strings.TrimSuffix(filepath.Base(page), ".html") + ".png"
		if b, err := os.ReadFile(shot); err == nil && os.MkdirAll(keep, 0o755) == nil {
			_ = os.WriteFile(filepath.Join(keep, name), b, 0o644)
		}
	}
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, tail(logb.String(), 30))
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img, logb.String()
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

var (
	requestLine = regexp.MustCompile(`NotifyBeforeURLRequest: (\S+)`)
	consoleLine = regexp.MustCompile(`:CONSOLE[:(]`)
	fileLine    = regexp.MustCompile(`FileURLLoader::Start: (\S+)`)
)

// chromiumOwn are the hosts of Chromium's own services (update, time,
// accounts), which it calls whatever page it opens; nothing resolves.
var chromiumOwn = regexp.MustCompile(`(^|\.)(google\.com|googleapis\.com|gstatic\.com|gvt1\.com)$`)

// pageTraffic lists what the page asked for besides itself: network URL
// requests other than Chromium's own, other files, console messages.
func pageTraffic(log, page string) (requests, files, console []string) {
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := requestLine.FindStringSubmatch(line); m != nil {
			u, err := url.Parse(m[1])
			if err != nil || !chromiumOwn.MatchString(u.Hostname()) {
				requests = append(requests, m[1])
			}
		}
		if m := fileLine.FindStringSubmatch(line); m != nil && m[1] != "file://"+page {
			files = append(files, m[1])
		}
		if consoleLine.MatchString(line) {
			console = append(console, line)
		}
	}
	return
}

// The report opens in a real browser: it draws (a screenshot of the
// expected size, not blank, with the charts' colours), requests nothing
// and logs no console message.
func TestChromiumRendersTheReport(t *testing.T) {
	t.Parallel()
	bin := chromium(t)
	dir := t.TempDir()

	t.Run("detector sees a request and a console message", func(t *testing.T) {
		canary := filepath.Join(dir, "canary.html")
		os.WriteFile(canary, []byte(`<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/canary.png"><script>console.error("canary")</script></body></html>`), 0o644)
		_, log := browse(t, bin, canary, 400, 300)
		req, _, con := pageTraffic(log, canary)
		if len(req) != 1 || !strings.Contains(req[0], "canary.png") || len(con) != 1 {
			t.Fatalf("canary page: requests %q, console %q; want its one image and one message", req, con)
		}
	})

	for _, fixture := range []string{"sweep", "stream"} {
		t.Run(fixture, func(t *testing.T) {
			page := filepath.Join(dir, fixture+".html")
			if err := writeFile(page, Build(loadFixture(t, fixture, true, true))); err != nil {
				t.Fatal(err)
			}
			img, log := browse(t, bin, page, 1280, 2000)
			if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2000 {
				t.Errorf("screenshot is %dx%d, want 1280x2000", b.Dx(), b.Dy())
			}
			var nonWhite, blue int
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y += 2 {
				for x := b.Min.X; x < b.Max.X; x += 2 {
					r, g, bl, _ := img.At(x, y).RGBA()
					if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
						nonWhite++
					}
					// The charts' blue, 0072B2, drawn from the inline SVG.
					if r>>8 < 0x20 && g>>8 > 0x60 && g>>8 < 0x80 && bl>>8 > 0xa0 && bl>>8 < 0xc0 {
						blue++
					}
				}
			}
			total := (b.Dx() / 2) * (b.Dy() / 2)
			if nonWhite < total/50 {
				t.Errorf("screenshot nearly blank: %d of %d sampled pixels not white", nonWhite, total)
			}
			if blue < 200 {
				t.Errorf("only %d pixels of the charts' blue: were the charts drawn?", blue)
			}
			req, files, con := pageTraffic(log, page)
			if len(req) > 0 || len(files) > 0 {
				t.Errorf("the page asked for %q and files %q", req, files)
			}
			if len(con) > 0 {
				t.Errorf("console messages: %q", con)
			}
		})
	}
}
