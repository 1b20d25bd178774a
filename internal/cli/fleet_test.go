package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	goredis "github.com/redis/go-redis/v9"

	"benchtop/engine"
	"benchtop/fleet"
)

// Real processes against a real server: agents are this package's binary,
// built once for the package (builtBenchtop).

const fleetToken = "fleet-test-token-0123456789abcdef"

// lockedBuf collects a process's stderr.
type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// agentProc is one `benchtop agent` process.
type agentProc struct {
	addr string
	cmd  *exec.Cmd
	log  *lockedBuf
}

var listenRE = regexp.MustCompile(`listening on (\S+)`)

// startAgentProc starts an agent on a free loopback port, the token in
// its environment, and waits for it to listen.
func startAgentProc(t *testing.T, bin string) *agentProc {
	t.Helper()
	return startAgentArgs(t, bin, []string{"agent", "--listen", "127.0.0.1:0"})
}

// startAgentArgs starts the binary with args as startAgentProc does.
func startAgentArgs(t *testing.T, bin string, args []string) *agentProc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), fleet.TokenEnv+"="+fleetToken)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	a := &agentProc{cmd: cmd, log: &lockedBuf{}}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		pw.Close()
	})
	addrCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(a.log, line)
			if m := listenRE.FindStringSubmatch(line); m != nil {
				select {
				case addrCh <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case a.addr = <-addrCh:
	case <-time.After(30 * time.Second):
		t.Fatalf("agent did not listen: %s", a.log.String())
	}
	return a
}

func redisOrSkip(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("BENCHTOP_REDIS_ADDR")
	if addr == "" {
		t.Skip("BENCHTOP_REDIS_ADDR is not set: start a server with eval \"$(bash .ci/servers/redis.sh start)\" to run the fleet tests")
	}
	return addr
}

// runBenchtop runs the binary as the coordinator and returns its stdout,
// stderr and exit status.
func runBenchtop(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// ycsbValue reads "[SECTION], metric, value" from a report.
func ycsbValue(t *testing.T, report, section, metric string) int64 {
	t.Helper()
	prefix := "[" + section + "], " + metric + ", "
	for _, l := range strings.Split(report, "\n") {
		if v, ok := strings.CutPrefix(l, prefix); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("%s: %v", l, err)
			}
			return int64(n)
		}
	}
	t.Fatalf("no %q in the report:\n%s", prefix, report)
	return 0
}

type fleetJSON struct {
	Agents []struct {
		Name   string
		State  string
		Reason string
		Host   fleet.HostFacts
		Share  fleet.Share
		Phases []fleet.PhaseFigures
		Report string
	}
}

func readFleetJSON(t *testing.T, path string) fleetJSON {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f fleetJSON
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// hlogMerge merges, with hdrhistogram-go alone, every histogram of the
// log whose tag matches.
func hlogMerge(t *testing.T, path string, match func(tag string) bool) *hdr.Histogram {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	var sum *hdr.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		if !match(h.Tag()) {
			continue
		}
		if sum == nil {
			sum = hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
		}
		if dropped := sum.Merge(h); dropped != 0 {
			t.Fatalf("merge dropped %d values", dropped)
		}
	}
	if sum == nil {
		t.Fatalf("no histogram in %s matched", path)
	}
	return sum
}

