package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A real Prometheus (Debian's 2.42, .ci/servers/prometheus.sh) scrapes
// benchtop's --metrics endpoint every second and receives its
// --metrics-push; the tests read back what it stored through its HTTP
// API and hold it to the run's own report and HDR log.

func prometheusOrSkip(t *testing.T) (api, target string) {
	t.Helper()
	api, target = os.Getenv("BENCHTOP_PROMETHEUS_URL"), os.Getenv("BENCHTOP_PROMETHEUS_TARGET")
	if api == "" || target == "" {
		t.Skip("BENCHTOP_PROMETHEUS_URL is not set: start a server with eval \"$(bash .ci/servers/prometheus.sh start)\" to run the metrics tests")
	}
	return api, target
}

// promSample is one series of an instant query's answer: its labels,
// and its value or (for a range selector) its samples.
type promSample struct {
	Metric map[string]string
	Value  []any   // [time, "value"]
	Values [][]any // [[time, "value"], ...]
}

func (s promSample) value(t *testing.T) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s.Value[1].(string), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// promQuery runs an instant query (path "query") or a range query
// ("query_range") with params.
func promQuery(t *testing.T, api, path string, params url.Values) []promSample {
	t.Helper()
	resp, err := http.PostForm(api+"/api/v1/"+path, params)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status, Error string
		Data          struct{ Result []promSample }
	}
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, &r); err != nil || r.Status != "success" {
		t.Fatalf("%s %v: %s %s (%v)", path, params, r.Status, r.Error, err)
	}
	return r.Data.Result
}

// instant evaluates q now.
func instant(t *testing.T, api, q string) []promSample {
	t.Helper()
	return promQuery(t, api, "query", url.Values{"query": {q}})
}

// runMetrics runs the binary with args and returns its report, stderr
// and exit status; whenever stderr says the endpoint lingers, scrape
// (when not nil) gets the endpoint's text first.
func runMetrics(t *testing.T, bin string, scrape func(text string), args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out strings.Builder
	cmd.Stdout = &out
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var errs strings.Builder
	served := regexp.MustCompile(`serving the final figures at (\S+)`)
	sc := bufio.NewScanner(errPipe)
	for sc.Scan() {
		line := sc.Text()
		errs.WriteString(line + "\n")
		if m := served.FindStringSubmatch(line); m != nil && scrape != nil {
			resp, err := http.Get(m[1])
			if err != nil {
				t.Errorf("GET %s while the endpoint lingers: %v", m[1], err)
				continue
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			scrape(string(b))
		}
	}
	err = cmd.Wait()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errs.String(), code
}

// reportCounts are the report's per-operation counts: successes
// (Return=OK), failures (every other Return=) and errors by kind (the
// "# [OP], Errors(kind), N" comment lines).
type reportCounts struct {
	ok, failed int64
	kinds      map[string]int64
}

var reportLine = regexp.MustCompile(`^(?:# )?\[([A-Z-]+)\], (Return=([A-Z_]+)|Errors\((\w+)\)), (\d+)$`)

func readReportCounts(report string) map[string]*reportCounts {
	out := map[string]*reportCounts{}
	for _, l := range strings.Split(report, "\n") {
		m := reportLine.FindStringSubmatch(l)
		if m == nil || strings.HasPrefix(m[1], "INTENDED") {
			continue
		}
		c := out[m[1]]
		if c == nil {
			c = &reportCounts{kinds: map[string]int64{}}
			out[m[1]] = c
		}
		n, _ := strconv.ParseInt(m[5], 10, 64)
		switch {
		case m[3] == "OK":
			c.ok = n
		case m[3] != "":
			c.failed += n
		default:
			c.kinds[m[4]] = n
		}
	}
	return out
}

// checkTotals holds Prometheus's operation and error totals of the run
// phase (sel: the series' selector, e.g. pushed or scraped ones) to the
// report's.
func checkTotals(t *testing.T, api, sel string, report map[string]*reportCounts) {
	t.Helper()
	if len(report) == 0 {
		t.Fatal("no operation counts in the report")
	}
	for op, want := range report {
		got := map[string]float64{}
		for _, s := range instant(t, api, fmt.Sprintf(`last_over_time(benchtop_operations_total{%s, phase="run", operation=%q}[10m])`, sel, op)) {
			got[s.Metric["outcome"]] += s.value(t)
		}
		if got["success"] != float64(want.ok) || got["failure"] != float64(want.failed) {
			t.Errorf("%s {%s}: %v successes, %v failures in Prometheus; the report says %d and %d", op, sel, got["success"], got["failure"], want.ok, want.failed)
		}
		kinds := map[string]float64{}
		for _, s := range instant(t, api, fmt.Sprintf(`last_over_time(benchtop_errors_total{%s, phase="run", operation=%q}[10m])`, sel, op)) {
			kinds[s.Metric["kind"]] += s.value(t)
		}
		for k, v := range kinds {
			if v == 0 {
				delete(kinds, k) // a kind's series is there at 0 before its first error
			}
		}
		for k, n := range want.kinds {
			if kinds[k] != float64(n) {
				t.Errorf("%s {%s}: %v errors of kind %s in Prometheus, the report says %d", op, sel, kinds[k], k, n)
			}
		}
		if len(kinds) != len(want.kinds) {
			t.Errorf("%s {%s}: error kinds %v in Prometheus, the report has %v", op, sel, kinds, want.kinds)
		}
	}
}

// hdrP99 are the p99s of the HDR log's intervals tagged tag, by the
// interval's end (ms since the epoch).
func hdrP99(t *testing.T, path, tag string) map[int64]float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	out := map[int64]float64{}
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			return out
		}
		if h.Tag() == tag {
			out[h.EndTimeMs()] = float64(h.ValueAtQuantile(99)) / 1e9
		}
	}
}

