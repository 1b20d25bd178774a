// Package streamtest is the conformance test of the stream side of the
// adapter contract (adapters.Streamer), run by every stream target from its
// own tests against its real server:
//
//	func TestStreamConformance(t *testing.T) {
//		db := openAgainstTestServer(t)
//		streamtest.Run(t, db, streamtest.Options{})
//	}
//
// It checks, with rows that carry their producer and sequence number, that
// each partition delivers its rows in order, that nothing is lost or
// duplicated while partitions are added, that an idle reader returns, and
// then runs the stream workload itself (package workload/stream) with live
// repartitioning, expecting 0 lost, 0 duplicated and 0 out-of-order rows.
package streamtest

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/workload/stream"
)

// Options tune Run for slow servers.
type Options struct {
	// Rows is how many rows each check writes (default 20000).
	Rows int
	// Timeout bounds each check (default 60 s).
	Timeout time.Duration
}

// Run runs the stream conformance checks against db, which must implement
// adapters.Streamer. It does not close db.
func Run(t *testing.T, db adapters.DB, opts Options) {
	t.Helper()
	st, ok := db.(adapters.Streamer)
	if !ok {
		t.Fatalf("%T does not implement adapters.Streamer", db)
	}
	if opts.Rows <= 0 {
		opts.Rows = 20000
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 60 * time.Second
	}
	t.Run("OrderAndCountWhileGrowing", func(t *testing.T) { testOrder(t, st, opts) })
	t.Run("IdleReaderReturns", func(t *testing.T) { testIdle(t, st) })
	t.Run("WorkloadLiveRepartition", func(t *testing.T) { testWorkload(t, db, opts) })
}

