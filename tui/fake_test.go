package tui

import (
	"fmt"
	"math"
	"strconv"
	"sync"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
)

// recorder is a Controller that records every call, as text, and can be
// told to fail.
type recorder struct {
	mu    sync.Mutex
	calls []string
	fail  error
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, s)
}

func (r *recorder) Calls() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.calls...)
}

func (r *recorder) SetThreads(n int) error {
	r.add(fmt.Sprintf("SetThreads(%d)", n))
	return r.fail
}

func (r *recorder) SetTarget(t float64) error {
	r.add(fmt.Sprintf("SetTarget(%g)", t))
	return r.fail
}

func (r *recorder) SetPartitions(n int) error {
	r.add(fmt.Sprintf("SetPartitions(%d)", n))
	return r.fail
}

func (r *recorder) Pause()        { r.add("Pause()") }
func (r *recorder) Resume()       { r.add("Resume()") }
func (r *recorder) Mark(l string) { r.add(fmt.Sprintf("Mark(%q)", l)) }
func (r *recorder) NewSegment()   { r.add("NewSegment()") }
func (r *recorder) Stop()         { r.add("Stop()") }
func (r *recorder) last() string  { c := r.Calls(); return lastOf(c) }
func lastOf(c []string) string {
	if len(c) == 0 {
		return ""
	}
	return c[len(c)-1]
}

var fakeInfo = engine.Info{
	Command:        "run",
	Adapter:        "memory",
	Workload:       "workloada",
	Mix:            "read 50 / update 50, zipfian",
	CanRepartition: true,
}

// step is a configuration held from a second of the fake run on.
type step struct {
	at                  int
	threads, partitions int
	event               engine.Event
}

