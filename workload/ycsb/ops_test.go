package ycsb

import (
	"context"
	"math"
	"slices"
	"strconv"
	"testing"

	"benchtop/adapters"
	"benchtop/workload/gen"
)

// keySet is the keys of key numbers lo..hi-1 as the workload names them.
func keySet(cfg *Config, lo, hi int64) map[string]bool {
	m := map[string]bool{}
	for n := lo; n < hi; n++ {
		m[cfg.KeyName(n)] = true
	}
	return m
}

// Reads choose keys among the loaded ones (uniform: every key is read)
// and ask for all fields (nil), every field by name (readallfieldsbyname,
// dataintegrity) or one random field (readallfields=false), as YCSB's
// doTransactionRead does.
func TestReadKeyAndFieldChoice(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		props map[string]string
		check func(t *testing.T, fields []string, names []string)
	}{
		{"all fields", nil, func(t *testing.T, f, _ []string) {
			if f != nil {
				t.Fatalf("fields = %v, want nil (all)", f)
			}
		}},
		{"all by name", map[string]string{"readallfieldsbyname": "true"}, func(t *testing.T, f, names []string) {
			if !slices.Equal(f, names) {
				t.Fatalf("fields = %v, want every name %v", f, names)
			}
		}},
		{"dataintegrity names them", map[string]string{"dataintegrity": "true"}, func(t *testing.T, f, names []string) {
			if !slices.Equal(f, names) {
				t.Fatalf("fields = %v, want every name %v", f, names)
			}
		}},
		{"one field", map[string]string{"readallfields": "false"}, func(t *testing.T, f, names []string) {
			if len(f) != 1 || !slices.Contains(names, f[0]) {
				t.Fatalf("fields = %v, want one of %v", f, names)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			props := map[string]string{"recordcount": "50", "fieldcount": "4", "readproportion": "1", "updateproportion": "0"}
			for k, v := range c.props {
				props[k] = v
			}
			db := newStore()
			w, cw := newTestWorker(t, "run", props, db)
			loadAll(t, cw)
			db.reset()
			fieldsSeen := map[string]bool{}
			for i := 0; i < 2000; i++ {
				op, n, err := cw.Transaction(context.Background(), clock(), noSub(t))
				if op != OpRead || n != 1 || err != nil {
					t.Fatalf("Transaction = %d, %d, %v; want READ, 1, nil", op, n, err)
				}
			}
			keys := keySet(w.cfg, 0, 50)
			seen := map[string]bool{}
			for _, c2 := range db.callsOf("read") {
				if !keys[c2.key] {
					t.Fatalf("read of %q: not a loaded key", c2.key)
				}
				seen[c2.key] = true
				c.check(t, c2.fields, w.fieldNames)
				for _, f := range c2.fields {
					fieldsSeen[f] = true
				}
			}
			if len(seen) != 50 {
				t.Errorf("uniform reads touched %d of 50 keys in 2000 reads", len(seen))
			}
			if c.name == "one field" && len(fieldsSeen) != 4 {
				t.Errorf("single-field reads chose %d of 4 fields", len(fieldsSeen))
			}
		})
	}
}

