package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"benchtop/adapters"
)

// BenchmarkWaitLateness measures how late the precise wait returns: each
// of g goroutines waits exponential times of mean 1 ms (the model's
// default service time), and the lateness (return − the time asked for)
// is reported as late-p50-µs, late-p99-µs and late-max-µs: how much the
// OS adds to the model's latencies on this machine. Run it with
//
//	go test -run '^$' -bench WaitLateness -benchtime 2000x ./adapters/sim
func BenchmarkWaitLateness(b *testing.B) {
	for _, g := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			w := newWaiter()
			defer w.close()
			var mu sync.Mutex
			var late []int64
			var wg sync.WaitGroup
			per := max(b.N/g, 1)
			b.ResetTimer()
			for i := range g {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(i), 9))
					mine := make([]int64, 0, per)
					for range per {
						at := nanotime() + int64(r.ExpFloat64()*1e6)
						_ = w.until(context.Background(), at)
						mine = append(mine, nanotime()-at)
					}
					mu.Lock()
					late = append(late, mine...)
					mu.Unlock()
				}()
			}
			wg.Wait()
			b.StopTimer()
			slices.Sort(late)
			q := func(p float64) float64 { return float64(late[int(p*float64(len(late)-1))]) / 1e3 }
			b.ReportMetric(q(0.5), "late-p50-µs")
			b.ReportMetric(q(0.99), "late-p99-µs")
			b.ReportMetric(q(1), "late-max-µs")
		})
	}
}

// BenchmarkSleepLateness is the same with time.Sleep, the reference the
// precise wait is measured against.
func BenchmarkSleepLateness(b *testing.B) {
	for _, g := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("goroutines=%d", g), func(b *testing.B) {
			var mu sync.Mutex
			var late []int64
			var wg sync.WaitGroup
			per := max(b.N/g, 1)
			b.ResetTimer()
			for i := range g {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(i), 9))
					mine := make([]int64, 0, per)
					for range per {
						d := int64(r.ExpFloat64() * 1e6)
						at := nanotime() + d
						time.Sleep(time.Duration(d))
						mine = append(mine, nanotime()-at)
					}
					mu.Lock()
					late = append(late, mine...)
					mu.Unlock()
				}()
			}
			wg.Wait()
			b.StopTimer()
			slices.Sort(late)
			q := func(p float64) float64 { return float64(late[int(p*float64(len(late)-1))]) / 1e3 }
			b.ReportMetric(q(0.5), "late-p50-µs")
			b.ReportMetric(q(0.99), "late-p99-µs")
			b.ReportMetric(q(1), "late-max-µs")
		})
	}
}

// BenchmarkServeCPU is the CPU one operation through the model costs the
// client (the lock, the draw, the queue, the wait's dispatcher and
// wake-up), reported as cpu-µs/op: 64 goroutines each reading one key in
// a loop from a model of 64 servers of 200 µs (exponential), so that
// every operation waits and none queues.
//
//	go test -run '^$' -bench ServeCPU -benchtime 100000x ./adapters/sim
func BenchmarkServeCPU(b *testing.B) {
	db, err := Open(map[string]string{"sim.servers": "64", "sim.latency": "200us"})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.st.insert("t", "k", []adapters.Field{{Name: "f", Value: []byte("v")}})
	const g = 64
	var wg sync.WaitGroup
	per := max(b.N/g, 1)
	before := cpuTime()
	b.ResetTimer()
	for range g {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var dst []adapters.Field
			for range per {
				dst, _ = db.Read(context.Background(), "t", "k", nil, dst[:0])
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-before)/float64(per*g)/1e3, "cpu-µs/op")
}
