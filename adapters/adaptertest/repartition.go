package adaptertest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
)

// The repartition check's sizes.
const (
	rpPre     = 100 // keys inserted before
	rpWriters = 2
	rpMaxNew  = 40 // keys each writer inserts during the run
	rpReaders = 2
)

// repartitionRun is one run of testRepartition: the keys, the writers'
// and readers' shared state, and what the writers wrote last.
type repartitionRun struct {
	s        *suite
	t        *testing.T
	prefix   string
	preKeys  []string
	lim      limit
	progress atomic.Int64 // writes done
	working  atomic.Int64 // writers still writing
	done     chan struct{}
	lasts    []map[string]string // per writer: key → tag of its last write
}

// testRepartition changes the partition count up and down while two
// writers insert and update and two readers read (and scan), then checks
// that every key is there exactly once with its last value.
func (s *suite) testRepartition(t *testing.T) {
	rp, ok := s.db.(adapters.Repartitioner)
	if !ok {
		t.Skip("adapter does not implement adapters.Repartitioner")
	}
	ctx := t.Context()
	p0 := rp.Partitions()
	defer func() {
		if rp.Partitions() != p0 {
			if err := rp.SetPartitions(context.WithoutCancel(ctx), p0); err != nil {
				t.Errorf("restoring %d partitions: %v", p0, err)
			}
		}
	}()
	r := &repartitionRun{s: s, t: t, prefix: s.key("rp/"), done: make(chan struct{}), lasts: make([]map[string]string, rpWriters)}
	r.insertPre(ctx)

	var wg sync.WaitGroup
	r.working.Store(rpWriters)
	for g := range rpWriters {
		wg.Go(func() { r.writer(ctx, g) })
	}
	for i := range rpReaders {
		wg.Go(func() { r.reader(ctx, i) })
	}
	for _, n := range []int{4, 1, 7, 2, p0} {
		r.waitWrites()
		if r.working.Load() == 0 {
			break // the writers failed
		}
		if err := rp.SetPartitions(ctx, n); err != nil {
			t.Errorf("SetPartitions(%d) under load: %v", n, err)
			break
		}
		if got := rp.Partitions(); got != n {
			t.Errorf("Partitions() = %d after SetPartitions(%d)", got, n)
		}
	}
	r.waitWrites()
	close(r.done)
	wg.Wait()
	if t.Failed() {
		return
	}
	r.verify(ctx)
}

// insertPre inserts the keys that exist before the first change.
func (r *repartitionRun) insertPre(ctx context.Context) {
	c := r.s.client()
	r.preKeys = make([]string, rpPre)
	for i := range r.preKeys {
		r.preKeys[i] = fmt.Sprintf("%sk%03d", r.prefix, i)
		if err := c.insert(ctx, r.preKeys[i], "init", fieldNames); err != nil {
			r.t.Fatalf("Insert(%q): %v", r.preKeys[i], err)
		}
	}
}

// waitWrites waits for some writes under the current layout, so that the
// changes and the load really overlap however fast or slow the backend is.
func (r *repartitionRun) waitWrites() {
	target := r.progress.Load() + 20
	deadline := time.Now().Add(time.Minute)
	for r.progress.Load() < target && r.working.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Microsecond)
	}
}

func (r *repartitionRun) stopped() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// writer g updates its share of the keys that existed before and inserts
// new ones, one write in five, until done; it records each key's last tag.
func (r *repartitionRun) writer(ctx context.Context, g int) {
	defer r.working.Add(-1)
	c := r.s.client()
	rng := rand.New(rand.NewPCG(uint64(g), 2))
	last := map[string]string{}
	defer func() { r.lasts[g] = last }()
	var mine []string
	for i, k := range r.preKeys {
		if i%rpWriters == g {
			mine = append(mine, k)
			last[k] = "init"
		}
	}
	added := 0
	for i := 0; !r.stopped(); i++ {
		tag := fmt.Sprintf("w%d.%d", g, i)
		var err error
		var key, op string
		if i%5 == 0 && added < rpMaxNew {
			key, op = fmt.Sprintf("%sn%d-%02d", r.prefix, g, added), "Insert"
			added++
			mine = append(mine, key)
			err = c.insert(ctx, key, tag, fieldNames)
		} else {
			key, op = mine[rng.IntN(len(mine))], "Update"
			err = c.update(ctx, key, tag, fieldNames)
		}
		if err != nil {
			r.lim.errorf(r.t, "writer %d: %s(%q) while repartitioning: %v", g, op, key, err)
			return
		}
		last[key] = tag
		r.progress.Add(1)
	}
}