// Updates write one random field (writeallfields=false) or every field,
// each value fieldlength bytes long, to a loaded key.
func TestUpdateFieldChoice(t *testing.T) {
	t.Parallel()
	for _, all := range []bool{false, true} {
		t.Run("writeallfields="+strconv.FormatBool(all), func(t *testing.T) {
			db := newStore()
			w, cw := newTestWorker(t, "run", map[string]string{"recordcount": "20", "fieldcount": "5", "fieldlength": "7",
				"readproportion": "0", "updateproportion": "1", "writeallfields": strconv.FormatBool(all)}, db)
			loadAll(t, cw)
			db.reset()
			chosen := map[string]bool{}
			for i := 0; i < 500; i++ {
				if op, _, err := cw.Transaction(context.Background(), clock(), noSub(t)); op != OpUpdate || err != nil {
					t.Fatalf("Transaction = %d, %v", op, err)
				}
			}
			keys := keySet(w.cfg, 0, 20)
			for _, c := range db.callsOf("update") {
				if !keys[c.key] {
					t.Fatalf("update of %q: not a loaded key", c.key)
				}
				want := 1
				if all {
					want = 5
				}
				if len(c.values) != want {
					t.Fatalf("update wrote %d fields, want %d", len(c.values), want)
				}
				for name, v := range c.values {
					if !slices.Contains(w.fieldNames, name) || len(v) != 7 {
						t.Fatalf("update field %q = %d bytes, want one of %v, 7 bytes", name, len(v), w.fieldNames)
					}
					chosen[name] = true
				}
			}
			if len(chosen) != 5 {
				t.Errorf("updates chose %d of 5 fields", len(chosen))
			}
		})
	}
}

// The load phase inserts insertstart..insertstart+insertcount-1 in order;
// run-phase inserts continue from recordcount (YCSB's transaction insert
// sequence), named user + FNV hash (hashed) or user + number (ordered).
func TestInsertKeySequence(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"hashed", "ordered"} {
		t.Run(order, func(t *testing.T) {
			db := newStore()
			w, cw := newTestWorker(t, "run", map[string]string{"recordcount": "30", "insertstart": "10", "insertcount": "20",
				"insertorder": order, "zeropadding": "4", "readproportion": "0", "updateproportion": "0", "insertproportion": "1"}, db)
			if n := loadAll(t, cw); n != 20 {
				t.Fatalf("load inserted %d, want 20", n)
			}
			for i, c := range db.callsOf("insert") {
				if want := w.cfg.KeyName(int64(10 + i)); c.key != want {
					t.Fatalf("load insert %d: key %q, want %q", i, c.key, want)
				}
				if len(c.values) != 10 {
					t.Fatalf("load insert wrote %d fields, want all 10", len(c.values))
				}
			}
			db.reset()
			for i := 0; i < 5; i++ {
				if op, _, err := cw.Transaction(context.Background(), clock(), noSub(t)); op != OpInsert || err != nil {
					t.Fatalf("Transaction = %d, %v", op, err)
				}
			}
			for i, c := range db.callsOf("insert") {
				if want := w.cfg.KeyName(int64(30 + i)); c.key != want {
					t.Fatalf("run insert %d: key %q, want %q", i, c.key, want)
				}
			}
			if got := w.insertSeq.Last(); got != 34 {
				t.Errorf("acknowledged insert sequence at %d, want 34", got)
			}
			k := w.cfg.KeyName(12)
			if order == "ordered" && k != "user0012" {
				t.Errorf("ordered key 12 = %q, want user0012", k)
			}
			if order == "hashed" && k != "user"+strconv.FormatInt(gen.FNVHash64(12), 10) {
				t.Errorf("hashed key 12 = %q", k)
			}
		})
	}
}

