package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"benchtop/adapters"
)

// The benchmarks use YCSB workload A's data: 100,000 records of 10 fields
// of 100 bytes, keys "user" + a hash of the record number, zipfian key
// choice, reading all fields or updating one.

const (
	benchRecords = 100_000
	benchTable   = "usertable"
	zipfLen      = 1 << 16
)

var fieldNamesA = func() []string {
	f := make([]string, 10)
	for i := range f {
		f[i] = "field" + strconv.Itoa(i)
	}
	return f
}()

// keyGen formats YCSB keys into a reused buffer, as a workload engine
// does; reading 100,000 pre-built key strings instead would add a cache
// miss per operation that a real run does not have.
type keyGen struct{ buf []byte }

func (g *keyGen) key(i int) string {
	h := uint64(14695981039346656037)
	for j := range 8 {
		h ^= uint64(byte(i >> (8 * j)))
		h *= 1099511628211
	}
	g.buf = strconv.AppendUint(append(g.buf[:0], "user"...), h, 10)
	return unsafe.String(unsafe.SliceData(g.buf), len(g.buf))
}

func ycsbKey(i int) string {
	var g keyGen
	return strings.Clone(g.key(i))
}

var (
	benchKeysOnce sync.Once
	benchKeys     []string
)

func loadBench(b *testing.B, partitions int) *DB {
	b.Helper()
	benchKeysOnce.Do(func() {
		benchKeys = make([]string, benchRecords)
		for i := range benchKeys {
			benchKeys[i] = ycsbKey(i)
		}
	})
	db := mustNew(b, partitions)
	ctx := context.Background()
	vals := make([]adapters.Field, len(fieldNamesA))
	for i := range vals {
		vals[i] = adapters.Field{Name: fieldNamesA[i], Value: make([]byte, 100)}
	}
	for _, k := range benchKeys {
		if err := db.Insert(ctx, benchTable, k, vals); err != nil {
			b.Fatal(err)
		}
	}
	return db
}

// zipfKeys returns zipfLen record numbers drawn from a zipfian
// distribution, precomputed so that drawing them costs nothing in the
// timed loop.
func zipfKeys(seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 7))
	z := rand.NewZipf(rng, 1.01, 1, benchRecords-1)
	out := make([]int, zipfLen)
	for i := range out {
		out[i] = int(z.Uint64())
	}
	return out
}

func BenchmarkRead(b *testing.B) {
	db := loadBench(b, 1)
	ctx := context.Background()
	z := zipfKeys(1)
	var g keyGen
	dst := make([]adapters.Field, 0, 10)
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		var err error
		dst, err = db.Read(ctx, benchTable, g.key(z[i%zipfLen]), nil, dst[:0])
		if err != nil || len(dst) != 10 {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkUpdate(b *testing.B) {
	db := loadBench(b, 1)
	ctx := context.Background()
	z := zipfKeys(2)
	var g keyGen
	vals := []adapters.Field{{Name: "field3", Value: make([]byte, 100)}}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		vals[0].Value[0] = byte(i)
		if err := db.Update(ctx, benchTable, g.key(z[i%zipfLen]), vals); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkParallelMixed is workload A on the store alone: goroutines
// doing 50% reads of all fields and 50% updates of one field, 4 of them
// (2 per core on the 2-core reference machine) and 32. One partition
// serialises every update on one lock; eight mostly do not.
func BenchmarkParallelMixed(b *testing.B) {
	for _, threads := range []int{4, 32} {
		for _, parts := range []int{1, 8} {
			b.Run(fmt.Sprintf("threads=%d/partitions=%d", threads, parts), func(b *testing.B) {
				db := loadBench(b, parts)
				ctx := context.Background()
				var seed atomic.Uint64
				b.SetParallelism(max(1, threads/runtime.GOMAXPROCS(0)))
				b.ReportAllocs()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					z := zipfKeys(seed.Add(1))
					var g keyGen
					dst := make([]adapters.Field, 0, 10)
					vals := []adapters.Field{{Name: "field3", Value: make([]byte, 100)}}
					for i := 0; pb.Next(); i++ {
						k := g.key(z[i%zipfLen])
						if i&1 == 0 {
							dst, _ = db.Read(ctx, benchTable, k, nil, dst[:0])
						} else {
							_ = db.Update(ctx, benchTable, k, vals)
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds()/1e6, "Mops/s")
			})
		}
	}
}

// BenchmarkScan is workload E's scan: up to 100 records from a zipfian
// start key, all fields.
func BenchmarkScan(b *testing.B) {
	for _, parts := range []int{1, 8} {
		b.Run(fmt.Sprintf("partitions=%d", parts), func(b *testing.B) {
			db := loadBench(b, parts)
			ctx := context.Background()
			z := zipfKeys(3)
			var g keyGen
			var dst []adapters.Record
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				dst, _ = db.Scan(ctx, benchTable, g.key(z[i%zipfLen]), 1+i%100, nil, dst[:0])
				i++
			}
		})
	}
}

// BenchmarkReshard moves 100,000 records between 1 and 8 partitions, with
// no other load ("idle") and while 4 goroutines run workload A
// ("workload-A"). It reports the mean and the worst time operations were
// stopped (the swap step) and the mean time of a whole reshard.
func BenchmarkReshard(b *testing.B) {
	for _, load := range []bool{false, true} {
		name := "idle"
		if load {
			name = "workload-A"
		}
		b.Run(name, func(b *testing.B) {
			db := loadBench(b, 1)
			ctx := context.Background()
			done := make(chan struct{})
			var wg sync.WaitGroup
			for w := range 4 {
				if !load {
					break
				}
				wg.Go(func() {
					z := zipfKeys(uint64(10 + w))
					var g keyGen
					dst := make([]adapters.Field, 0, 10)
					vals := []adapters.Field{{Name: "field3", Value: make([]byte, 100)}}
					for i := 0; ; i++ {
						if i%256 == 0 {
							select {
							case <-done:
								return
							default:
							}
						}
						k := g.key(z[i%zipfLen])
						if i&1 == 0 {
							dst, _ = db.Read(ctx, benchTable, k, nil, dst[:0])
						} else {
							_ = db.Update(ctx, benchTable, k, vals)
						}
					}
				})
			}
			var blocked, worst, total time.Duration
			n := 0
			for b.Loop() {
				parts := 8
				if db.Partitions() == 8 {
					parts = 1
				}
				if err := db.SetPartitions(ctx, parts); err != nil {
					b.Fatal(err)
				}
				st := db.lastReshard.Load()
				blocked += st.blocked
				worst = max(worst, st.blocked)
				total += st.total
				n++
			}
			close(done)
			wg.Wait()
			b.ReportMetric(float64(blocked.Microseconds())/float64(n), "blocked-µs")
			b.ReportMetric(float64(worst.Microseconds()), "worst-blocked-µs")
			b.ReportMetric(float64(total.Microseconds())/float64(n)/1e3, "total-ms")
		})
	}
}
