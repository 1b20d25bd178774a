package cli

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The metrics' flags: one clear line for bad input, exit status 2,
// before anything touches the database.
func TestMetricsFlags(t *testing.T) {
	t.Parallel()
	o, err := parseArgs([]string{"run", "memory", "--metrics", ":9464", "--metrics-push", "http://u:pw@127.0.0.1:9090/api/v1/write",
		"--metrics-run", "sizing 64", "--metrics-go"})
	if err != nil || o.Metrics.Addr != ":9464" || o.Metrics.Run != "sizing 64" || !o.Metrics.Go || o.Metrics.Linger != defaultLinger {
		t.Fatalf("good flags: %+v %v", o.Metrics, err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--metrics", "9464"}, `--metrics "9464": expected HOST:PORT, e.g. 127.0.0.1:9464, or :9464 for every interface`},
		{[]string{"run", "--metrics", "somehost:9464"}, `--metrics "somehost:9464": host "somehost" is not an IP address`},
		{[]string{"run", "--metrics"}, "flag --metrics needs a value"},
		{[]string{"run", "--metrics-push", "127.0.0.1:9090"}, `--metrics-push "127.0.0.1:9090": expected an http:// or https:// URL`},
		{[]string{"run", "--metrics-push", "ftp://u:secret@h/x"}, `--metrics-push "ftp://u:****@h/x": expected an http://`},
		{[]string{"run", "--metrics", ":9464", "--metrics-linger", "forever"}, `--metrics-linger "forever": expected a duration from 0s to 1h`},
		{[]string{"run", "--metrics-push", "http://127.0.0.1:9090/api/v1/write", "--metrics-linger", "5s"}, "--metrics-linger goes with --metrics ADDR"},
		{[]string{"run", "--metrics-run", "x"}, "--metrics-run goes with --metrics ADDR or --metrics-push URL"},
		{[]string{"run", "--metrics-go"}, "--metrics-go goes with --metrics ADDR or --metrics-push URL"},
		{[]string{"run", "--metrics", ":1", "--metrics-run", "a\tb"}, `--metrics-run "a\tb": expected a label value`},
	}
	for _, c := range cases {
		_, err := parseArgs(c.args)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("parseArgs(%q) = %v, want %q", c.args, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("the password is in the message: %v", err)
		}
	}
}

// An address in use is bad input: one line, exit status 2, nothing run.
func TestMetricsAddressInUse(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out, errb strings.Builder
	code := run([]string{"run", "memory", "--headless", "-p", "recordcount=100", "--metrics", ln.Addr().String()}, &out, &errb)
	msg := strings.TrimSpace(errb.String())
	if code != 2 || strings.Count(msg, "\n") != 0 || !strings.HasPrefix(msg, "benchtop: --metrics "+ln.Addr().String()+": ") || !strings.HasSuffix(msg, "address already in use") {
		t.Errorf("exit %d, stderr %q: want 2 and one line naming the flag", code, msg)
	}
	if out.Len() != 0 {
		t.Errorf("a report for a run that never started: %q", out.String())
	}
}

// A run with --metrics on a port of the system's choice serves while it
// runs and lingers until scraped twice more after its report: not until
// --metrics-linger (an hour here) ends it.
func TestMetricsServedDuringTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2 s run scraped while it goes on (go test -short skips it)")
	}
	t.Parallel()
	pr, pw := io.Pipe()
	var out strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"run", "memory", "--headless", "-p", "recordcount=100", "-p", "operationcount=0", "--duration", "2s", "-target", "2000",
			"--metrics", "127.0.0.1:0", "--metrics-linger", "1h"}, &out, pw)
		pw.Close()
	}()
	errs := &lockedBuf{}
	go io.Copy(errs, pr)
	poll(t, "the final figures to be served", func() bool { return strings.Contains(errs.String(), "serving the final figures") })
	_, rest, _ := strings.Cut(errs.String(), "serving the final figures at ")
	url, _, _ := strings.Cut(rest, " ")
	for range 2 {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), `benchtop_operations_total{operation="READ",outcome="success",phase="run"`) {
			t.Errorf("the final scrape has no READ total:\n%.600s", b)
		}
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("the run did not end after two scrapes")
	}
}