func openStream(t *testing.T, st adapters.Streamer, parts int) adapters.Stream {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	name := fmt.Sprintf("bttest-%d", time.Now().UnixNano()%1e9)
	s, err := st.OpenStream(ctx, name, parts)
	if err != nil {
		t.Fatalf("OpenStream(%q, %d): %v", name, parts, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if got := s.Partitions(); got < parts {
		t.Fatalf("Partitions() = %d after OpenStream with %d", got, parts)
	}
	return s
}

// testRow is producer (4 bytes), seq (4 bytes), then len-8 bytes derived
// from both, so that any corruption shows.
func testRow(dst []byte, producer, seq uint32, size int) []byte {
	dst = dst[:0]
	dst = binary.LittleEndian.AppendUint32(dst, producer)
	dst = binary.LittleEndian.AppendUint32(dst, seq)
	x := producer*2654435761 ^ seq*40503
	for len(dst) < size {
		x = x*1664525 + 1013904223
		dst = append(dst, byte(x>>24))
	}
	return dst
}

func checkRow(b []byte) (producer, seq uint32, ok bool) {
	if len(b) < 8 {
		return 0, 0, false
	}
	producer = binary.LittleEndian.Uint32(b)
	seq = binary.LittleEndian.Uint32(b[4:])
	want := testRow(make([]byte, 0, len(b)), producer, seq, len(b))
	return producer, seq, string(want) == string(b)
}

// testOrder: 4 producers write rows spread over 3 partitions, then over 6
// once half are written (EnsurePartitions while producing); one reader per
// partition checks each producer's sequence numbers rise and, at the end,
// that every row arrived exactly once and intact.
func testOrder(t *testing.T, st adapters.Streamer, opts Options) {
	const producers = 4
	s := openStream(t, st, 3)
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()

	perProducer := opts.Rows / producers
	var parts atomic.Int64
	parts.Store(3)
	var produced atomic.Int64
	var grew sync.Once
	grown := make(chan struct{})
	var pwg sync.WaitGroup
	errs := make(chan error, 64)
	for pr := range producers {
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			var rows []adapters.StreamRow
			bufs := make([][]byte, 50)
			for seq := 1; seq <= perProducer; {
				rows = rows[:0]
				np := int(parts.Load())
				for i := 0; i < 50 && seq <= perProducer; i++ {
					bufs[i] = testRow(bufs[i], uint32(pr), uint32(seq), 40+seq%200)
					rows = append(rows, adapters.StreamRow{Partition: (seq*7 + pr) % np, Data: bufs[i]})
					seq++
				}
				if err := s.Produce(ctx, rows); err != nil {
					errs <- fmt.Errorf("produce: %w", err)
					return
				}
				if produced.Add(int64(len(rows))) >= int64(opts.Rows/2) {
					grew.Do(func() {
						if err := s.EnsurePartitions(ctx, 6); err != nil {
							errs <- fmt.Errorf("EnsurePartitions(6): %w", err)
						}
						parts.Store(6)
						close(grown)
					})
				}
			}
		}()
	}

	total := int64(perProducer * producers)
	var consumed atomic.Int64
	seen := make([][]bool, producers)
	for i := range seen {
		seen[i] = make([]bool, perProducer+1)
	}
	var smu sync.Mutex
	var dup, corrupt, order atomic.Int64
	var rwg sync.WaitGroup
	read := func(p int) {
		defer rwg.Done()
		r, err := s.Reader(ctx, p)
		if err != nil {
			errs <- fmt.Errorf("Reader(%d): %w", p, err)
			return
		}
		defer r.Close()
		last := make([]uint32, producers)
		var rows [][]byte
		for consumed.Load() < total && ctx.Err() == nil {
			rows, err = r.Read(ctx, rows[:0], 500)
			if err != nil {
				if ctx.Err() == nil {
					errs <- fmt.Errorf("Read(partition %d): %w", p, err)
				}
				return
			}
			for _, b := range rows {
				pr, seq, ok := checkRow(b)
				if !ok || int(pr) >= producers || seq == 0 || int(seq) > perProducer {
					corrupt.Add(1)
					continue
				}
				if seq <= last[pr] {
					order.Add(1)
				}
				last[pr] = seq
				smu.Lock()
				if seen[pr][seq] {
					dup.Add(1)
				}
				seen[pr][seq] = true
				smu.Unlock()
			}
			consumed.Add(int64(len(rows)))
		}
	}
	for p := range 3 {
		rwg.Add(1)
		go read(p)
	}
	go func() {
		select {
		case <-grown:
			for p := 3; p < 6; p++ {
				rwg.Add(1)
				go read(p)
			}
		case <-ctx.Done():
		}
	}()
	pwg.Wait()
	select {
	case <-grown:
	case <-ctx.Done():
	}
	rwg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if ctx.Err() != nil {
		t.Errorf("timed out after %v: %d of %d rows consumed", opts.Timeout, consumed.Load(), total)
	}
	var lost int
	for pr := range seen {
		for seq := 1; seq <= perProducer; seq++ {
			if !seen[pr][seq] {
				lost++
			}
		}
	}
	t.Logf("%d rows produced, %d consumed: %d lost, %d duplicated, %d out of order, %d corrupt", total, consumed.Load(), lost, dup.Load(), order.Load(), corrupt.Load())
	if lost != 0 || dup.Load() != 0 || order.Load() != 0 || corrupt.Load() != 0 {
		t.Errorf("want 0 lost, 0 duplicated, 0 out of order and 0 corrupt rows")
	}
	if s.Partitions() < 6 {
		t.Errorf("Partitions() = %d after EnsurePartitions(6)", s.Partitions())
	}
}

// testIdle: a Read on an empty partition returns (no rows, no error)
// after the adapter's poll time, and promptly once its context is done.
func testIdle(t *testing.T, st adapters.Streamer) {
	s := openStream(t, st, 1)
	r, err := s.Reader(context.Background(), 0)
	if err != nil {
		t.Fatalf("Reader(0): %v", err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	t0 := time.Now()
	rows, err := r.Read(ctx, nil, 10)
	if err != nil || len(rows) != 0 {
		t.Errorf("Read of an empty partition = %d rows, %v; want 0 rows, nil after the poll time", len(rows), err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Read of an empty partition took %v; want a poll time of a few seconds at most", d)
	}
	cctx, ccancel := context.WithCancel(context.Background())
	go func() { time.Sleep(50 * time.Millisecond); ccancel() }()
	t0 = time.Now()
	for time.Since(t0) < 5*time.Second {
		if _, err := r.Read(cctx, nil, 10); err != nil {
			break
		}
	}
	if d := time.Since(t0); d > 3*time.Second {
		t.Errorf("Read went on %v after its context was cancelled", d)
	}
}

// testWorkload runs the stream workload (3 producers) while the partition
// count changes 2 → 5 → 1 → 3 (on a grow-only stream: 2 → 5, 1 refused,
// → 8), and expects every row delivered once, in order.
func testWorkload(t *testing.T, db adapters.DB, opts Options) {
	probe := openStream(t, db.(adapters.Streamer), 1)
	props := adapters.Properties{
		"workload": "stream", "stream.batchsize": "50", "stream.keys": "64",
		"stream.rowsize": "220", "stream.maxlag": "20000", "stream.linger": "2ms",
	}
	w, err := stream.New(props, db)
	if err != nil {
		t.Fatalf("stream.New: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), opts.Timeout)
	defer cancel()
	if err := w.Start(ctx, "run", 2); err != nil {
		t.Fatalf("Start: %v", err)
	}
	stopped := false
	defer func() {
		if !stopped {
			_ = w.Stop(context.Background())
		}
	}()
	total := int64(opts.Rows)
	var done atomic.Int64
	var wg sync.WaitGroup
	for i := range 3 {
		worker := w.NewWorker(uint64(i + 1))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done.Add(1) <= total && ctx.Err() == nil {
				if _, _, err := worker.Transaction(ctx, nil, nil); err != nil {
					t.Errorf("Transaction: %v", err)
					return
				}
			}
		}()
	}
	// A stream that cannot lose partitions (Kafka) must refuse the shrink
	// with its own error and keep going; the others take it.
	_, growOnly := probe.(adapters.GrowOnlyStream)
	steps := []struct {
		n, want int
		refused bool
	}{{5, 5, false}, {1, 1, false}, {3, 3, false}}
	epochs := 4
	if growOnly {
		steps = []struct {
			n, want int
			refused bool
		}{{5, 5, false}, {1, 5, true}, {8, 8, false}}
		epochs = 3
	}
	for i, st := range steps {
		for done.Load() < total*int64(i+1)/4 && ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		err := w.SetPartitions(ctx, st.n)
		if st.refused && err == nil {
			t.Errorf("SetPartitions(%d) on a grow-only stream accepted; want its ShrinkError", st.n)
		} else if !st.refused && err != nil {
			t.Errorf("SetPartitions(%d): %v", st.n, err)
		}
		if got := w.Partitions(); got != st.want {
			t.Errorf("Partitions() = %d after SetPartitions(%d), want %d", got, st.n, st.want)
		}
		w.Sample(time.Second) // the sampler runs during changes too
	}
	wg.Wait()
	stopped = true
	if err := w.Stop(ctx); err != nil {
		t.Errorf("Stop: %v", err)
	}
	final, err := w.Finish(ctx)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	s := w.Summary()
	t.Logf("produced %d, consumed %d, lost %d, duplicated %d, out of order %d, failed writes %d, epochs %d, drained in %dms",
		s.Produced, s.Consumed, s.Lost, s.Duplicated, s.OutOfOrder, s.FailedWrites, s.Epochs, s.DrainMS)
	for _, p := range final.Problems {
		t.Errorf("problem: %s", p)
	}
	if s.Produced != total || s.Consumed != total || s.Distinct != total {
		t.Errorf("produced %d, consumed %d, distinct %d; want %d each", s.Produced, s.Consumed, s.Distinct, total)
	}
	if s.Lost != 0 || s.Duplicated != 0 || s.OutOfOrder != 0 || s.Unknown != 0 || s.FailedWrites != 0 {
		t.Errorf("want 0 lost, duplicated, out of order, unknown and failed rows")
	}
	if s.Epochs != epochs {
		t.Errorf("epochs = %d, want %d (the first partition map and each change made)", s.Epochs, epochs)
	}
}