// checkP99 holds every p99 sample Prometheus stored for READ's service
// time (sel: pushed or scraped series) to the HDR log: a sample is the
// p99 of the last interval that ended at or before it; pushed samples
// carry an interval's end as their time.
func checkP99(t *testing.T, api, sel string, log map[int64]float64, pushed bool) {
	t.Helper()
	ends := make([]int64, 0, len(log))
	for e := range log {
		ends = append(ends, e)
	}
	sort.Slice(ends, func(i, j int) bool { return ends[i] < ends[j] })
	res := instant(t, api, fmt.Sprintf(`benchtop_interval_latency_seconds{%s, operation="READ", measure="service", quantile="0.99"}[10m]`, sel))
	if len(res) != 1 {
		t.Fatalf("{%s}: %d p99 series, want 1", sel, len(res))
	}
	matched := 0
	for _, s := range res[0].Values {
		ms := int64(math.Round(s[0].(float64) * 1000))
		v, _ := strconv.ParseFloat(s[1].(string), 64)
		// The interval that ended at the sample's time (the log keeps
		// milliseconds as it writes them: 2 ms of slack; the nearest when
		// two end within them: a last interval, the grace after a tick
		// that passed the stop, can end 1 ms after that tick's), else the
		// last one that ended before it.
		i := sort.Search(len(ends), func(i int) bool { return ends[i] > ms+2 }) - 1
		for j := i - 1; j >= 0 && abs64(ends[j]-ms) <= 2; j-- {
			if abs64(ends[j]-ms) < abs64(ends[i]-ms) {
				i = j
			}
		}
		if pushed && i >= 0 && abs64(ends[i]-ms) <= 2 {
			matched++
		}
		if i >= 0 && log[ends[i]] == v {
			continue
		}
		inLog := false
		for _, p := range log {
			inLog = inLog || p == v
		}
		if pushed || !inLog {
			t.Errorf("{%s}: p99 %v s at %d is no interval's p99 in the HDR log (last interval before it: %v; the log: %v)", sel, v, ms, i, log)
		}
	}
	if len(res[0].Values) < 3 || (pushed && matched < 3) {
		t.Errorf("{%s}: %d p99 samples, %d at an interval's end", sel, len(res[0].Values), matched)
	}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestMetricsInPrometheus(t *testing.T) {
	t.Parallel()
	api, target := prometheusOrSkip(t)
	bin := builtBenchtop(t)
	dir := t.TempDir()
	id := strconv.FormatInt(time.Now().UnixNano(), 36)
	start := time.Now()
	push := []string{"--metrics-push", api + "/api/v1/write", "--metrics-linger", "30s"}
	// sim: a model server with failures of two kinds, under a target
	// (latency from the intended start) with a change half-way.
	sim := []string{"sim", "-P", "../../workloads/workloada", "-p", "recordcount=1000", "-p", "operationcount=0",
		"-p", "sim.capacity=2000", "-p", "sim.latency=5ms", "-p", "sim.errors=0.02", "-p", "sim.notfound=0.05",
		"--duration", "6s", "--headless"}
	runs := map[string]string{"local": "ci-local-" + id, "fleet": "ci-fleet-" + id, "stream": "ci-stream-" + id}

	t.Run("a run scraped and pushed equals its report and HDR log", func(t *testing.T) {
		hlog := filepath.Join(dir, "local.hlog")
		args := append(append([]string{"run"}, sim...), "-threads", "16", "-target", "800", "--at", "3s:threads=20",
			"--metrics", target, "--metrics-run", runs["local"], "--hdr-log", hlog)
		out, errs, code := runMetrics(t, bin, nil, append(args, push...)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, errs, out)
		}
		if !strings.Contains(errs, "intervals sent") || strings.Contains(errs, "failed,") {
			t.Errorf("the push's account: %s", errs)
		}
		report := readReportCounts(out)
		if report["READ"] == nil || report["READ"].failed == 0 {
			t.Fatalf("want READ failures in the report:\n%s", out)
		}
		pushedSel := fmt.Sprintf(`run=%q, instance=""`, runs["local"])
		scrapedSel := fmt.Sprintf(`run=%q, instance=%q`, runs["local"], target)
		checkTotals(t, api, pushedSel, report)
		checkTotals(t, api, scrapedSel, report)
		log := hdrP99(t, hlog, "READ")
		checkP99(t, api, pushedSel, log, true)
		checkP99(t, api, scrapedSel, log, false)
	})

	t.Run("a fleet of three agents: merged and per-agent series on the coordinator", func(t *testing.T) {
		tokenFile := filepath.Join(dir, "token")
		if err := os.WriteFile(tokenFile, []byte(fleetToken+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		var agents []string
		for i := range 3 {
			agents = append(agents, fmt.Sprintf("a%d=%s", i+1, startAgentProc(t, bin).addr))
		}
		var text string
		args := append(append([]string{"run"}, sim...), "-threads", "8", "-target", "600", "--at", "3s:target=900",
			"--agents", strings.Join(agents, ","), "--token-file", tokenFile, "--metrics", target, "--metrics-run", runs["fleet"])
		out, errs, code := runMetrics(t, bin, func(s string) { text = s }, append(args, push...)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, errs, out)
		}
		// The endpoint: the merged READ successes (no agent label) and
		// each agent's, which add up to them.
		re := regexp.MustCompile(`(?m)^benchtop_operations_total\{agent="(a\d)?",operation="READ",outcome="success",phase="run",run="[^"]+"\} (\S+)$`)
		per := map[string]float64{}
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			v, _ := strconv.ParseFloat(m[2], 64)
			per[m[1]] = v
		}
		if len(per) != 4 || per[""] == 0 || per["a1"]+per["a2"]+per["a3"] != per[""] {
			t.Errorf("READ successes on the coordinator's endpoint, merged (\"\") and per agent: %v", per)
		}
		report := readReportCounts(out)
		sel := fmt.Sprintf(`run=%q, instance="", agent=""`, runs["fleet"])
		checkTotals(t, api, sel, report)
		for _, q := range []string{
			`sum by (operation, outcome) (last_over_time(benchtop_operations_total{run=%q, instance="", agent!="", phase="run"}[10m]))`,
			`sum by (operation, outcome) (last_over_time(benchtop_operations_total{run=%q, instance="", agent="", phase="run"}[10m]))`,
		} {
			got := map[string]float64{}
			for _, s := range instant(t, api, fmt.Sprintf(q, runs["fleet"])) {
				got[s.Metric["operation"]+" "+s.Metric["outcome"]] = s.value(t)
			}
			for op, want := range report {
				if got[op+" success"] != float64(want.ok) || got[op+" failure"] != float64(want.failed) {
					t.Errorf("%s: %v; the merged report says %d successes, %d failures", q, got, want.ok, want.failed)
				}
			}
		}
		names := map[string]bool{}
		for _, s := range instant(t, api, fmt.Sprintf(`last_over_time(benchtop_agent_state{run=%q, instance="", state="done"}[10m])`, runs["fleet"])) {
			names[s.Metric["agent"]] = true
		}
		if len(names) != 3 {
			t.Errorf("agents with a state series: %v, want a1, a2, a3", names)
		}
	})

	t.Run("a stream's rows", func(t *testing.T) {
		args := []string{"run", "memory", "-P", "../../workloads/stream-tunnel", "-threads", "2", "--duration", "4s", "--headless",
			"--metrics-run", runs["stream"], "--metrics-push", api + "/api/v1/write"}
		out, errs, code := runMetrics(t, bin, nil, args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, errs, out)
		}
		res := instant(t, api, fmt.Sprintf(`last_over_time(benchtop_stream_rows_total{run=%q, direction="consumed"}[10m])`, runs["stream"]))
		if len(res) != 1 || res[0].value(t) == 0 {
			t.Errorf("consumed rows: %v", res)
		}
		res = instant(t, api, fmt.Sprintf(`last_over_time(benchtop_stream_lost_rows_total{run=%q}[10m])`, runs["stream"]))
		if len(res) != 1 || res[0].value(t) != 0 {
			t.Errorf("lost rows: %v, want one series of 0", res)
		}
	})

	t.Run("every query of the Grafana dashboard returns data", func(t *testing.T) {
		checkDashboard(t, api, runs, start)
	})
}

