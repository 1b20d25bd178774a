package steps

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"benchtop/rundata/units"
)

// The scenarios of `benchtop demo`: the steps it plays, each with the
// caption the screen shows while it holds, and the line its end card adds.

// DemoStep is one step of `benchtop demo` with the caption the screen
// shows for it.
type DemoStep struct {
	Step
	Caption string
}

// Demo is one scenario of `benchtop demo`: its steps, in order, the last
// a Stop (whose caption is the end card's title, not a caption), and End,
// the end card's line on what the scenario showed ("" for none).
type Demo struct {
	Steps []DemoStep
	End   string
}

// Plan is the demo's steps as the player takes them.
func (d Demo) Plan() []Step {
	out := make([]Step, 0, len(d.Steps))
	for _, s := range d.Steps {
		out = append(out, s.Step)
	}
	return out
}

// demoEvery is the time each step of a demo holds: long enough for its
// segment to count (3 intervals after its first) and to be read.
const demoEvery = 10 * time.Second

// demo numbers captions into steps demoEvery apart, from 0.
func demo(list []DemoStep) []DemoStep {
	for i := range list {
		list[i].At = time.Duration(i) * demoEvery
		list[i].Source = "demo"
	}
	return list
}

// The sim demo's model: 20 servers of 2 ms mean service, 10,000 ops/s.
const (
	SimDemoCapacity = 10000
	SimDemoLatency  = 2 * time.Millisecond
)

// The models the sim demo's captions hold for: enough servers for its
// thread steps to differ, a capacity one small client drives with room to
// spare.
const (
	SimDemoMinServers  = 5
	SimDemoMaxCapacity = 20000
)

// SimDemo is the demo on the model server (the sim adapter) of servers
// servers whose mean service time is mean: its capacity C = servers /
// mean is known, so each caption can say what the screen shows and why.
// Threads first (1; a few servers busy; one per server: the capacity; far
// more than servers: a queue, the knee), then a target below and above
// the capacity (intended latency flat, then growing with the backlog),
// then unlimited again. The sizes are those of the model given; the
// defaults make 1, 8, 20 and 64 threads and targets of 8,000 and 11,000
// ops/s on 10,000.
func SimDemo(servers int, mean time.Duration) Demo {
	c := float64(servers) / mean.Seconds()
	ms := msText(mean)
	busy := max(2, servers*2/5)
	over := max(servers+2, servers*16/5)
	below, above := roundRate(0.8*c), roundRate(1.1*c)
	rate := func(f float64) string { return units.Count(int64(math.Round(f))) }
	return Demo{
		Steps: demo([]DemoStep{
			{Step{Action: Threads, N: 1}, fmt.Sprintf("1 thread on a model server of %s ops/s (%d servers × %s): one at a time, about %s ops/s",
				rate(c), servers, ms, rate(1/mean.Seconds()))},
			{Step{Action: Threads, N: busy}, fmt.Sprintf("threads 1 → %d: %d of the %d servers busy, about %s ops/s; latency is still the %s service time",
				busy, busy, servers, rate(float64(busy)/mean.Seconds()), ms)},
			{Step{Action: Threads, N: servers}, fmt.Sprintf("threads %d → %d, one per server: the capacity, about %s ops/s, and still no queue",
				busy, servers, rate(c))},
			{Step{Action: Threads, N: over}, fmt.Sprintf("threads %d → %d, more than the servers: still %s ops/s, the rest queue and p99 rises (the knee)",
				servers, over, rate(c))},
			{Step{Action: Target, Rate: below}, fmt.Sprintf("target %s ops/s (80 %% of capacity): on schedule, so latency from the planned start stays low",
				rate(below))},
			{Step{Action: Target, Rate: above}, fmt.Sprintf("target %s ops/s, above capacity: the server falls behind, intended latency grows every second",
				rate(above))},
			{Step{Action: Target, Rate: 0}, fmt.Sprintf("target → unlimited: no schedule, no intended latency; %d threads queue for %d servers again",
				over, servers)},
			{Step{Action: Stop}, "the end: the segments table"},
		}),
		End: fmt.Sprintf("The model's capacity was %s ops/s (%d servers × %s): no configuration passes it; past it, latency grows instead.",
			rate(c), servers, ms),
	}
}

// MemoryDemo is the demo on the embedded memory store: each step's effect
// is real on a 2-core machine too (more threads than cores queue for the
// CPU and the store's lock; a target below capacity shows intended
// latency), and it ends with the segments table.
func MemoryDemo(cores int) Demo {
	return Demo{Steps: demo([]DemoStep{
		{Step{Action: Threads, N: 1}, "1 thread: the baseline"},
		{Step{Action: Threads, N: 2}, "threads 1 → 2: a second worker, more throughput while cores are free"},
		{Step{Action: Threads, N: 8}, fmt.Sprintf("threads 2 → 8: on %d cores, more threads overlap their waits", cores)},
		{Step{Action: Threads, N: 64}, fmt.Sprintf("threads 8 → 64: far more threads than the %d cores: they queue for the CPU and the store's lock, p99 grows", cores)},
		{Step{Action: Threads, N: 4}, "threads 64 → 4: back near the cores: p99 falls again"},
		{Step{Action: Target, Rate: 50000}, "target 50K ops/s: paced well below capacity; latency is also measured from the intended start"},
		{Step{Action: Target, Rate: 0}, "target → unlimited: the intended-latency rows go"},
		{Step{Action: Stop}, "the end: the segments table"},
	})}
}

// roundRate rounds a target to two significant figures (8,000, 11,000).
func roundRate(f float64) float64 {
	if f <= 0 {
		return 0
	}
	p := math.Pow(10, math.Floor(math.Log10(f))-1)
	return math.Round(f/p) * p
}

// msText is a mean service time as a caption says it: "2 ms", "1.333 ms".
func msText(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'g', 4, 64) + " ms"
}