// Scans start at a loaded key and ask for minscanlength..maxscanlength
// records: uniformly, or zipfian (favouring short scans) as YCSB's
// scanlengthdistribution says; readallfields=false asks for one field.
func TestScanLengthDistribution(t *testing.T) {
	t.Parallel()
	for _, dist := range []string{"uniform", "zipfian"} {
		t.Run(dist, func(t *testing.T) {
			db := newStore()
			w, cw := newTestWorker(t, "run", map[string]string{"recordcount": "100", "readproportion": "0", "updateproportion": "0",
				"scanproportion": "1", "minscanlength": "2", "maxscanlength": "11", "scanlengthdistribution": dist, "readallfields": "false"}, db)
			loadAll(t, cw)
			db.reset()
			const n = 20000
			for i := 0; i < n; i++ {
				if op, _, err := cw.Transaction(context.Background(), clock(), noSub(t)); op != OpScan || err != nil {
					t.Fatalf("Transaction = %d, %v", op, err)
				}
			}
			hist := make([]int, 12)
			keys := keySet(w.cfg, 0, 100)
			for _, c := range db.callsOf("scan") {
				if c.count < 2 || c.count > 11 {
					t.Fatalf("scan length %d outside [2, 11]", c.count)
				}
				if !keys[c.key] || len(c.fields) != 1 {
					t.Fatalf("scan from %q with fields %v: want a loaded key and one field", c.key, c.fields)
				}
				hist[c.count]++
			}
			switch dist {
			case "uniform":
				// 10 lengths, 2000 expected each: within 5 standard deviations.
				for l := 2; l <= 11; l++ {
					if math.Abs(float64(hist[l])-2000) > 5*math.Sqrt(2000*0.9) {
						t.Errorf("length %d drawn %d times of %d, want about 2000", l, hist[l], n)
					}
				}
			case "zipfian":
				// Zipfian over 10 items with theta 0.99: the shortest is the most
				// likely (about 34 %) and each is likelier than the next but one.
				if f := float64(hist[2]) / n; f < 0.30 || f > 0.38 {
					t.Errorf("shortest scan drawn %.3f of the time, want about 0.34", f)
				}
				for l := 2; l+2 <= 11; l++ {
					if hist[l] <= hist[l+2] {
						t.Errorf("length %d drawn %d times, not more than length %d (%d)", l, hist[l], l+2, hist[l+2])
					}
				}
			}
		})
	}
}

// A read-modify-write reads then updates the same key; it is timed as one
// operation from before the read to after the update, and its READ and
// UPDATE are recorded as sub-operations with their own times.
func TestReadModifyWrite(t *testing.T) {
	t.Parallel()
	db := newStore()
	w, cw := newTestWorker(t, "run", map[string]string{"recordcount": "20", "readproportion": "0", "updateproportion": "0",
		"readmodifywriteproportion": "1", "readallfields": "false"}, db)
	loadAll(t, cw)
	db.reset()
	type subOp struct {
		op         int
		start, end int64
		err        error
	}
	var subs []subOp
	now := clock()
	op, n, err := cw.Transaction(context.Background(), now, func(op int, s, e int64, err error) { subs = append(subs, subOp{op, s, e, err}) })
	if op != OpRMW || n != 1 || err != nil {
		t.Fatalf("Transaction = %d, %d, %v; want READ-MODIFY-WRITE, 1, nil", op, n, err)
	}
	// The clock ticks 10 per call: read from 10 to 20, update from 20 to 30.
	want := []subOp{{OpRead, 10, 20, nil}, {OpUpdate, 20, 30, nil}}
	if !slices.Equal(subs, want) {
		t.Errorf("sub-operations = %v, want %v", subs, want)
	}
	db.mu.Lock()
	calls := slices.Clone(db.calls)
	db.mu.Unlock()
	if len(calls) != 2 || calls[0].op != "read" || calls[1].op != "update" || calls[0].key != calls[1].key {
		t.Fatalf("calls = %+v, want a read then an update of one key", calls)
	}
	if len(calls[0].fields) != 1 || len(calls[1].values) != 1 {
		t.Errorf("read fields %v, update %v: want one field each", calls[0].fields, calls[1].values)
	}
	if !keySet(w.cfg, 0, 20)[calls[0].key] {
		t.Errorf("key %q is not a loaded key", calls[0].key)
	}

	// A failed read is recorded and not followed by the update.
	db.reset()
	db.mu.Lock()
	clear(db.data)
	db.mu.Unlock()
	subs = nil
	_, _, err = cw.Transaction(context.Background(), clock(), func(op int, s, e int64, err error) { subs = append(subs, subOp{op, s, e, err}) })
	if adapters.Kind(err) != adapters.KindNotFound || len(subs) != 1 || subs[0].op != OpRead || subs[0].err == nil {
		t.Errorf("after a failed read: err %v, subs %v; want not_found and one failed READ", err, subs)
	}
	if u := db.callsOf("update"); len(u) != 0 {
		t.Errorf("%d updates after a failed read", len(u))
	}
}