// checkDashboard runs every query of deploy/grafana/benchtop.json with
// its variables substituted as Grafana would ($__rate_interval: 4 scrape
// intervals) over the tests' time: the agents' and the stream's against
// their runs, the others against the single run and the fleet's.
func checkDashboard(t *testing.T, api string, runs map[string]string, start time.Time) {
	b, err := os.ReadFile("../../deploy/grafana/benchtop.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels      []dashPanel
		Annotations struct{ List []struct{ Expr string } }
		Templating  struct {
			List []struct {
				Name       string
				Definition string
			}
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("the dashboard is not valid JSON: %v", err)
	}
	var exprs []string
	for _, p := range dash.Panels {
		exprs = append(exprs, p.exprs()...)
	}
	for _, a := range dash.Annotations.List {
		if a.Expr != "" {
			exprs = append(exprs, a.Expr)
		}
	}
	if len(exprs) < 20 {
		t.Fatalf("%d queries in the dashboard", len(exprs))
	}
	rangeOf := func(expr, run string) int {
		q := strings.NewReplacer("$run", run, "$agent", "(a1|a2|a3)", "$__rate_interval", "4s").Replace(expr)
		res := promQuery(t, api, "query_range", url.Values{"query": {q}, "start": {strconv.FormatInt(start.Unix(), 10)},
			"end": {strconv.FormatInt(time.Now().Unix()+1, 10)}, "step": {"1"}})
		return len(res)
	}
	for _, e := range exprs {
		var want []string
		switch {
		case strings.Contains(e, "benchtop_stream"):
			want = []string{runs["stream"]}
		case strings.Contains(e, "$agent"):
			want = []string{runs["fleet"]}
		default:
			want = []string{runs["local"], runs["fleet"]}
		}
		for _, run := range want {
			if rangeOf(e, run) == 0 {
				t.Errorf("no data for run %s: %s", run, e)
			}
		}
	}
	// The variables: runs from benchtop_info, agents from benchtop_threads.
	for _, v := range dash.Templating.List {
		m := regexp.MustCompile(`^label_values\((.*), (\w+)\)$`).FindStringSubmatch(v.Definition)
		if v.Name == "datasource" {
			continue
		}
		if m == nil {
			t.Errorf("variable %s: %q is not label_values(SELECTOR, LABEL)", v.Name, v.Definition)
			continue
		}
		sel := strings.ReplaceAll(m[1], "$run", runs["fleet"])
		vals := map[string]bool{}
		for _, s := range instant(t, api, "last_over_time("+sel+"[10m])") {
			vals[s.Metric[m[2]]] = true
		}
		for _, want := range map[string][]string{"run": {runs["local"], runs["fleet"], runs["stream"]}, "agent": {"a1", "a2", "a3"}}[v.Name] {
			if !vals[want] {
				t.Errorf("variable %s offers %v, not %s", v.Name, vals, want)
			}
		}
	}
}

// dashPanel is a panel of the dashboard, with the panels of a row.
type dashPanel struct {
	Targets []struct{ Expr string }
	Panels  []dashPanel
}

func (p dashPanel) exprs() []string {
	var out []string
	for _, t := range p.Targets {
		out = append(out, t.Expr)
	}
	for _, c := range p.Panels {
		out = append(out, c.exprs()...)
	}
	return out
}
