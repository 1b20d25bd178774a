package memory

import (
	"context"
	"fmt"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/workload/stream"
	"benchtop/workload/stream/streamtest"
)

func TestStreamConformance(t *testing.T) {
	t.Parallel()
	db, err := New(1)
	if err != nil {
		t.Fatal(err)
	}
	streamtest.Run(t, db, streamtest.Options{Rows: 200000})
}

// BenchmarkStream drives the stream workload on the embedded log with two
// producers and 220-byte rows, and reports rows/s consumed (produce,
// consume, order check and latency measure included; no runner).
func BenchmarkStream(b *testing.B) {
	for _, parts := range []int{1, 4, 8, 32} {
		b.Run(fmt.Sprintf("partitions=%d", parts), func(b *testing.B) {
			db, err := New(1)
			if err != nil {
				b.Fatal(err)
			}
			w, err := stream.New(adapters.Properties{"stream.rowsize": "220"}, db)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := w.Start(ctx, "run", parts); err != nil {
				b.Fatal(err)
			}
			const producers = 2
			per := b.N/producers + 1
			t0 := time.Now()
			b.ResetTimer()
			done := make(chan error, producers)
			for i := range producers {
				wk := w.NewWorker(uint64(i + 1))
				go func() {
					for range per {
						if _, _, err := wk.Transaction(ctx, nil, nil); err != nil {
							done <- err
							return
						}
					}
					done <- nil
				}()
			}
			for range producers {
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Stop(ctx); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			s := w.Summary()
			if s.Lost != 0 || s.Duplicated != 0 || s.OutOfOrder != 0 || s.Consumed != int64(per*producers) {
				b.Fatalf("consumed %d of %d: lost %d, duplicated %d, out of order %d", s.Consumed, per*producers, s.Lost, s.Duplicated, s.OutOfOrder)
			}
			b.ReportMetric(float64(s.Consumed)/time.Since(t0).Seconds(), "rows/s")
			b.ReportMetric(float64(s.Consumed)*220/1e6/time.Since(t0).Seconds(), "MB/s")
		})
	}
}
