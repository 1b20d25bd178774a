package mongodb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
)

// volumeRecords is how many records TestIntegrationVolume works on: 10,000
// against FerretDB on PostgreSQL (what .ci/servers/mongodb.sh starts: about
// 2,000 finds by _id and 1,000 updates per second with 8 workers here) or a
// real MongoDB; 300 against FerretDB's SQLite handler, the script's fallback,
// whose finds by _id scan the whole collection (about 14 per second at
// 10,000 records).
func volumeRecords(t *testing.T) int {
	if b := os.Getenv("BENCHTOP_MONGODB_BACKEND"); b == "sqlite" {
		t.Logf("BENCHTOP_MONGODB_BACKEND=%s: FerretDB's SQLite handler, 300 records instead of 10,000", b)
		return 300
	}
	return 10000
}

const (
	volumeWorkers = 8
	volumeBatch   = 100
	volumeFields  = 4
)

func volumeKey(i int) string { return fmt.Sprintf("user%06d", i) }

// volumeValue is field f of record i: 100 bytes, binary, different for
// every record, field and tag.
func volumeValue(i, f int, tag string) []byte {
	v := []byte(fmt.Sprintf("%s-%d-%d-\x00\xff-", tag, i, f))
	for len(v) < 100 {
		v = append(v, byte(i*31+f*7+len(v)))
	}
	return v
}

func volumeRecord(i int, tag string) []adapters.Field {
	fs := make([]adapters.Field, volumeFields)
	for f := range fs {
		fs[f] = adapters.Field{Name: fmt.Sprintf("field%d", f), Value: volumeValue(i, f, tag)}
	}
	return fs
}

// parallel calls fn for every item of jobs from volumeWorkers goroutines
// and returns the first error; the others stop at their next item.
func parallel(ctx context.Context, jobs []int, fn func(ctx context.Context, job int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < volumeWorkers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				j := int(next.Add(1)) - 1
				if j >= len(jobs) {
					return
				}
				if err := fn(ctx, jobs[j]); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

// TestIntegrationVolume loads volumeRecords records in shuffled batches
// from 8 workers, reads every one back by _id, updates two fields of every
// 5th that is not a 10th, deletes every 10th, and checks the whole collection with paged scans: the counts,
// the _id order and every byte.
func TestIntegrationVolume(t *testing.T) {
	n := volumeRecords(t)
	d := openTest(t, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const tbl = "usertable"
	rng := rand.New(rand.NewPCG(1, 2))
	order := rng.Perm(n)

	// Load, in batches of shuffled keys.
	var batches []int
	for lo := 0; lo < n; lo += volumeBatch {
		batches = append(batches, lo)
	}
	t0 := time.Now()
	err := parallel(ctx, batches, func(ctx context.Context, lo int) error {
		hi := min(lo+volumeBatch, n)
		recs := make([]adapters.Record, 0, hi-lo)
		for _, i := range order[lo:hi] {
			recs = append(recs, adapters.Record{Key: volumeKey(i), Fields: volumeRecord(i, "load")})
		}
		return d.InsertBatch(ctx, tbl, recs)
	})
	if err != nil {
		t.Fatalf("load of %d records: %v", n, err)
	}
	t.Logf("loaded %d records in %v", n, time.Since(t0).Round(time.Millisecond))

	// Every record read back by _id.
	t0 = time.Now()
	err = parallel(ctx, order, func(ctx context.Context, i int) error {
		got, err := d.Read(ctx, tbl, volumeKey(i), nil, nil)
		if err != nil {
			return err
		}
		return sameFields(volumeKey(i), got, volumeRecord(i, "load"))
	})
	if err != nil {
		t.Fatalf("reading back %d records: %v", n, err)
	}
	t.Logf("read %d records by _id in %v", n, time.Since(t0).Round(time.Millisecond))

	// Every 10th deleted, every other 5th updated (two fields).
	var updates, deletes []int
	for i := 0; i < n; i++ {
		switch {
		case i%10 == 0:
			deletes = append(deletes, i)
		case i%5 == 0:
			updates = append(updates, i)
		}
	}
	t0 = time.Now()
	err = parallel(ctx, updates, func(ctx context.Context, i int) error {
		return d.Update(ctx, tbl, volumeKey(i), []adapters.Field{
			{Name: "field1", Value: volumeValue(i, 1, "upd")},
			{Name: "field3", Value: volumeValue(i, 3, "upd")},
		})
	})
	if err != nil {
		t.Fatalf("%d updates: %v", len(updates), err)
	}
	err = parallel(ctx, deletes, func(ctx context.Context, i int) error {
		return d.Delete(ctx, tbl, volumeKey(i))
	})
	if err != nil {
		t.Fatalf("%d deletes: %v", len(deletes), err)
	}
	t.Logf("%d updates and %d deletes in %v", len(updates), len(deletes), time.Since(t0).Round(time.Millisecond))
	for _, i := range []int{0, deletes[len(deletes)/2], deletes[len(deletes)-1]} {
		if _, err := d.Read(ctx, tbl, volumeKey(i), nil, nil); !errors.Is(err, adapters.ErrNotFound) {
			t.Errorf("Read of deleted %s: %v, want not found", volumeKey(i), err)
		}
	}

	checkVolumeScan(ctx, t, d, tbl, n)
}

// checkVolumeScan walks the whole collection in pages of 1,000 and checks
// it holds exactly the records TestIntegrationVolume left, in _id order.
func checkVolumeScan(ctx context.Context, t *testing.T, d *DB, tbl string, n int) {
	t.Helper()
	const page = 1000
	want := 0 // the next record expected
	next := func() {
		for want < n && want%10 == 0 {
			want++ // deleted
		}
	}
	next()
	start := ""
	pages := 0
	for {
		recs, err := d.Scan(ctx, tbl, start, page, nil, nil)
		if err != nil {
			t.Fatalf("Scan from %q: %v", start, err)
		}
		pages++
		for _, r := range recs {
			if want >= n || r.Key != volumeKey(want) {
				t.Fatalf("page %d: Scan gave %s, want %s", pages, r.Key, volumeKey(want))
			}
			exp := volumeRecord(want, "load")
			if want%5 == 0 {
				exp[1].Value = volumeValue(want, 1, "upd")
				exp[3].Value = volumeValue(want, 3, "upd")
			}
			if err := sameFields(r.Key, r.Fields, exp); err != nil {
				t.Fatal(err)
			}
			want++
			next()
		}
		if len(recs) < page {
			break
		}
		start = recs[len(recs)-1].Key + "\x00" // the next key after the last
	}
	if want != n {
		t.Fatalf("Scan ended before %s (%d pages)", volumeKey(want), pages)
	}
	t.Logf("scanned %d records, %d per page, in %d Scan calls", n-n/10, page, pages)
}

// sameFields reports whether got holds exactly the fields of want.
func sameFields(key string, got, want []adapters.Field) error {
	if len(got) != len(want) {
		return fmt.Errorf("%s: %d fields, want %d", key, len(got), len(want))
	}
	m := asMap(got)
	for _, f := range want {
		if v, ok := m[f.Name]; !ok || v != string(f.Value) {
			return fmt.Errorf("%s: %s = %.24q..., want %.24q...", key, f.Name, v, f.Value)
		}
	}
	return nil
}