// reader n reads random keys (and, on ordered stores, scans one read in
// ten) until done: every record must be self-consistent, scans in order.
func (r *repartitionRun) reader(ctx context.Context, n int) {
	c := r.s.client()
	rng := rand.New(rand.NewPCG(uint64(n), 3))
	for i := 0; !r.stopped(); i++ {
		if !r.s.unordered && i%10 == 9 {
			if !r.scanOnce(ctx, c, n) {
				return
			}
			continue
		}
		key := r.preKeys[rng.IntN(rpPre)]
		got, err := c.read(ctx, key, nil)
		if err != nil {
			r.lim.errorf(r.t, "reader %d: Read(%q) while repartitioning: %v", n, key, err)
			return
		}
		if msg := selfConsistent(key, got); msg != "" {
			r.lim.errorf(r.t, "reader %d: Read(%q) while repartitioning: %s", n, key, msg)
		}
	}
}

// scanOnce scans 20 records from the prefix; false when the scan failed.
func (r *repartitionRun) scanOnce(ctx context.Context, c *client, n int) bool {
	recs, err := c.scan(ctx, r.prefix, 20, nil)
	if err != nil {
		r.lim.errorf(r.t, "reader %d: Scan(%q, 20) while repartitioning: %v", n, r.prefix, err)
		return false
	}
	for j, rec := range recs {
		if j > 0 && rec.Key <= recs[j-1].Key {
			r.lim.errorf(r.t, "reader %d: Scan(%q, 20) while repartitioning: %q after %q", n, r.prefix, rec.Key, recs[j-1].Key)
		}
		if msg := selfConsistent(rec.Key, rec.Fields); msg != "" {
			r.lim.errorf(r.t, "reader %d: Scan(%q, 20) while repartitioning: record %q: %s", n, r.prefix, rec.Key, msg)
		}
	}
	return true
}

// verify reads every key written back with its last value and, on an
// ordered store, scans the whole prefix.
func (r *repartitionRun) verify(ctx context.Context) {
	expect := map[string]string{}
	for _, last := range r.lasts {
		for k, tag := range last {
			expect[k] = tag
		}
	}
	keys := make([]string, 0, len(expect))
	for k := range expect {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	r.s.readAll(r.t, keys, func(k string) map[string]string {
		return map[string]string{"field0": expect[k], "field1": expect[k], "field2": expect[k], "field3": expect[k]}
	})
	if r.s.unordered {
		return // reading every key is all that can be done
	}
	scanned := r.scanAll(ctx, expect)
	if !slices.Equal(scanned, keys) {
		missing, extra := setDiff(keys, scanned), setDiff(scanned, keys)
		r.t.Errorf("scan of the whole prefix found %d keys, want %d: missing %s, unexpected %s", len(scanned), len(keys), short(missing), short(extra))
	}
}

// scanAll scans the whole prefix, page by page: every key exactly once, in
// order, with its last value, and nothing else. It returns the keys seen.
func (r *repartitionRun) scanAll(ctx context.Context, expect map[string]string) []string {
	c := r.s.client()
	var scanned []string
	start := r.prefix
	for page := 0; page < 100; page++ {
		recs, err := c.scan(ctx, start, 50, nil)
		if err != nil {
			r.t.Fatalf("Scan(%q, 50): %v", start, err)
		}
		more := len(recs) == 50
		for _, rec := range recs {
			if rec.Key == start && start != r.prefix {
				continue // the last key of the previous page
			}
			if !strings.HasPrefix(rec.Key, r.prefix) {
				more = false
				break
			}
			if len(scanned) > 0 && rec.Key <= scanned[len(scanned)-1] {
				r.lim.errorf(r.t, "scan of the whole prefix: %q after %q (out of order or twice)", rec.Key, scanned[len(scanned)-1])
			}
			scanned = append(scanned, rec.Key)
			if tag, ok := expect[rec.Key]; ok {
				if d := diffFields(rec.Fields, want(rec.Key, tag, fieldNames)); d != "" {
					r.lim.errorf(r.t, "scan of the whole prefix: record %q: %s", rec.Key, d)
				}
			}
		}
		if !more || len(recs) == 0 {
			break
		}
		start = recs[len(recs)-1].Key
	}
	return scanned
}
