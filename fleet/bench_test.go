package fleet

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
)

// benchInterval is one agent's interval of 8 operation types, each with
// service-time and intended histograms of n values spread like real
// latencies (log-normal around 1 ms).
func benchInterval(rng *rand.Rand, names []string, n int) *Interval {
	s := &measure.Set{}
	for op := range names {
		for range n {
			v := int64(math.Exp(rng.NormFloat64()*0.8) * 1e6)
			s.Record(measure.Slot(op, measure.OK), v)
			s.Record(measure.Slot(op, measure.OKIntended), v+int64(rng.IntN(200000)))
		}
		s.Ops += int64(n)
	}
	now := time.Now()
	return &Interval{Phase: engine.PhaseRun, OpNames: names, Start: now.Add(-time.Second), End: now, Set: s,
		Host:    host.Sample{Cores: 16, CPUTotal: 40, NICs: []host.NIC{{Name: "eth0", RxBytesPerSec: 1e7, TxBytesPerSec: 2e6, SpeedMbps: 10000}}},
		Threads: 50, Target: 8000, Partitions: 1}
}

// BenchmarkMerge64x8 is one coordinator's work for one interval of 64
// agents x 8 operation types: decoding every agent's message (JSON,
// histograms in V2 compressed encoding), merging interval k of all of
// them, building the merged Snapshot and the 64 agent rows. At 1 s
// intervals, ns/op / 1e9 is the share of one core the merge takes.
func BenchmarkMerge64x8(b *testing.B) {
	const agents, perOp = 64, 1000
	names := []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE", "OP7", "OP8"}
	rng := rand.New(rand.NewPCG(1, 2))
	frames := make([][]byte, agents)
	var bytes int
	for i := range frames {
		body, err := json.Marshal(benchInterval(rng, names, perOp))
		if err != nil {
			b.Fatal(err)
		}
		frames[i], _ = json.Marshal(Envelope{Type: TypeInterval, Body: body})
		bytes += len(frames[i])
	}
	cfg := &engine.Config{Command: "run", StatusInterval: time.Second, MeasurementIntvl: "both", Percentiles: []float64{50, 95, 99}, Threads: 50, Target: 512000}
	c := &Coordinator{cfg: CoordConfig{Config: cfg, LostAfter: time.Hour}, snaps: make(chan *engine.Snapshot, 1), opNames: names}
	for i := range agents {
		c.agents = append(c.agents, &agent{name: fmt.Sprintf("vm%d", i+1), state: StateRunning, past: map[engine.Phase]bool{}, gotSeq: map[engine.Phase]int{}})
	}
	m := &merger{c: c, runStart: time.Now(), interval: time.Second, phases: map[engine.Phase]*phaseMerge{}, parts: 1}
	m.phaseAt(engine.PhaseRun, m.runStart)
	b.ReportAllocs()
	cpu0 := cpuTime()
	b.ResetTimer()
	for k := 1; k <= b.N; k++ {
		for i, a := range c.agents {
			_, body, ok := splitEnvelope(frames[i]) // as Recv reads it
			if !ok {
				b.Fatal("frame not split")
			}
			iv, err := decodeInterval(body)
			if err != nil {
				b.Fatal(err)
			}
			iv.Seq = k
			m.handle(inMsg{a: a, iv: iv})
		}
		m.publishReady()
		select {
		case s := <-c.snaps:
			if s.Seq != k || len(s.Agents) != agents {
				b.Fatalf("snapshot %d with %d rows, want %d with %d", s.Seq, len(s.Agents), k, agents)
			}
		default:
			b.Fatalf("interval %d not published", k)
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(bytes)/float64(agents), "B/agent-interval")
	// CPU time (user+system, GC included) rather than wall time, which a
	// shared machine stretches: the coordinator's share of one core when
	// intervals come every second.
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e6, "cpu-ms/interval")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N)/1e9*100, "%core@1s")
}

// cpuTime is this process's CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
