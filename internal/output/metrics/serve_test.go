package metrics

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/workload"
)

// fullExporter serves every family: a fleet with agents, a target and
// intended latency, errors, a stream's figures, a push.
func fullExporter(t *testing.T) *Exporter {
	t.Helper()
	rec, srv := newReceiver(t)
	_ = rec
	e, err := New(Config{Run: "scrape-run", Addr: "127.0.0.1:0", Push: srv.URL, Fleet: true, Version: "v1", Adapter: "memory", Workload: "stream"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	e.Start()
	t0 := time.Unix(100, 0)
	set := interval([]int64{2000, 3e6}, []int64{4e6}, []string{"timeout"})
	set.Integrity = 1
	e.AgentInterval("vm1", engine.PhaseRun, opNames, t0, t0.Add(time.Second), set)
	e.Interval(engine.PhaseRun, opNames, t0, t0.Add(time.Second), set)
	e.Snapshot(&engine.Snapshot{Phase: engine.PhaseRun, Time: t0.Add(time.Second), Threads: 2, Partitions: 4, Target: 500, Progress: 0.5,
		Host:     host.Sample{Cores: 2, CPUTotal: 30, NICs: []host.NIC{{Name: "eth0", RxBytesPerSec: 1e6, TxBytesPerSec: 2e6}}},
		Segments: []engine.Segment{{Index: 1}, {Index: 2, Open: true}},
		Agents:   []engine.AgentRow{{Name: "vm1", State: "running", Threads: 2, Target: 500, CPU: 30, RxBytesPerSec: 1e6}},
		Workload: &workload.View{Figures: []workload.Figure{{Name: "records/s", Value: 1000, Unit: "1/s"}},
			Partitions: &workload.PartitionsView{Produced: 10, Consumed: 9, ProducedRate: 10, ConsumedRate: 9, Lag: 1, LagSeconds: 0.1,
				E2E: workload.Latency{Count: 9, P50: time.Millisecond, P95: 2 * time.Millisecond, P99: 3 * time.Millisecond, Max: 4 * time.Millisecond}}},
	})
	var none int64
	e.st.lostRows(&none)
	return e
}

func scrape(t *testing.T, url, accept string) (string, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %s\n%s", url, resp.Status, b)
	}
	return string(b), resp.Header.Get("Content-Type")
}

// /metrics answers in the Prometheus text format, and in OpenMetrics to
// a scraper that asks for it; both parse, and every family the package
// names is in them.
func TestEndpointFormats(t *testing.T) {
	t.Parallel()
	e := fullExporter(t)
	text, ct := scrape(t, e.URL(), "")
	if !strings.HasPrefix(ct, "text/plain") || !strings.Contains(ct, "version=0.0.4") {
		t.Errorf("Content-Type %q, want the text format 0.0.4", ct)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the text format does not parse: %v", err)
	}
	for _, name := range allNames {
		if fams[name] == nil {
			t.Errorf("%s missing from the scrape", name)
		}
	}
	om, ct := scrape(t, e.URL(), "application/openmetrics-text;version=1.0.0")
	if !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("Content-Type %q, want OpenMetrics", ct)
	}
	if !strings.HasSuffix(om, "# EOF\n") || !strings.Contains(om, "# TYPE benchtop_operations counter") {
		t.Errorf("not OpenMetrics:\n%s", om[:min(len(om), 400)])
	}
}

// promtool check metrics finds nothing against Prometheus's conventions
// in a scrape (CI has promtool; elsewhere the test says how to get it).
func TestPromtoolCheckMetrics(t *testing.T) {
	t.Parallel()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("BENCHTOP_REQUIRE_PROMTOOL") != "" {
			t.Fatal("promtool is not on PATH (BENCHTOP_REQUIRE_PROMTOOL is set)")
		}
		t.Skip("promtool is not on PATH: apt-get install prometheus (or bash .ci/servers/prometheus.sh start) to run this test")
	}
	e := fullExporter(t)
	text, _ := scrape(t, e.URL(), "")
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("promtool check metrics: %v\n%s", err, out.String())
	}
}

// Two scrapes answered after Served was read and before Linger began
// (a scraper that read the run's last line at once) end it: they were
// missed, and a run said to linger until scraped twice more waited out
// --metrics-linger on a loaded machine.
func TestLingerCountsScrapesBeforeIt(t *testing.T) {
	e := fullExporter(t)
	served := e.Served()
	scrape(t, e.URL(), "")
	scrape(t, e.URL(), "")
	done := make(chan struct{})
	go func() {
		e.Linger(served, time.Hour, nil)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("still lingering after two scrapes that came before the wait")
	}
}

// The endpoint lingers until scraped twice more, and no longer.
func TestLingerEndsAfterTwoScrapes(t *testing.T) {
	t.Parallel()
	e := fullExporter(t)
	done := make(chan struct{})
	go func() {
		e.Linger(e.Served(), time.Hour, nil)
		close(done)
	}()
	for i := 0; ; i++ {
		select {
		case <-done:
			if i < 2 {
				t.Fatalf("linger ended after %d scrapes", i)
			}
			return
		default:
		}
		if i > 50 {
			t.Fatal("still lingering after 50 scrapes")
		}
		scrape(t, e.URL(), "")
		time.Sleep(10 * time.Millisecond)
	}
}