func TestFleetRedis(t *testing.T) {
	t.Parallel()
	raddr := redisOrSkip(t)
	bin := builtBenchtop(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(fleetToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for range 3 {
		addrs = append(addrs, startAgentProc(t, bin).addr)
	}
	table := fmt.Sprintf("fleet%d", rand.Uint32())
	const records = 600
	common := []string{"redis", "-P", "../../workloads/workloada", "-p", "redis.addr=" + raddr, "-p", "table=" + table,
		"-p", "recordcount=" + strconv.Itoa(records), "-p", "requestdistribution=uniform",
		"--agents", strings.Join(addrs, ","), "--token-file", tokenFile}

	t.Run("load splits the key range", func(t *testing.T) {
		js := filepath.Join(dir, "load.json")
		out, errs, code := runBenchtop(t, bin, append([]string{"load"}, append(common, "-threads", "2", "--json", js)...)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, errs, out)
		}
		if n := ycsbValue(t, out, "INSERT", "Operations"); n != records {
			t.Errorf("merged inserts = %d, want %d", n, records)
		}
		rc := goredis.NewClient(&goredis.Options{Addr: raddr})
		defer rc.Close()
		ctx := context.Background()
		var keys int
		iter := rc.Scan(ctx, 0, table+":*", 1000).Iterator()
		for iter.Next(ctx) {
			keys++
		}
		if err := iter.Err(); err != nil {
			t.Fatal(err)
		}
		if keys != records {
			t.Errorf("the server holds %d records of table %s, want exactly recordcount %d", keys, table, records)
		}
		if n, err := rc.ZCard(ctx, "benchtop:index:"+table).Result(); err != nil || n != records {
			t.Errorf("index holds %d keys (%v), want %d", n, err, records)
		}
		f := readFleetJSON(t, js)
		next := int64(0)
		for _, a := range f.Agents {
			if a.Share.InsertStart != next || a.Share.InsertCount != records/3 {
				t.Errorf("agent %s loaded insertstart %d insertcount %d, want %d and %d", a.Name, a.Share.InsertStart, a.Share.InsertCount, next, records/3)
			}
			next += a.Share.InsertCount
			if a.Host.Cores == 0 || a.Host.Hostname == "" {
				t.Errorf("agent %s: no host facts: %+v", a.Name, a.Host)
			}
		}
	})

	t.Run("run merges exactly", func(t *testing.T) {
		js, hl := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.hlog")
		out, errs, code := runBenchtop(t, bin, append([]string{"run"}, append(common, "-threads", "2",
			"-p", "operationcount=1500", "--json", js, "--hdr-log", hl)...)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, errs, out)
		}
		merged := ycsbValue(t, out, "READ", "Operations") + ycsbValue(t, out, "UPDATE", "Operations")
		f := readFleetJSON(t, js)
		var sum int64
		for _, a := range f.Agents {
			for _, p := range a.Phases {
				sum += p.Operations
			}
			if a.Share.OperationCount != 500 {
				t.Errorf("agent %s: operationcount %d, want 1500/3", a.Name, a.Share.OperationCount)
			}
			if !strings.Contains(a.Report, "[OVERALL], Throughput(ops/sec)") {
				t.Errorf("agent %s: no YCSB report of its own in the JSON", a.Name)
			}
		}
		if merged != 1500 || sum != merged {
			t.Errorf("merged operations %d, agents' sum %d, operationcount 1500", merged, sum)
		}
		// The merged p99 is the p99 of every agent's values in one
		// histogram: merged here from the agents' own HDR log lines.
		for _, op := range []string{"READ", "UPDATE"} {
			h := hlogMerge(t, hl, func(tag string) bool { return strings.HasSuffix(tag, "/"+op) })
			if h.TotalCount() != ycsbValue(t, out, op, "Return=OK") {
				t.Errorf("%s: the agents' logs hold %d values, the report %d", op, h.TotalCount(), ycsbValue(t, out, op, "Return=OK"))
			}
			if want, got := h.ValueAtQuantile(99)/1000, ycsbValue(t, out, op, "99thPercentileLatency(us)"); got != want {
				t.Errorf("%s p99: report %d µs, agents' histograms merged independently %d µs", op, got, want)
			}
		}
	})

	t.Run("--baseline: the comparison in the text, JSON and HTML", func(t *testing.T) {
		base := filepath.Join(dir, "run.json")
		if _, err := os.Stat(base); err != nil {
			t.Skip("no run.json: the run above failed")
		}
		js, page := filepath.Join(dir, "vs.json"), filepath.Join(dir, "vs.html")
		out, errs, code := runBenchtop(t, bin, append([]string{"run"}, append(common, "-threads", "2",
			"-p", "operationcount=600", "--baseline", base, "--json", js, "--html", page)...)...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, errs, out)
		}
		if !strings.Contains(out, "# baseline: run.json: throughput ") {
			t.Errorf("no '# baseline:' line after the fleet's report:\n%s", out)
		}
		var doc struct {
			Baseline *struct {
				JSON string `json:"json"`
			} `json:"baseline"`
		}
		b, _ := os.ReadFile(js)
		if err := json.Unmarshal(b, &doc); err != nil || doc.Baseline == nil || doc.Baseline.JSON != base {
			t.Errorf("the fleet's JSON does not name the baseline (%v): %+v", err, doc.Baseline)
		}
		if html, _ := os.ReadFile(page); !bytes.Contains(html, []byte(`id="chart-compare-throughput"`)) {
			t.Error("the fleet's --html page is not the comparison")
		}
	})

	t.Run("controls reach every agent", func(t *testing.T) {
		cfg, props := fleetConfig(t, raddr, table, map[string]string{"target": "3000", "threadcount": "1", "maxexecutiontime": "6"})
		var mu sync.Mutex
		var snaps []*engine.Snapshot
		cc := fleet.CoordConfig{Config: cfg, Props: props, Token: fleetToken, Agents: tcpEndpoints(addrs),
			OnSnapshot: []func(*engine.Snapshot){func(s *engine.Snapshot) { mu.Lock(); snaps = append(snaps, s); mu.Unlock() }}}
		c, err := fleet.Connect(context.Background(), cc)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for range c.Snapshots() {
			}
		}()
		type changed struct{ seq int }
		at := make(chan changed, 1)
		go func() {
			// The `+` key: one more thread than the screen shows.
			for {
				time.Sleep(100 * time.Millisecond)
				mu.Lock()
				n := len(snaps)
				var s *engine.Snapshot
				if n > 0 {
					s = snaps[n-1]
				}
				mu.Unlock()
				if s != nil && s.Seq >= 2 && s.Phase == engine.PhaseRun {
					_ = c.SetThreads(s.Threads + 1)
					at <- changed{s.Seq}
					return
				}
			}
		}()
		res, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		k := (<-at).seq
		// Within one interval: by the interval after the one in progress
		// when the key was pressed, every agent runs 2 threads.
		seen := map[string]int{}
		for _, s := range snaps {
			for _, r := range s.Agents {
				if r.Threads == 2 && seen[r.Name] == 0 {
					seen[r.Name] = s.Seq
				}
				if r.Target != 1000 && r.State == fleet.StateRunning {
					t.Errorf("interval %d: agent %s runs a target of %v, want 3000/3", s.Seq, r.Name, r.Target)
				}
			}
		}
		for _, a := range addrs {
			name := tcpName(addrs, a)
			if seen[name] == 0 || seen[name] > k+2 {
				t.Errorf("agent %s: 2 threads from interval %d; + was pressed after interval %d", name, seen[name], k)
			}
		}
		// Counts bounded by the schedule: at 1000 ops/s an agent does at
		// most one operation per ms of its run (plus one per thread).
		for _, a := range c.Agents() {
			if a.Share.Target != 1000 {
				t.Errorf("agent %s: target share %v, want 1000", a.Name, a.Share.Target)
			}
			for _, p := range a.Phases {
				limit := int64(p.RunTime.Seconds()*1000) + 2 + 1
				if p.Operations <= 0 || p.Operations > limit {
					t.Errorf("agent %s: %d operations in %s at 1000 ops/s (at most %d)", a.Name, p.Operations, p.RunTime, limit)
				}
			}
		}
		if len(res) == 0 || res[len(res)-1].Set.Ops == 0 {
			t.Errorf("no merged run")
		}
	})

	t.Run("kill -9 of one agent", func(t *testing.T) {
		// Agents of their own: one will die.
		var procs []*agentProc
		var paddrs []string
		for range 3 {
			p := startAgentProc(t, bin)
			procs = append(procs, p)
			paddrs = append(paddrs, p.addr)
		}
		cfg, props := fleetConfig(t, raddr, table, map[string]string{"maxexecutiontime": "6", "threadcount": "1"})
		var mu sync.Mutex
		var snaps []*engine.Snapshot
		cc := fleet.CoordConfig{Config: cfg, Props: props, Token: fleetToken, Agents: tcpEndpoints(paddrs),
			OnSnapshot: []func(*engine.Snapshot){func(s *engine.Snapshot) { mu.Lock(); snaps = append(snaps, s); mu.Unlock() }}}
		c, err := fleet.Connect(context.Background(), cc)
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			for range c.Snapshots() {
			}
		}()
		killed := make(chan int, 1)
		go func() {
			for {
				time.Sleep(50 * time.Millisecond)
				mu.Lock()
				n := len(snaps)
				mu.Unlock()
				if n >= 2 {
					_ = procs[1].cmd.Process.Signal(syscall.SIGKILL)
					killed <- snaps[n-1].Seq
					return
				}
			}
		}()
		res, err := c.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		k := <-killed
		victim := tcpName(paddrs, paddrs[1])
		lostAt := 0
		for _, s := range snaps {
			for _, r := range s.Agents {
				if r.Name == victim && r.State == fleet.StateLost && lostAt == 0 {
					lostAt = s.Seq
				}
			}
		}
		if lostAt == 0 || lostAt > k+2 {
			t.Errorf("agent %s killed after interval %d, shown lost at %d (want within 2 intervals)", victim, k, lostAt)
		}
		last := snaps[len(snaps)-1]
		for _, r := range last.Agents {
			if r.Name != victim && r.State != fleet.StateDone {
				t.Errorf("agent %s ended %s, want done", r.Name, r.State)
			}
		}
		if lost := c.Lost(); len(lost) != 1 || !strings.HasPrefix(lost[0], victim+" ") {
			t.Errorf("lost = %v, want %s", lost, victim)
		}
		if len(res) == 0 || res[len(res)-1].Final.Seq <= lostAt {
			t.Errorf("the run did not go on after the loss")
		}
	})

	t.Run("exit status and report of a lost agent", func(t *testing.T) {
		p := startAgentProc(t, bin)
		q := startAgentProc(t, bin)
		go func() {
			for !strings.Contains(q.log.String(), "run from") {
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(1500 * time.Millisecond)
			_ = q.cmd.Process.Signal(syscall.SIGKILL)
		}()
		out, errs, code := runBenchtop(t, bin, append([]string{"run"}, "redis", "-P", "../../workloads/workloada", "-p", "redis.addr="+raddr,
			"-p", "table="+table, "-p", "recordcount=600", "-p", "maxexecutiontime=4", "-p", "operationcount=0",
			"--agents", p.addr+","+q.addr, "--token-file", tokenFile)...)
		if code != exitIncomplete {
			t.Errorf("exit status %d, want %d (incomplete)\n%s", code, exitIncomplete, errs)
		}
		qn := tcpName([]string{p.addr, q.addr}, q.addr)
		if !strings.Contains(out, "[AGENT "+qn+"], State, lost") || !strings.Contains(out, "[FLEET], Lost, 1") {
			t.Errorf("the report does not list %s as lost:\n%s", qn, out)
		}
		if !strings.Contains(errs, "incomplete run: 1 of 2 agents lost") {
			t.Errorf("stderr does not say the run was incomplete:\n%s", errs)
		}
	})

	t.Run("a wrong token is refused on both sides", func(t *testing.T) {
		p := startAgentProc(t, bin)
		bad := filepath.Join(dir, "bad-token")
		_ = os.WriteFile(bad, []byte("not-the-token-0123456789"), 0o600)
		out, errs, code := runBenchtop(t, bin, "run", "redis", "-p", "redis.addr="+raddr, "-p", "redis.password=hunter2-secret",
			"--agents", p.addr, "--token-file", bad)
		if code == 0 || !strings.Contains(errs, "wrong token") {
			t.Errorf("exit %d, stderr %q: want a wrong token refusal", code, errs)
		}
		time.Sleep(100 * time.Millisecond)
		if !strings.Contains(p.log.String(), "refused coordinator") || strings.Contains(p.log.String()+out+errs, "hunter2") {
			t.Errorf("agent log %q: want the refusal and no credential", p.log.String())
		}
	})
}

// fleetConfig is a run of workload A on the test's table, validated.
func fleetConfig(t *testing.T, raddr, table string, extra map[string]string) (*engine.Config, map[string]string) {
	t.Helper()
	props, err := engine.LoadPropertiesFile("../../workloads/workloada")
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"redis.addr": raddr, "table": table, "recordcount": "600", "operationcount": "0",
		"requestdistribution": "uniform", "status.interval": "1"} {
		props[k] = v
	}
	for k, v := range extra {
		props[k] = v
	}
	cfg, _, err := engine.NewConfig("run", "redis", props)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, props
}

func tcpEndpoints(addrs []string) []fleet.Endpoint {
	var eps []fleet.Endpoint
	for i, n := range fleet.Names(addrs) {
		eps = append(eps, fleet.TCPEndpoint(n, addrs[i], nil))
	}
	return eps
}

func tcpName(addrs []string, addr string) string {
	for i, n := range fleet.Names(addrs) {
		if addrs[i] == addr {
			return n
		}
	}
	return addr
}
