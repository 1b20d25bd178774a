package ycsb

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"benchtop/adapters"
)

// The load phase through the Runner, plain and batched, with several
// threads: every key of insertstart..insertstart+insertcount-1 exactly
// once, batches no larger than the adapter's BatchSize, each record one
// INSERT.
func TestLoadThroughRunner(t *testing.T) {
	t.Parallel()
	for _, batch := range []int{0, 7} {
		t.Run("batch="+strconv.Itoa(batch), func(t *testing.T) {
			s := newStore()
			var db adapters.DB = s
			if batch > 0 {
				db = batchStore{store: s, size: batch}
			}
			props := map[string]string{"recordcount": "1000", "insertstart": "100", "insertcount": "803", "threadcount": "4"}
			res := runPhases(t, "load", props, db)
			if n, failed := count(res[0], OpInsert); n != 803 || failed != 0 || res[0].Set.Ops != 803 {
				t.Fatalf("INSERT count %d (failed %d), Ops %d; want 803", n, failed, res[0].Set.Ops)
			}
			cfg, _ := ParseConfig("load", adapters.Properties(props))
			want := keySet(cfg, 100, 903)
			if len(s.data) != 803 {
				t.Fatalf("%d records stored, want 803", len(s.data))
			}
			for k := range s.data {
				if !want[k] {
					t.Fatalf("stored %q, not a key of 100..902", k)
				}
			}
			if batch == 0 {
				if b := s.callsOf("batch"); len(b) != 0 {
					t.Errorf("%d batch calls on a store without batches", len(b))
				}
				return
			}
			if ins := s.callsOf("insert"); len(ins) != 0 {
				t.Errorf("%d single inserts on a batching store", len(ins))
			}
			total := 0
			for _, c := range s.callsOf("batch") {
				if c.count < 1 || c.count > batch {
					t.Errorf("batch of %d records, want 1..%d", c.count, batch)
				}
				total += c.count
			}
			if total != 803 {
				t.Errorf("batches carried %d records, want 803", total)
			}
		})
	}
}

// YCSB's insertion retries: a failed load insert is tried again up to
// core_workload_insertion_retry_limit times; each try is measured, and a
// record that fails more often than the limit is left out. A failed batch
// is tried again whole.
func TestInsertionRetry(t *testing.T) {
	t.Parallel()
	cases := []struct{ limit, fails int }{{0, 1}, {2, 2}, {2, 3}}
	for _, c := range cases {
		for _, batch := range []int{0, 4} {
			s := newStore()
			var db adapters.DB = s
			per := 1 // records a failed try holds
			if batch > 0 {
				db, per = batchStore{store: s, size: batch}, batch
			}
			props := map[string]string{"recordcount": "12", "threadcount": "1",
				"core_workload_insertion_retry_limit": strconv.Itoa(c.limit), "core_workload_insertion_retry_interval": "0.01"}
			cfg, _ := ParseConfig("load", adapters.Properties(props))
			victim := cfg.KeyName(5)
			s.failInserts[victim] = c.fails
			res := runPhases(t, "load", props, db)

			name := fmt.Sprintf("limit %d, %d failures, batch %d", c.limit, c.fails, batch)
			stored := c.fails <= c.limit
			n, failed := count(res[0], OpInsert)
			if want := int64(12 + per*min(c.fails, c.limit)); n != want {
				t.Errorf("%s: %d INSERTs measured, want %d", name, n, want)
			}
			if want := int64(per * min(c.fails, c.limit+1)); failed != want {
				t.Errorf("%s: %d failed INSERTs measured, want %d", name, failed, want)
			}
			if _, ok := s.data[victim]; ok != stored {
				t.Errorf("%s: record stored = %v, want %v", name, ok, stored)
			}
			want := 12
			if !stored {
				want -= per
			}
			if len(s.data) != want {
				t.Errorf("%s: %d records, want %d", name, len(s.data), want)
			}
		}
	}
}

// The pause before a retry is YCSB's: 0.8 to 1.2 times the interval,
// announced through Delay (which the runner waits out unmeasured).
func TestInsertionRetryDelay(t *testing.T) {
	t.Parallel()
	s := newStore()
	w, cw := newTestWorker(t, "load", map[string]string{"recordcount": "3",
		"core_workload_insertion_retry_limit": "1", "core_workload_insertion_retry_interval": "3600"}, s)
	s.failInserts[w.cfg.KeyName(0)] = 1
	one := func(int) int { return 1 }
	if cw.Delay() != 0 {
		t.Fatal("Delay before any failure")
	}
	if _, err := cw.Load(context.Background(), one); err == nil {
		t.Fatal("the injected failure did not fail")
	}
	if d := cw.Delay(); d < 47*time.Minute || d > 72*time.Minute {
		t.Errorf("Delay = %v, want 48 to 72 minutes", d)
	}
	// A cancelled context ends the wait without a try.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if n, err := cw.Load(ctx, one); n != 0 || err == nil {
		t.Errorf("Load on a cancelled wait = %d, %v; want 0 and the context's error", n, err)
	}
	if got := len(s.callsOf("insert")); got != 1 {
		t.Errorf("%d insert calls, want 1 (no retry yet)", got)
	}
}

// fieldlengthdistribution=histogram reads YCSB's histogram file: values
// are whole blocks no longer than the largest bucket.
func TestFieldLengthHistogram(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "hist.txt")
	if err := os.WriteFile(path, []byte("BlockSize\t8\n0\t0\n1\t5\n2\t0\n3\t5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newStore()
	w, cw := newTestWorker(t, "load", map[string]string{"recordcount": "200", "fieldlengthdistribution": "histogram", "fieldlengthhistogram": path}, s)
	if w.cfg.MaxFieldLength() != 24 {
		t.Errorf("MaxFieldLength = %d, want 24", w.cfg.MaxFieldLength())
	}
	loadAll(t, cw)
	lengths := map[int]int{}
	for _, c := range s.callsOf("insert") {
		for _, v := range c.values {
			lengths[len(v)]++
		}
	}
	for l := range lengths {
		if l%8 != 0 || l < 8 || l > 24 {
			t.Errorf("field length %d: want a whole block of 8, at most 24", l)
		}
	}
	if len(lengths) < 2 {
		t.Errorf("lengths drawn: %v, want several", lengths)
	}

	for _, bad := range []struct{ name, text string }{
		{"missing", ""},
		{"no header", "0\t1\n"},
		{"not numbers", "BlockSize\t8\n0\tx\n"},
		{"empty histogram", "BlockSize\t8\n0\t0\n"},
	} {
		p := filepath.Join(dir, bad.name)
		if bad.name != "missing" {
			_ = os.WriteFile(p, []byte(bad.text), 0o644)
		}
		_, err := ParseConfig("load", adapters.Properties{"recordcount": "1", "fieldlengthdistribution": "histogram", "fieldlengthhistogram": p})
		ce, ok := err.(*adapters.ConfigError)
		if !ok || ce.Key != "fieldlengthhistogram" || ce.Value != p {
			t.Errorf("%s: err = %v, want a ConfigError naming fieldlengthhistogram and the path", bad.name, err)
		}
	}
}
