package ycsb

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"benchtop/adapters"
)

// recDB records the fields each call asked for or wrote.
type recDB struct {
	reads   [][]string
	scans   [][]string
	updates [][]string
	keys    []string
}

func (d *recDB) Read(_ context.Context, _, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	d.reads = append(d.reads, append([]string(nil), fields...))
	d.keys = append(d.keys, strings.Clone(key)) // the key is the worker's buffer
	return dst, nil
}
func (d *recDB) Scan(_ context.Context, _, key string, _ int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	d.scans = append(d.scans, append([]string(nil), fields...))
	return dst, nil
}
func (d *recDB) Update(_ context.Context, _, key string, v []adapters.Field) error {
	var names []string
	for _, f := range v {
		names = append(names, f.Name)
	}
	d.updates = append(d.updates, names)
	d.keys = append(d.keys, strings.Clone(key)) // the key is the worker's buffer
	return nil
}
func (d *recDB) Insert(context.Context, string, string, []adapters.Field) error { return nil }
func (d *recDB) Delete(context.Context, string, string) error                   { return nil }
func (d *recDB) Close() error                                                   { return nil }

// run drives n transactions of the core workload on a recording store.
func run(t *testing.T, props adapters.Properties, n int) *recDB {
	t.Helper()
	cfg, err := ParseConfig("run", props)
	if err != nil {
		t.Fatal(err)
	}
	db := &recDB{}
	wl, err := New(cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	w := wl.NewWorker(42)
	clock := func() int64 { return 0 }
	for range n {
		if _, _, err := w.Transaction(context.Background(), clock, func(int, int64, int64, error) {}); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

func wide(extra map[string]string) adapters.Properties {
	p := adapters.Properties{"recordcount": "1000", "fieldcount": "100", "fieldlength": "20", "fieldnameprefix": "f",
		"readproportion": "0.4", "updateproportion": "0.4", "scanproportion": "0.2", "maxscanlength": "50"}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// The published HBase scenarios A, C and E touch f0 ... f19 of 100
// columns on every operation: readfields/writefields=first:20.
func TestFixedFieldsOnEveryOperation(t *testing.T) {
	t.Parallel()
	db := run(t, wide(map[string]string{"readfields": "first:20", "writefields": "first:20"}), 3000)
	want := strings.Join(fieldNames("f", 20), ",")
	for name, calls := range map[string][][]string{"read": db.reads, "scan": db.scans, "update": db.updates} {
		if len(calls) == 0 {
			t.Fatalf("no %s calls", name)
		}
		for _, got := range calls {
			if strings.Join(got, ",") != want {
				t.Fatalf("%s asked for %v, want f0..f19", name, got)
			}
		}
	}
}

// random:N draws N distinct fields per operation, all of them in turn;
// YCSB's readallfields=false is random:1.
func TestRandomFieldsAreDistinct(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		props map[string]string
		n     int
	}{
		{map[string]string{"readfields": "random:5", "writefields": "random:3"}, 5},
		{map[string]string{"readallfields": "false"}, 1},
	} {
		db := run(t, wide(tc.props), 4000)
		seen := map[string]bool{}
		for _, got := range append(db.reads, db.scans...) {
			if len(got) != tc.n {
				t.Fatalf("%v: a read asked for %d fields %v, want %d", tc.props, len(got), got, tc.n)
			}
			dup := map[string]bool{}
			for _, f := range got {
				if dup[f] {
					t.Fatalf("%v: field %s twice in one read: %v", tc.props, f, got)
				}
				dup[f] = true
				seen[f] = true
			}
		}
		if len(seen) != 100 {
			t.Errorf("%v: %d of 100 fields ever read", tc.props, len(seen))
		}
	}
	db := run(t, wide(map[string]string{"writefields": "random:3"}), 2000)
	for _, got := range db.updates {
		if len(got) != 3 {
			t.Fatalf("an update wrote %v, want 3 fields", got)
		}
	}
}

// Named fields, all, and YCSB's defaults (all read, one written).
func TestFieldChoiceForms(t *testing.T) {
	t.Parallel()
	db := run(t, wide(map[string]string{"readfields": "f7, f3", "writefields": "all"}), 500)
	for _, got := range db.reads {
		if strings.Join(got, ",") != "f7,f3" {
			t.Fatalf("read %v, want f7,f3", got)
		}
	}
	for _, got := range db.updates {
		if len(got) != 100 {
			t.Fatalf("update wrote %d fields, want all 100", len(got))
		}
	}
	db = run(t, wide(nil), 500)
	for _, got := range db.reads {
		if len(got) != 0 {
			t.Fatalf("default read asked for %v, want all (nil)", got)
		}
	}
	for _, got := range db.updates {
		if len(got) != 1 {
			t.Fatalf("default update wrote %v, want one field (writeallfields=false)", got)
		}
	}
}

func TestFieldChoiceErrors(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"first:0", "first:101", "random:x", "f100", "f1,f1", "g1", "first:"} {
		_, err := ParseConfig("run", wide(map[string]string{"readfields": v}))
		if err == nil || !strings.Contains(err.Error(), "readfields") {
			t.Errorf("readfields=%q: error %v, want one naming readfields", v, err)
		}
	}
}

// Run with recordcount N after loading more: keys come only from the
// first N loaded (the published run loaded 300 M rows and queried 30 M).
func TestRunDrawsKeysFromTheFirstRecordcount(t *testing.T) {
	t.Parallel()
	for _, dist := range []string{"uniform", "zipfian", "hotspot"} {
		db := run(t, wide(map[string]string{"recordcount": "300", "insertorder": "ordered", "zeropadding": "1",
			"requestdistribution": dist, "scanproportion": "0"}), 5000)
		for _, k := range db.keys {
			n, err := strconv.Atoi(strings.TrimPrefix(k, "user"))
			if err != nil || n < 0 || n >= 300 {
				t.Fatalf("%s: key %q outside the first 300 records", dist, k)
			}
		}
	}
}
