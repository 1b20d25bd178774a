package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/fleet"
	"benchtop/internal/output"
	"benchtop/workload"
	"benchtop/workload/stream"
)

// streamConfig is a stream run on Redis Streams, validated.
func streamConfig(t *testing.T, raddr string, extra map[string]string) (*engine.Config, map[string]string) {
	t.Helper()
	props := map[string]string{"workload": "stream", "redis.addr": raddr, "threadcount": "1", "status.interval": "1",
		"maxexecutiontime": "6", "stream.maxlag": "20000"}
	for k, v := range extra {
		props[k] = v
	}
	cfg, _, err := engine.NewConfig("run", "redis", props)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, props
}

// snapLog collects a coordinator's merged snapshots.
type snapLog struct {
	mu    sync.Mutex
	snaps []*engine.Snapshot
}

func (l *snapLog) add(s *engine.Snapshot) { l.mu.Lock(); l.snaps = append(l.snaps, s); l.mu.Unlock() }

// last is the latest run-phase snapshot, nil before the first.
func (l *snapLog) last() *engine.Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := len(l.snaps) - 1; i >= 0; i-- {
		if l.snaps[i].Phase == engine.PhaseRun {
			return l.snaps[i]
		}
	}
	return nil
}

func (l *snapLog) all() []*engine.Snapshot {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]*engine.Snapshot(nil), l.snaps...)
}

// runCoord connects to the agents, calls act (in its own goroutine) once
// the run has merged interval 2, and runs the fleet to its end.
func runCoord(t *testing.T, cfg *engine.Config, props map[string]string, addrs []string, act func(c *fleet.Coordinator, s *engine.Snapshot)) (*fleet.Coordinator, []*engine.PhaseResult, *snapLog) {
	t.Helper()
	log := &snapLog{}
	cc := fleet.CoordConfig{Config: cfg, Props: props, Token: fleetToken, Agents: tcpEndpoints(addrs),
		OnSnapshot: []func(*engine.Snapshot){log.add}}
	c, err := fleet.Connect(context.Background(), cc)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.Snapshots() {
		}
	}()
	acted := make(chan struct{})
	go func() {
		defer close(acted)
		for {
			time.Sleep(50 * time.Millisecond)
			if s := log.last(); s != nil && s.Seq >= 2 {
				act(c, s)
				return
			}
		}
	}()
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	<-acted
	return c, res, log
}

// streamSummary is the merged run's stream verdict.
func streamSummary(t *testing.T, res []*engine.PhaseResult) *stream.Summary {
	t.Helper()
	if len(res) == 0 || res[len(res)-1].Closing == nil {
		t.Fatal("the merged run has no closing section")
	}
	s, ok := res[len(res)-1].Closing.JSON.(*stream.Summary)
	if !ok {
		t.Fatalf("closing section %T, want *stream.Summary", res[len(res)-1].Closing.JSON)
	}
	return s
}