// fakeRun returns a deterministic run of n one-second snapshots: threads
// 2→4→8, then partitions 1→8, then a mark; with target, a target rate
// from the start (intended latencies set). The last one is Done.
func fakeRun(n int, target float64) []*engine.Snapshot {
	steps := []step{
		{at: 0, threads: 2, partitions: 1},
		{at: 10, threads: 4, partitions: 1, event: engine.Event{Kind: "threads", From: "2", To: "4", Text: "threads 2→4"}},
		{at: 20, threads: 8, partitions: 1, event: engine.Event{Kind: "threads", From: "4", To: "8", Text: "threads 4→8"}},
		{at: 30, threads: 8, partitions: 8, event: engine.Event{Kind: "partitions", From: "1", To: "8", Text: "partitions 1→8"}},
	}
	var out []*engine.Snapshot
	var cum [2]int64
	var segs []engine.Segment
	for i := 1; i <= n; i++ {
		cur := steps[0]
		var events []engine.Event
		for _, s := range steps {
			if s.at < i {
				cur = s
			}
			if s.at == i-1 && s.event.Kind != "" {
				e := s.event
				e.At = time.Duration(s.at)*time.Second + 300*time.Millisecond
				events = append(events, e)
			}
		}
		if i == 36 {
			events = append(events, engine.Event{At: 35*time.Second + 500*time.Millisecond, Kind: "mark", Text: "mark 1"})
		}
		if i == 38 {
			events = append(events, engine.Event{At: 37*time.Second + 100*time.Millisecond, Kind: "error", Text: "error burst: timeout 12"})
		}
		// Throughput grows with threads and partitions, with a fixed
		// wiggle; latency follows Little's law.
		capacity := 160000 * float64(cur.threads) * (0.55 + 0.45*float64(cur.partitions)/8)
		if cur.threads >= 8 && cur.partitions == 1 {
			capacity *= 0.7 // the knee
		}
		rate := capacity * (1 + 0.04*math.Sin(float64(i)))
		if target > 0 && rate > target {
			rate = target
		}
		rate = math.Round(rate)
		p50 := time.Duration(float64(cur.threads) / capacity * 0.8e9)
		stats := func(r float64, count int64, f float64, errs int64) engine.Stats {
			s := engine.Stats{
				Count: count, OK: count - errs, Rate: r, Errors: errs,
				Mean: time.Duration(float64(p50) * 1.1 * f),
				Min:  time.Duration(float64(p50) * 0.2 * f),
				P50:  time.Duration(float64(p50) * f),
				P95:  time.Duration(float64(p50) * (2.6 + 0.3*math.Sin(float64(i)/2)) * f),
				P99:  time.Duration(float64(p50) * (5 + math.Cos(float64(i)/3)) * f),
				P999: time.Duration(float64(p50) * 19 * f),
				Max:  time.Duration(float64(p50) * 900 * f),
			}
			if errs > 0 {
				s.ErrorsByKind = map[string]int64{"timeout": errs}
				s.Causes = map[string]string{"timeout": "memory: update user4412: context deadline exceeded"}
			}
			return s
		}
		half := rate / 2
		cum[0] += int64(half)
		cum[1] += int64(half)
		var ierr, cerr int64
		if i == 38 {
			ierr = 12
		}
		if i >= 38 {
			cerr = 12
		}
		el := time.Duration(i) * time.Second
		rd := engine.OpSnapshot{Name: "READ",
			Interval:   stats(half, int64(half), 1, 0),
			Cumulative: stats(float64(cum[0])/el.Seconds(), cum[0], 1.02, 0)}
		up := engine.OpSnapshot{Name: "UPDATE",
			Interval:   stats(half, int64(half), 1.3, ierr),
			Cumulative: stats(float64(cum[1])/el.Seconds(), cum[1], 1.31, cerr)}
		if target > 0 {
			a, b := stats(half, int64(half), 1.9, 0), stats(float64(cum[0])/el.Seconds(), cum[0], 1.8, 0)
			c, d := stats(half, int64(half), 2.4, ierr), stats(float64(cum[1])/el.Seconds(), cum[1], 2.3, cerr)
			rd.IntendedInterval, rd.IntendedCumulative = &a, &b
			up.IntendedInterval, up.IntendedCumulative = &c, &d
		}
		total := engine.OpSnapshot{Name: "TOTAL",
			Interval:   stats(rate, int64(rate), 1.15, ierr),
			Cumulative: stats(float64(cum[0]+cum[1])/el.Seconds(), cum[0]+cum[1], 1.16, cerr)}

		cpu := math.Min(99, 20+10*float64(cur.threads)*(0.5+0.5*float64(cur.partitions)/8))
		cores := make([]float64, 4)
		for c := range cores {
			cores[c] = math.Min(100, cpu+float64(c*5)-7)
		}

		// Segments: one per step reached, the last open.
		segs = segs[:0]
		for si, s := range steps {
			if s.at >= i {
				break
			}
			end := i
			if si+1 < len(steps) && steps[si+1].at < i {
				end = steps[si+1].at
			}
			cap := 160000 * float64(s.threads) * (0.55 + 0.45*float64(s.partitions)/8)
			if s.threads >= 8 && s.partitions == 1 {
				cap *= 0.7
			}
			sp50 := time.Duration(float64(s.threads) / cap * 0.8e9)
			segs = append(segs, engine.Segment{
				Index: si + 1, Start: time.Duration(s.at) * time.Second, End: time.Duration(end) * time.Second,
				Threads: s.threads, Partitions: s.partitions, Target: target,
				Label: s.event.String(), Ops: int64(cap) * int64(end-s.at), OpsPerSec: math.Min(cap, nonZero(target, cap)),
				HasLatency: true, P50: sp50, P95: sp50 * 27 / 10, P99: sp50 * 5, ServiceP99: sp50 * 5, Intervals: max(0, end-s.at-1), CPU: math.Min(99, 20+10*float64(s.threads)*(0.5+0.5*float64(s.partitions)/8)),
				Open: si+1 == len(steps) || steps[si+1].at >= i,
			})
			g := &segs[len(segs)-1]
			g.OpsPerSecLow, g.OpsPerSecHigh = g.OpsPerSec*0.97, g.OpsPerSec*1.03
			g.P99Low, g.P99High = g.P99*9/10, g.P99*23/20
		}
		if target > 0 {
			for k := range segs {
				segs[k].ServiceP99 = segs[k].P99 * 2 / 5
				segs[k].IntendedP99 = segs[k].P99
			}
		}
		if len(segs) > 0 {
			best := 0
			for k := range segs {
				if segs[k].OpsPerSec > segs[best].OpsPerSec {
					best = k
				}
			}
			segs[best].Best = true
			if len(segs) >= 3 {
				segs[2].Knee = true
			}
		}
		var warnings []string
		if cpu >= 90 {
			warnings = []string{"client CPU " + strconv.Itoa(int(cpu)) + "%: the client may be the bottleneck"}
		}
		out = append(out, &engine.Snapshot{
			Seq: i, Elapsed: el, Interval: time.Second,
			Phase: engine.PhaseRun, OpsDone: cum[0] + cum[1], Progress: float64(i) / 120,
			Done:    i == n,
			Threads: cur.threads, Partitions: cur.partitions, Target: target,
			Ops:   []engine.OpSnapshot{rd, up},
			Total: total,
			Host: host.Sample{
				CPUTotal: cpu, CPUPerCore: cores, Cores: 4,
				ProcCPU: cpu * 3.4, ProcRSS: 61_000_000,
				NICs:     []host.NIC{{Name: "eth0", RxBytesPerSec: rate * 2, TxBytesPerSec: rate, SpeedMbps: 1000}},
				Loopback: &host.NIC{Name: "lo", Loopback: true, RxBytesPerSec: 1200, TxBytesPerSec: 1200},
			},
			Events:   events,
			Segments: append([]engine.Segment(nil), segs...),
			Warnings: warnings,
		})
	}
	return out
}

func nonZero(v, otherwise float64) float64 {
	if v > 0 {
		return v
	}
	return otherwise
}
