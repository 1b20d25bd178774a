package fleet

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/workload"
	"benchtop/workload/stream"
)

// The test's shared store: the memory adapter under another name, which
// declares SharedPartitions, and whose streams act as one imagined
// shared stream of every agent in the process: growing it takes a while,
// and a growth asked while another is under way counts as a second one
// (what Kafka would be asked twice).
const sharedTestAdapter = "fleettest-shared"

var sharedStore struct {
	mu      sync.Mutex
	parts   int
	growing bool
	grows   int
}

func init() {
	adapters.Register(adapters.Driver{Name: sharedTestAdapter, Description: "test: memory streams declaring shared partitions",
		Open: func(ctx context.Context, p adapters.Properties) (adapters.DB, error) {
			db, err := adapters.Open(ctx, "memory", p)
			if err != nil {
				return nil, err
			}
			return sharedMem{db}, nil
		},
		Fleet: func(adapters.Properties) map[string]string { return map[string]string{"fleettest.name": "shared-1"} },
	})
}

type sharedMem struct{ adapters.DB }

func (sharedMem) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{SharedPartitions: true}
}

func (d sharedMem) OpenStream(ctx context.Context, name string, n int) (adapters.Stream, error) {
	s, err := d.DB.(adapters.Streamer).OpenStream(ctx, name, n)
	if err != nil {
		return nil, err
	}
	sharedStore.mu.Lock()
	sharedStore.parts = max(sharedStore.parts, n)
	sharedStore.mu.Unlock()
	return growCounting{s}, nil
}

type growCounting struct{ adapters.Stream }

func (s growCounting) EnsurePartitions(ctx context.Context, n int) error {
	st := &sharedStore
	st.mu.Lock()
	switch {
	case st.parts >= n && !st.growing:
	case st.growing:
		st.grows++ // asked again while the first growth is under way
	default:
		st.growing = true
		st.mu.Unlock()
		time.Sleep(300 * time.Millisecond)
		st.mu.Lock()
		st.parts, st.growing = n, false
		st.grows++
	}
	st.mu.Unlock()
	return s.Stream.EnsurePartitions(ctx, n)
}

// A partition change of a shared stream goes to the first agent, and to
// the others once it reports the new count: the stream grows once, and
// every agent ends at the new count.
func TestSharedPartitionsGrowOnce(t *testing.T) {
	sharedStore.mu.Lock()
	sharedStore.parts, sharedStore.grows, sharedStore.growing = 0, 0, false
	sharedStore.mu.Unlock()
	log := &syncBuf{}
	eps := startAgents(t, 3, testToken, log)
	props := map[string]string{"workload": "stream", "partitions": "2", "threadcount": "1", "target": "600",
		"maxexecutiontime": "0", "status.interval": "0.2"}
	props = SharedProps(sharedTestAdapter, props)
	if props["fleettest.name"] != "shared-1" {
		t.Fatalf("SharedProps did not add the driver's names: %v", props)
	}
	cfg, _, err := engine.NewConfig("run", sharedTestAdapter, props)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Connect(ctx, CoordConfig{Config: cfg, Props: props, Label: "test", Token: testToken, Agents: eps, Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if !c.sharedPartitions() {
		t.Fatal("the agents did not report shared partitions")
	}
	// Change once every agent runs; stop once every agent runs the new
	// count.
	all := func(n int) bool {
		for _, a := range c.agents {
			if int(a.parts.Load()) != n {
				return false
			}
		}
		return true
	}
	go func() {
		changed := false
		for s := range c.Snapshots() {
			switch {
			case !changed && s.Phase == engine.PhaseRun && s.OpsDone > 0 && all(2):
				changed = true
				if err := c.SetPartitions(4); err != nil {
					t.Error(err)
					c.Stop()
				}
			case changed && all(4):
				c.Stop()
			}
		}
	}()
	if _, err := c.Run(ctx); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	sharedStore.mu.Lock()
	grows, parts := sharedStore.grows, sharedStore.parts
	sharedStore.mu.Unlock()
	if grows != 1 || parts != 4 {
		t.Errorf("the shared stream grew %d times to %d partitions; want once, to 4", grows, parts)
	}
	for _, a := range c.Agents() {
		var sum struct {
			Stream struct {
				PartitionsFinal int `json:"partitions_final"`
			} `json:"stream"`
		}
		b, _ := json.Marshal(a.Summary)
		if err := json.Unmarshal(b, &sum); err != nil || sum.Stream.PartitionsFinal != 4 {
			t.Errorf("agent %s (%s %s, problems %q) ended at %d partitions (%v); want 4; summary %.300s", a.Name, a.State, a.Error, a.Problems, sum.Stream.PartitionsFinal, err, b)
		}
	}
	if _, ok := c.Verdict(); ok {
		t.Error("a verdict without any shared stream's ledger")
	}
}

func TestFitLedger(t *testing.T) {
	t.Parallel()
	g := workload.GroupOf(stream.Name)
	small := Done{Rows: ledgerJSON(t, &stream.Ledger{Keys: make([]stream.KeyLedger, 10)})}
	fitLedger(&small, g)
	if small.Rows == nil || len(small.Problems) != 0 {
		t.Errorf("a small ledger was dropped: %q", small.Problems)
	}
	big := Done{Rows: ledgerJSON(t, &stream.Ledger{Keys: make([]stream.KeyLedger, MaxFrame/20)})}
	fitLedger(&big, g)
	if big.Rows != nil || len(big.Problems) != 1 {
		t.Errorf("a ledger over the frame limit was kept (problems %q)", big.Problems)
	}
}

// ledgerJSON is a ledger as the stream's Group sends it.
func ledgerJSON(t *testing.T, l *stream.Ledger) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