func TestFleetStreamRedis(t *testing.T) {
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

	t.Run("partitions divided, every row once", func(t *testing.T) {
		js := filepath.Join(dir, "stream.json")
		out, errs, code := runBenchtop(t, bin, "run", "redis", "-p", "workload=stream", "-p", "redis.addr="+raddr,
			"-p", "partitions=8", "-p", "maxexecutiontime=3", "-p", "stream.maxlag=20000", "-threads", "1",
			"--agents", strings.Join(addrs, ","), "--token-file", tokenFile, "--json", js)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, errs, out)
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Stream stream.Summary
			Agents []struct {
				Name    string
				Share   fleet.Share
				Summary struct{ Stream stream.Summary }
			}
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		var parts int
		var produced, consumed int64
		for i, a := range doc.Agents {
			if want := int(workload.Portion(8, i, 3)); a.Share.Partitions != want || a.Summary.Stream.PartitionsFinal != want {
				t.Errorf("agent %s: %d partitions (its stream %d), want its portion %d", a.Name, a.Share.Partitions, a.Summary.Stream.PartitionsFinal, want)
			}
			parts += a.Share.Partitions
			produced += a.Summary.Stream.Produced
			consumed += a.Summary.Stream.Consumed
			if a.Summary.Stream.Consumed == 0 {
				t.Errorf("agent %s consumed nothing", a.Name)
			}
		}
		s := doc.Stream
		if parts != 8 || s.PartitionsFinal != 8 {
			t.Errorf("partitions: agents' %d, merged %d, want 8", parts, s.PartitionsFinal)
		}
		if s.Produced == 0 || s.Consumed != s.Produced || s.Lost != 0 || s.Duplicated != 0 || s.OutOfOrder != 0 {
			t.Errorf("merged verdict: produced %d consumed %d lost %d duplicated %d out of order %d", s.Produced, s.Consumed, s.Lost, s.Duplicated, s.OutOfOrder)
		}
		if s.Produced != produced || s.Consumed != consumed {
			t.Errorf("merged produced/consumed %d/%d, the agents' sums %d/%d", s.Produced, s.Consumed, produced, consumed)
		}
		if got := ycsbValue(t, out, "STREAM", "RowsConsumed"); got != consumed {
			t.Errorf("report RowsConsumed %d, agents' sum %d", got, consumed)
		}
		if !strings.Contains(out, "# fleet: 3 agents, Threads 1/agent (3 total)") {
			t.Errorf("the report's header does not give the threads per agent:\n%s", out)
		}
	})

	t.Run("a partition count below the agent count is refused", func(t *testing.T) {
		_, errs, code := runBenchtop(t, bin, "run", "redis", "-p", "workload=stream", "-p", "redis.addr="+raddr,
			"-p", "partitions=2", "--agents", strings.Join(addrs, ","), "--token-file", tokenFile)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "partitions") || !strings.Contains(errs, "at least one per agent (3)") {
			t.Errorf("exit %d, stderr %q: want one line about partitions, exit 2", code, errs)
		}
	})

	t.Run("] re-divides live", func(t *testing.T) {
		cfg, props := streamConfig(t, raddr, map[string]string{"partitions": "6"})
		var below, saveErr error
		var saved string
		t.Chdir(t.TempDir()) // the s key writes into the current folder
		c, res, log := runCoord(t, cfg, props, addrs, func(c *fleet.Coordinator, s *engine.Snapshot) {
			saved, saveErr = output.SaveFleet(c, &output.Exports{}) // the s key
			below = c.SetPartitions(2)
			if err := c.SetPartitions(s.Partitions + 1); err != nil { // the ] key
				t.Errorf("SetPartitions(%d): %v", s.Partitions+1, err)
			}
		})
		if saveErr != nil {
			t.Errorf("s: %v", saveErr)
		}
		txt, _ := filepath.Glob("benchtop-report-*.txt")
		js, _ := filepath.Glob("benchtop-report-*.json")
		if len(txt) != 1 || len(js) != 1 || !strings.Contains(saved, ".txt and .json") {
			t.Fatalf("s saved %q: %v %v", saved, txt, js)
		}
		if b, _ := os.ReadFile(txt[0]); !strings.Contains(string(b), "[FLEET], Agents, 3") || !strings.Contains(string(b), "[PRODUCE], Operations") {
			t.Errorf("the saved report lacks the merged run or its agents:\n%s", b)
		}
		var doc struct {
			Agents     []json.RawMessage
			Operations []struct{ Name string }
		}
		if b, _ := os.ReadFile(js[0]); json.Unmarshal(b, &doc) != nil || len(doc.Agents) != 3 || len(doc.Operations) == 0 {
			t.Errorf("the saved JSON has %d agents and %d operations, want 3 and some", len(doc.Agents), len(doc.Operations))
		}
		if below == nil || !strings.Contains(below.Error(), "fewer than the 3 agents") {
			t.Errorf("SetPartitions(2) with 3 agents: %v, want a refusal", below)
		}
		if !c.Divided() {
			t.Fatal("Redis Streams' partitions are not divided")
		}
		// Every agent ends with its portion of 7, and the fleet shows 7.
		last := log.all()
		final := last[len(last)-1]
		if final.Partitions != 7 {
			t.Errorf("the fleet's partitions end at %d, want 7", final.Partitions)
		}
		for i, r := range final.Agents {
			if want := int(workload.Portion(7, i, 3)); r.Partitions != want {
				t.Errorf("agent %s ends with %d partitions, want %d of 7", r.Name, r.Partitions, want)
			}
		}
		var seen bool
		for _, e := range res[len(res)-1].Events {
			if e.Kind == "partitions" && e.From == "6" && e.To == "7" {
				seen = true
			}
		}
		if !seen {
			t.Errorf("no partitions 6→7 event: %v", res[len(res)-1].Events)
		}
		s := streamSummary(t, res)
		if s.Produced == 0 || s.Consumed != s.Produced || s.Lost != 0 || s.Duplicated != 0 || s.OutOfOrder != 0 {
			t.Errorf("merged verdict: produced %d consumed %d lost %d duplicated %d out of order %d", s.Produced, s.Consumed, s.Lost, s.Duplicated, s.OutOfOrder)
		}
	})

	t.Run("a lost agent's target goes to the others", func(t *testing.T) {
		var procs []*agentProc
		var paddrs []string
		for range 3 {
			p := startAgentProc(t, bin)
			procs, paddrs = append(procs, p), append(paddrs, p.addr)
		}
		cfg, props := streamConfig(t, raddr, map[string]string{"partitions": "3", "target": "3000", "maxexecutiontime": "7"})
		killedAt := 0
		_, res, log := runCoord(t, cfg, props, paddrs, func(_ *fleet.Coordinator, s *engine.Snapshot) {
			killedAt = s.Seq
			_ = procs[1].cmd.Process.Signal(syscall.SIGKILL)
		})
		victim := tcpName(paddrs, paddrs[1])
		raised := map[string]int{}
		for _, s := range log.all() {
			if s.Phase != engine.PhaseRun {
				continue
			}
			if s.Target != 3000 {
				t.Errorf("interval %d: the fleet's target is %v, want 3000 throughout", s.Seq, s.Target)
			}
			for _, r := range s.Agents {
				switch {
				case r.Name == victim || r.State != fleet.StateRunning:
				case s.Seq <= killedAt && r.Target != 1000:
					t.Errorf("interval %d: agent %s target %v before the loss, want 1000", s.Seq, r.Name, r.Target)
				case r.Target == 1500 && raised[r.Name] == 0:
					raised[r.Name] = s.Seq
				}
			}
		}
		for _, a := range paddrs {
			if name := tcpName(paddrs, a); name != victim && raised[name] == 0 {
				t.Errorf("agent %s never ran 1500/s after %s was lost (killed after interval %d)", name, victim, killedAt)
			}
		}
		want := fmt.Sprintf("agent %s lost: target 1000/s per agent → 1500/s", victim)
		var seen bool
		for _, e := range res[len(res)-1].Events {
			seen = seen || e.Text == want
		}
		if !seen {
			t.Errorf("no %q event: %v", want, res[len(res)-1].Events)
		}
	})
}
