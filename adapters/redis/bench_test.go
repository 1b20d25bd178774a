package redis

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"benchtop/adapters"
)

// The adapter's per-operation path against a real server
// (BENCHTOP_REDIS_ADDR): 16 goroutines, as `-threads 16`, each doing
// one-field reads (HGETALL of a one-field hash) or one-field updates of
// 100-byte values over 1,000 records. Besides ns/op and allocs/op it
// reports cpu-us/op: the whole process's user+sys CPU per operation, which
// the machine's load changes less than the time per operation.
//
//	BENCHTOP_REDIS_ADDR=127.0.0.1:6379 go test -run x -bench . -benchmem ./adapters/redis/
//
// BENCHTOP_REDIS_BENCH_PROPS adds properties (key=value,key=value), for
// example redis.strict=true.

const benchRecords = 1000

func BenchmarkRead1Field(b *testing.B) {
	db := openBenchServer(b)
	keys := loadBenchRecords(b, db)
	runBench(b, func(ctx context.Context, i int, dst []adapters.Field) ([]adapters.Field, error) {
		return db.Read(ctx, "usertable", keys[i%len(keys)], nil, dst[:0])
	})
}

func BenchmarkReadNamedField(b *testing.B) {
	db := openBenchServer(b)
	keys := loadBenchRecords(b, db)
	fields := []string{"field0"}
	runBench(b, func(ctx context.Context, i int, dst []adapters.Field) ([]adapters.Field, error) {
		return db.Read(ctx, "usertable", keys[i%len(keys)], fields, dst[:0])
	})
}

func BenchmarkUpdate1Field(b *testing.B) {
	db := openBenchServer(b)
	keys := loadBenchRecords(b, db)
	values := []adapters.Field{{Name: "field0", Value: make([]byte, 100)}}
	runBench(b, func(ctx context.Context, i int, dst []adapters.Field) ([]adapters.Field, error) {
		return dst, db.Update(ctx, "usertable", keys[i%len(keys)], values)
	})
}

// BenchmarkInsert1Field inserts (replaces) the same records: with the
// defaults, MULTI, DEL, HSET, ZADD and EXEC per operation.
func BenchmarkInsert1Field(b *testing.B) {
	db := openBenchServer(b)
	keys := loadBenchRecords(b, db)
	values := []adapters.Field{{Name: "field0", Value: make([]byte, 100)}}
	runBench(b, func(ctx context.Context, i int, dst []adapters.Field) ([]adapters.Field, error) {
		return dst, db.Insert(ctx, "usertable", keys[i%len(keys)], values)
	})
}

// openBenchServer is openTestServer with BENCHTOP_REDIS_BENCH_PROPS.
func openBenchServer(b *testing.B) adapters.DB {
	b.Helper()
	addr := os.Getenv("BENCHTOP_REDIS_ADDR")
	if addr == "" {
		b.Skip("no Redis server: run `eval \"$(bash .ci/servers/redis.sh start)\"` (sets BENCHTOP_REDIS_ADDR) to enable")
	}
	props := adapters.Properties{"redis.addr": addr}
	if extra := os.Getenv("BENCHTOP_REDIS_BENCH_PROPS"); extra != "" {
		for _, kv := range strings.Split(extra, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				b.Fatalf("BENCHTOP_REDIS_BENCH_PROPS: %q is not key=value", kv)
			}
			props[k] = v
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := Open(ctx, props)
	if err != nil {
		b.Fatalf("Open(%s): %v", addr, err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

func loadBenchRecords(b *testing.B, db adapters.DB) []string {
	b.Helper()
	keys := make([]string, benchRecords)
	recs := make([]adapters.Record, 0, benchRecords)
	for i := range keys {
		keys[i] = "btbench-" + strconv.Itoa(i)
		recs = append(recs, adapters.Record{Key: keys[i], Fields: []adapters.Field{{Name: "field0", Value: make([]byte, 100)}}})
	}
	if err := db.(adapters.BatchInserter).InsertBatch(b.Context(), "usertable", recs); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		for _, k := range keys {
			db.Delete(context.Background(), "usertable", k)
		}
	})
	return keys
}

// runBench runs op from 16 goroutines and reports cpu-us/op.
func runBench(b *testing.B, op func(ctx context.Context, i int, dst []adapters.Field) ([]adapters.Field, error)) {
	b.Helper()
	const goroutines = 16
	b.SetParallelism((goroutines + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
	var next atomic.Int64
	var failed atomic.Value
	b.ReportAllocs()
	before := processCPU(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		ctx := context.Background()
		dst := make([]adapters.Field, 0, 4)
		var err error
		for pb.Next() {
			if dst, err = op(ctx, int(next.Add(1)), dst); err != nil {
				failed.Store(err)
				return
			}
		}
	})
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(processCPU(b)-before)/1e3/float64(b.N), "cpu-us/op")
}

// processCPU is this process's user+sys CPU time so far, in ns.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(fmt.Errorf("getrusage: %w", err))
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
