package adaptertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"
	"time"
	"unsafe"

	"benchtop/adapters"
)

// BenchOptions tune BenchOps.
type BenchOptions struct {
	// Table is the table (collection) to use; default "usertable".
	Table string
	// Records preloaded for reads, updates and scans; default 1000.
	Records int
	// ScanLength is the number of records a SCAN asks for; default 10.
	// Negative: no Scan sub-benchmark.
	ScanLength int
	// Cleanup deletes the preloaded and inserted records at the end; for
	// a shared table (a test that drops its own table or database leaves
	// it false).
	Cleanup bool
}

// BenchOps benchmarks one adapter's single operations against its real
// server, one goroutine at a time, in the shape of YCSB workload A's
// records (10 fields of 100 bytes): Read (all fields), Update (one field),
// Insert (a new record of 10 fields) and Scan. Each sub-benchmark reports
// allocs/op and cpu-us/op, the CPU time (user + system, GC and the
// driver's goroutines included) of this test process per operation: the
// client's cost, which a shared machine stretches far less than ns/op
// (wall time, mostly the server's round trip). The harness itself
// allocates nothing per operation: keys and values live in reused
// buffers, as the engine's do.
func BenchOps(b *testing.B, db adapters.DB, opts BenchOptions) {
	if opts.Table == "" {
		opts.Table = "usertable"
	}
	if opts.Records <= 0 {
		opts.Records = 1000
	}
	if opts.ScanLength == 0 {
		opts.ScanLength = 10
	}
	h := &bench{db: db, opts: opts, prefix: fmt.Sprintf("bb%06x-user", rand.Uint32N(1<<24))}
	for i := range h.fields {
		h.fields[i].Name = "field" + strconv.Itoa(i)
		h.fields[i].Value = make([]byte, 100)
	}
	h.fill(rand.New(rand.NewPCG(1, 2)))
	if err := h.preload(); err != nil {
		b.Fatalf("preload %d records: %v", opts.Records, err)
	}
	if opts.Cleanup {
		b.Cleanup(h.cleanup)
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	b.Run("Read", func(b *testing.B) {
		var dst []adapters.Field
		h.loop(b, func() error {
			var err error
			dst, err = db.Read(ctx, opts.Table, h.key(rng.IntN(opts.Records)), nil, dst[:0])
			if err == nil && len(dst) != len(h.fields) {
				err = fmt.Errorf("read %d fields, want %d", len(dst), len(h.fields))
			}
			return err
		})
	})
	b.Run("Update", func(b *testing.B) {
		h.loop(b, func() error {
			i := rng.IntN(len(h.fields))
			return db.Update(ctx, opts.Table, h.key(rng.IntN(opts.Records)), h.fields[i:i+1])
		})
	})
	b.Run("Insert", func(b *testing.B) {
		h.loop(b, func() error {
			h.inserted++
			return db.Insert(ctx, opts.Table, h.key(opts.Records+h.inserted), h.fields[:])
		})
	})
	if opts.ScanLength > 0 {
		b.Run("Scan", func(b *testing.B) {
			var dst []adapters.Record
			h.loop(b, func() error {
				var err error
				dst, err = db.Scan(ctx, opts.Table, h.key(rng.IntN(opts.Records-opts.ScanLength)), opts.ScanLength, nil, dst[:0])
				if err == nil && len(dst) == 0 {
					err = fmt.Errorf("scan of %d returned nothing", opts.ScanLength)
				}
				return err
			})
		})
	}
}

type bench struct {
	db       adapters.DB
	opts     BenchOptions
	prefix   string
	keyBuf   []byte
	fields   [10]adapters.Field
	inserted int
}

// key formats record i into the reused key buffer, as the engine does:
// the string is valid until the next call.
func (h *bench) key(i int) string {
	h.keyBuf = strconv.AppendInt(append(h.keyBuf[:0], h.prefix...), int64(i), 10)
	return unsafe.String(unsafe.SliceData(h.keyBuf), len(h.keyBuf))
}

func (h *bench) fill(rng *rand.Rand) {
	for i := range h.fields {
		for j := range h.fields[i].Value {
			h.fields[i].Value[j] = byte('a' + rng.IntN(26))
		}
	}
}

// loop runs op b.N times and reports cpu-us/op.
func (h *bench) loop(b *testing.B, op func() error) {
	b.ReportAllocs()
	cpu0 := CPUTime()
	n := 0
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if n > 0 {
		b.ReportMetric(float64((CPUTime()-cpu0).Nanoseconds())/float64(n)/1e3, "cpu-us/op")
	}
}

// each runs fn for keys 0..n-1 on 8 goroutines; the first error wins.
func (h *bench) each(n int, fn func(key string) error) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := g; i < n; i += 8 {
				if err := fn(h.prefix + strconv.Itoa(i)); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

func (h *bench) preload() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	return h.each(h.opts.Records, func(key string) error {
		return h.db.Insert(ctx, h.opts.Table, key, h.fields[:])
	})
}

func (h *bench) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	_ = h.each(h.opts.Records+h.inserted+1, func(key string) error {
		_ = h.db.Delete(ctx, h.opts.Table, key)
		return nil
	})
}