// Deletes remove loaded keys.
func TestDelete(t *testing.T) {
	t.Parallel()
	db := newStore()
	w, cw := newTestWorker(t, "run", map[string]string{"recordcount": "40", "readproportion": "0", "updateproportion": "0",
		"deleteproportion": "1", "requestdistribution": "sequential"}, db)
	loadAll(t, cw)
	db.reset()
	for i := 0; i < 40; i++ {
		if op, _, err := cw.Transaction(context.Background(), clock(), noSub(t)); op != OpDelete || err != nil {
			t.Fatalf("Transaction = %d, %v", op, err)
		}
	}
	keys := keySet(w.cfg, 0, 40)
	for _, c := range db.callsOf("delete") {
		if !keys[c.key] {
			t.Fatalf("delete of %q: not a loaded key", c.key)
		}
	}
	if len(db.data) != 0 {
		t.Errorf("%d records left after 40 sequential deletes of 40", len(db.data))
	}
}

// The operation mix follows the proportions (workload A's 50/50, and a
// mix of all six).
func TestOperationMix(t *testing.T) {
	t.Parallel()
	db := newStore()
	props := map[string]string{"recordcount": "100", "readproportion": "0.3", "updateproportion": "0.2", "insertproportion": "0.1",
		"scanproportion": "0.1", "readmodifywriteproportion": "0.2", "deleteproportion": "0.1", "maxscanlength": "5"}
	_, cw := newTestWorker(t, "run", props, db)
	loadAll(t, cw)
	const n = 20000
	got := make([]int, numOps)
	sub := func(int, int64, int64, error) {}
	for i := 0; i < n; i++ {
		op, _, _ := cw.Transaction(context.Background(), clock(), sub)
		got[op]++
	}
	want := []float64{0.3, 0.2, 0.1, 0.1, 0.2, 0.1}
	for op, p := range want {
		sd := math.Sqrt(n * p * (1 - p))
		if math.Abs(float64(got[op])-n*p) > 5*sd {
			t.Errorf("%s: %d of %d, want about %.0f", OpNames[op], got[op], n, n*p)
		}
	}
}

// Keys chosen by "latest" follow the acknowledged inserts and never pass
// them: a key beyond the last acknowledged insert is never read, and most
// reads are of the few latest keys.
func TestKeysNeverBeyondAcknowledgedInserts(t *testing.T) {
	t.Parallel()
	db := newStore()
	w, cw := newTestWorker(t, "run", map[string]string{"recordcount": "10", "readproportion": "0.5", "updateproportion": "0",
		"insertproportion": "0.5", "requestdistribution": "latest"}, db)
	loadAll(t, cw)
	number := map[string]int64{}
	for n := int64(0); n < 2000; n++ {
		number[w.cfg.KeyName(n)] = n
	}
	var reads, near int
	for i := 0; i < 2000; i++ {
		db.reset()
		op, _, err := cw.Transaction(context.Background(), clock(), noSub(t))
		if err != nil {
			t.Fatalf("operation %d: %v (a key not yet inserted?)", i, err)
		}
		if op != OpRead {
			continue
		}
		n, ok := number[db.callsOf("read")[0].key]
		last := w.insertSeq.Last()
		if !ok || n > last {
			t.Fatalf("read of key number %d (known %v), beyond the last acknowledged insert %d", n, ok, last)
		}
		reads++
		if last-n < 10 {
			near++
		}
	}
	// Zipfian from the latest, theta 0.99: the latest key alone draws
	// about 1/zeta(n) (13 % at n = 1000), and about a quarter of the reads
	// fall on the 10 latest keys here (YCSB's zipfian keeps the eta of its
	// first item count as the key space grows). Uniform choice would give
	// about 5 %.
	if f := float64(near) / float64(reads); f < 0.15 {
		t.Errorf("%d of %d reads among the 10 latest keys (%.2f), want about 0.25", near, reads, f)
	}
}
