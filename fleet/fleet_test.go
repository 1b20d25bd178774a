package fleet

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	_ "benchtop/adapters/memory"
	"benchtop/engine"
	"benchtop/engine/measure"
	_ "benchtop/workload/ycsb"
)

const testToken = "0123456789abcdef0123456789abcdef"

// syncBuf is a log both sides may write to.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startAgents serves n agents on loopback in this process.
func startAgents(t *testing.T, n int, token string, log *syncBuf) []Endpoint {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	var eps []Endpoint
	var addrs []string
	for range n {
		ln, err := Listen("127.0.0.1:0", token, nil)
		if err != nil {
			t.Fatal(err)
		}
		go ServeListener(ctx, ln, AgentConfig{Token: token, Log: log, Version: "test"})
		addrs = append(addrs, ln.Addr().String())
	}
	for i, name := range Names(addrs) {
		eps = append(eps, TCPEndpoint(name, addrs[i], nil))
	}
	return eps
}

func memoryRun(t *testing.T, command string, extra map[string]string) (*engine.Config, map[string]string) {
	t.Helper()
	props := map[string]string{
		"workload": "core", "recordcount": "500", "operationcount": "3000",
		"readproportion": "0.5", "updateproportion": "0.5", "requestdistribution": "uniform",
		"status.interval": "0.2", "threadcount": "2",
	}
	for k, v := range extra {
		props[k] = v
	}
	cfg, _, err := engine.NewConfig(command, "memory", props)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, props
}

func TestFleetMergesExactly(t *testing.T) {
	t.Parallel()
	log := &syncBuf{}
	eps := startAgents(t, 3, testToken, log)
	cfg, props := memoryRun(t, "run", nil)
	var perAgent = map[string]*measure.Set{}
	var mu sync.Mutex
	var snaps []*engine.Snapshot
	cc := CoordConfig{Config: cfg, Props: props, Label: "test", Token: testToken, Agents: eps, Log: log,
		OnAgentInterval: []func(string, engine.Phase, []string, time.Time, time.Time, *measure.Set){
			func(name string, p engine.Phase, _ []string, _, _ time.Time, s *measure.Set) {
				if p != engine.PhaseRun {
					return
				}
				mu.Lock()
				defer mu.Unlock()
				if perAgent[name] == nil {
					perAgent[name] = &measure.Set{}
				}
				perAgent[name].Merge(s)
			}},
		OnSnapshot: []func(*engine.Snapshot){func(s *engine.Snapshot) { snaps = append(snaps, s) }},
	}
	ctx := context.Background()
	c, err := Connect(ctx, cc)
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.Snapshots() {
		}
	}()
	res, err := c.Run(ctx)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	if len(res) != 2 {
		t.Fatalf("phases = %d, want load and run (memory loads first)", len(res))
	}
	run := res[1]
	if run.Set.Ops != 3000 {
		t.Errorf("merged run ops = %d, want operationcount 3000", run.Set.Ops)
	}
	var sum int64
	all := &measure.Set{}
	for _, a := range c.Agents() {
		if a.State != StateDone {
			t.Errorf("agent %s: state %s (%s)", a.Name, a.State, a.Reason)
		}
		if a.Share.OperationCount != 1000 {
			t.Errorf("agent %s: operationcount share %d, want 1000", a.Name, a.Share.OperationCount)
		}
		for _, f := range a.Phases {
			if f.Phase == engine.PhaseRun {
				sum += f.Operations
			}
		}
		if !strings.Contains(a.Report, "[OVERALL], RunTime(ms)") {
			t.Errorf("agent %s: no YCSB report", a.Name)
		}
		all.Merge(perAgent[a.Name])
	}
	if sum != run.Set.Ops {
		t.Errorf("sum of agents' run ops = %d, merged %d", sum, run.Set.Ops)
	}
	if !all.Equal(run.Set) {
		t.Errorf("merged run set differs from the agents' intervals merged")
	}
	last := snaps[len(snaps)-1]
	if !last.Done || len(last.Agents) != 3 {
		t.Errorf("last snapshot: done %v, %d agent rows", last.Done, len(last.Agents))
	}
}

func TestWrongTokenRefused(t *testing.T) {
	t.Parallel()
	log := &syncBuf{}
	eps := startAgents(t, 1, testToken, log)
	cfg, props := memoryRun(t, "run", nil)
	_, err := Connect(context.Background(), CoordConfig{Config: cfg, Props: props, Token: "another-token-0123456789", Agents: eps})
	if err == nil || !strings.Contains(err.Error(), "wrong token") {
		t.Fatalf("err = %v, want a wrong token refusal", err)
	}
	time.Sleep(50 * time.Millisecond)
	if !strings.Contains(log.String(), "refused coordinator") || !strings.Contains(log.String(), "wrong token") {
		t.Errorf("agent log = %q, want the refusal logged", log.String())
	}
}
