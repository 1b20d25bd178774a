package memory

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 8} {
		t.Run(fmt.Sprintf("partitions=%d", n), func(t *testing.T) {
			db := mustNew(t, n)
			adaptertest.Run(t, db, adaptertest.Options{})
		})
	}
}

func mustNew(t testing.TB, n int) *DB {
	t.Helper()
	db, err := New(n)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestOpen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, ok := adapters.Lookup("memory")
	if !ok {
		t.Fatal(`"memory" is not registered`)
	}
	if !slices.Equal(d.Prefixes, []string{"memory."}) {
		t.Errorf("Prefixes = %q", d.Prefixes)
	}
	for _, tc := range []struct {
		props adapters.Properties
		parts int
		desc  string
	}{
		{adapters.Properties{}, 1, "in-process, 1 partition"},
		{adapters.Properties{"partitions": "8"}, 8, "in-process, 8 partitions"},
		{adapters.Properties{"partitions": " 16 "}, 16, "in-process, 16 partitions"},
	} {
		db, err := adapters.Open(ctx, "memory", tc.props)
		if err != nil {
			t.Errorf("Open(%v): %v", tc.props, err)
			continue
		}
		if got := db.(adapters.Repartitioner).Partitions(); got != tc.parts {
			t.Errorf("Open(%v): Partitions() = %d, want %d", tc.props, got, tc.parts)
		}
		if got := db.(adapters.Describer).Describe(); got != tc.desc {
			t.Errorf("Open(%v): Describe() = %q, want %q", tc.props, got, tc.desc)
		}
	}
	for _, v := range []string{"0", "-3", "many", "1.5", "4097"} {
		_, err := adapters.Open(ctx, "memory", adapters.Properties{"partitions": v})
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != "partitions" || ce.Value != v {
			t.Errorf("partitions=%q: err = %v, want a ConfigError naming partitions=%q", v, err, v)
		}
	}
	db := mustNew(t, 2)
	var ce *adapters.ConfigError
	if err := db.SetPartitions(ctx, 0); !errors.As(err, &ce) {
		t.Errorf("SetPartitions(0) = %v, want a ConfigError", err)
	}
}

func TestNotFoundErrors(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustNew(t, 4)
	for name, err := range map[string]error{
		"read, no table":   second(db.Read(ctx, "t", "k", nil, nil)),
		"update, no table": db.Update(ctx, "t", "k", nil),
		"delete, no table": db.Delete(ctx, "t", "k"),
	} {
		if !errors.Is(err, adapters.ErrNotFound) || adapters.Kind(err) != adapters.KindNotFound {
			t.Errorf("%s: %v, want not found", name, err)
		}
	}
	if err := db.Insert(ctx, "t", "a", nil); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"read":   second(db.Read(ctx, "t", "k", nil, nil)),
		"update": db.Update(ctx, "t", "k", nil),
		"delete": db.Delete(ctx, "t", "k"),
	} {
		if !errors.Is(err, adapters.ErrNotFound) || !strings.Contains(err.Error(), `"k"`) {
			t.Errorf("%s: %v, want not found naming the key", name, err)
		}
	}
}

func second[T any](_ T, err error) error { return err }

func TestTablesAreSeparate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustNew(t, 2)
	f := []adapters.Field{{Name: "f", Value: []byte("1")}}
	if err := db.Insert(ctx, "a", "k", f); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Read(ctx, "b", "k", nil, nil); !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("key of table a found in table b: %v", err)
	}
	if err := db.Insert(ctx, "b", "k", []adapters.Field{{Name: "f", Value: []byte("2")}}); err != nil {
		t.Fatal(err)
	}
	for table, want := range map[string]string{"a": "1", "b": "2"} {
		got, err := db.Read(ctx, table, "k", nil, nil)
		if err != nil || len(got) != 1 || string(got[0].Value) != want {
			t.Errorf("table %s: %v, %v; want f=%s", table, got, err, want)
		}
	}
}

func TestUpdateAddsFields(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustNew(t, 1)
	if err := db.Insert(ctx, "t", "k", []adapters.Field{{Name: "a", Value: []byte("1")}}); err != nil {
		t.Fatal(err)
	}
	before, _ := db.Read(ctx, "t", "k", nil, nil)
	err := db.Update(ctx, "t", "k", []adapters.Field{
		{Name: "b", Value: []byte("2")}, {Name: "a", Value: []byte("3")}, {Name: "b", Value: []byte("4")},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := db.Read(ctx, "t", "k", nil, nil)
	if fmt.Sprint(fieldsString(got)) != "a=3 b=4" {
		t.Errorf("after update: %s, want a=3 b=4", fieldsString(got))
	}
	if fieldsString(before) != "a=1" {
		t.Errorf("a Read before the update now shows %s, want a=1", fieldsString(before))
	}
}

func fieldsString(fs []adapters.Field) string {
	var parts []string
	for _, f := range fs {
		parts = append(parts, f.Name+"="+string(f.Value))
	}
	return strings.Join(parts, " ")
}

// TestScanAcrossPartitions compares scans over 8 partitions with a sorted
// list of the keys.
func TestScanAcrossPartitions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mustNew(t, 8)
	rng := rand.New(rand.NewPCG(1, 2))
	var keys []string
	for len(keys) < 1000 {
		k := fmt.Sprintf("k%06d", rng.IntN(1_000_000))
		if _, err := db.Read(ctx, "t", k, nil, nil); err == nil {
			continue
		}
		keys = append(keys, k)
		if err := db.Insert(ctx, "t", k, []adapters.Field{{Name: "a", Value: []byte(k)}, {Name: "b", Value: []byte("b" + k)}}); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(keys)
	// Every partition must hold some of them, or this tests nothing.
	for i, p := range db.lookup("t").parts.Load().parts {
		if p.tree.Len() < 50 {
			t.Fatalf("partition %d holds %d of 1000 keys", i, p.tree.Len())
		}
	}
	for range 200 {
		start := fmt.Sprintf("k%06d", rng.IntN(1_000_100))
		count := 1 + rng.IntN(120)
		var fields []string
		if rng.IntN(2) == 0 {
			fields = []string{"b"}
		}
		got, err := db.Scan(ctx, "t", start, count, fields, nil)
		if err != nil {
			t.Fatal(err)
		}
		i, _ := slices.BinarySearch(keys, start)
		want := keys[i:min(i+count, len(keys))]
		if !slices.Equal(keysOf(got), want) {
			t.Fatalf("Scan(%q, %d) = %d keys from %q, want %d from %q", start, count, len(got), firstKey(got), len(want), want)
		}
		for _, r := range got {
			wantFields := "a=" + r.Key + " b=b" + r.Key
			if fields != nil {
				wantFields = "b=b" + r.Key
			}
			if fieldsString(r.Fields) != wantFields {
				t.Fatalf("Scan(%q, %d, %q): record %q has %s, want %s", start, count, fields, r.Key, fieldsString(r.Fields), wantFields)
			}
		}
	}
}

func keysOf(recs []adapters.Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = r.Key
	}
	return out
}

func firstKey(recs []adapters.Record) string {
	if len(recs) == 0 {
		return ""
	}
	return recs[0].Key
}

// TestReshardReplaysChanges makes every kind of change in the windows
// between a reshard's steps, where only the change log can carry it, and
// checks that all of them arrive.
func TestReshardReplaysChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, tc := range []struct{ from, to int }{{1, 5}, {5, 2}, {3, 3 * 7}} {
		t.Run(fmt.Sprintf("%d→%d", tc.from, tc.to), func(t *testing.T) {
			db := mustNew(t, tc.from)
			want := map[string]string{}
			put := func(k, v string) {
				if err := db.Insert(ctx, "t", k, []adapters.Field{{Name: "f", Value: []byte(v)}}); err != nil {
					t.Fatal(err)
				}
				want[k] = "f=" + v
			}
			for i := range 3000 {
				put(fmt.Sprintf("k%05d", i), "0")
			}
			var step int
			db.reshardHook = func(string) {
				step++
				for i := step; i < 3000; i += 7 {
					k := fmt.Sprintf("k%05d", i)
					switch i % 4 {
					case 0: // in place
						if err := db.Update(ctx, "t", k, []adapters.Field{{Name: "f", Value: []byte("u")}}); err != nil {
							t.Fatal(err)
						}
						want[k] = "f=u"
					case 1: // new field array
						if err := db.Update(ctx, "t", k, []adapters.Field{{Name: "g", Value: []byte("g")}}); err != nil {
							t.Fatal(err)
						}
						want[k] += " g=g"
					case 2:
						if err := db.Delete(ctx, "t", k); err != nil {
							t.Fatal(err)
						}
						delete(want, k)
					case 3:
						put(fmt.Sprintf("new%d-%05d", step, i), "n")
					}
				}
			}
			if err := db.SetPartitions(ctx, tc.to); err != nil {
				t.Fatal(err)
			}
			checkContents(t, db, want)
			if st := db.lastReshard.Load(); st.replayed == 0 {
				t.Errorf("nothing was replayed: %+v", *st)
			}
		})
	}
}

// checkContents checks that table "t" holds exactly want (key → fields as
// fieldsString), by a full scan and by reads.
func checkContents(t *testing.T, db *DB, want map[string]string) {
	t.Helper()
	ctx := context.Background()
	all, err := db.Scan(ctx, "t", "", len(want)+10, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	bad := 0
	for i, r := range all {
		switch {
		case i > 0 && r.Key <= all[i-1].Key:
			t.Errorf("scan: %q after %q", r.Key, all[i-1].Key)
			bad++
		case seen[r.Key]:
			t.Errorf("scan: %q twice", r.Key)
			bad++
		case want[r.Key] == "":
			t.Errorf("scan: %q should not be there", r.Key)
			bad++
		case fieldsString(r.Fields) != want[r.Key]:
			t.Errorf("scan: %q has %s, want %s", r.Key, fieldsString(r.Fields), want[r.Key])
			bad++
		}
		seen[r.Key] = true
		if bad > 5 {
			t.FailNow()
		}
	}
	for k, w := range want {
		got, err := db.Read(ctx, "t", k, nil, nil)
		if err != nil || fieldsString(got) != w {
			t.Errorf("Read(%q) = %s, %v; want %s", k, fieldsString(got), err, w)
			if bad++; bad > 5 {
				t.FailNow()
			}
		}
	}
	if len(all) != len(want) {
		t.Errorf("scan found %d records, want %d", len(all), len(want))
	}
	total := 0
	for _, p := range db.lookup("t").parts.Load().parts {
		total += p.tree.Len()
		if p.tree.Len() != len(p.index) {
			t.Errorf("a partition's tree holds %d records and its index %d", p.tree.Len(), len(p.index))
		}
	}
	if total != len(want) {
		t.Errorf("partitions hold %d records, want %d", total, len(want))
	}
}

// TestReshardUnderLoad reshards 1→8→3→16→1 while writers insert, update
// (in place and with new fields) and delete, and readers read and scan.
// At the end every key must be there exactly once with its last value.
func TestReshardUnderLoad(t *testing.T) {
	t.Parallel()
	const (
		writers = 4
		preload = 5000 // several copy chunks (of 1024) from the first partition
		readers = 2
	)
	ctx := context.Background()
	db := mustNew(t, 1)
	for i := range preload {
		k := fmt.Sprintf("pre%06d", i)
		if err := db.Insert(ctx, "t", k, []adapters.Field{{Name: "f", Value: []byte("0")}}); err != nil {
			t.Fatal(err)
		}
	}

	var (
		done   = make(chan struct{})
		ops    atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
		wants  = make([]map[string]string, writers)
	)
	fail := func(format string, a ...any) {
		if !failed.Swap(true) {
			t.Errorf(format, a...)
		}
	}
	for w := range writers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 9))
			want := map[string]string{}
			defer func() { wants[w] = want }()
			var mine []string // writer w owns pre keys i%writers == w, and its new keys
			for i := w; i < preload; i += writers {
				k := fmt.Sprintf("pre%06d", i)
				mine = append(mine, k)
				want[k] = "f=0"
			}
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				v := fmt.Sprintf("w%d.%d", w, i)
				switch r := rng.IntN(100); {
				case r < 20: // insert a new key
					k := fmt.Sprintf("new%d-%07d", w, i)
					if err := db.Insert(ctx, "t", k, []adapters.Field{{Name: "f", Value: []byte(v)}}); err != nil {
						fail("Insert(%q): %v", k, err)
						return
					}
					mine = append(mine, k)
					want[k] = "f=" + v
				case r < 30: // delete, and forget the key
					j := rng.IntN(len(mine))
					k := mine[j]
					err := db.Delete(ctx, "t", k)
					if _, had := want[k]; had != (err == nil) {
						fail("Delete(%q) = %v, but the key is %v", k, err, map[bool]string{true: "there", false: "gone"}[had])
						return
					}
					delete(want, k)
					mine[j] = mine[len(mine)-1]
					mine = mine[:len(mine)-1]
				case r < 35: // update adding a field
					k := mine[rng.IntN(len(mine))]
					f := fmt.Sprintf("g%d", i)
					if err := db.Update(ctx, "t", k, []adapters.Field{{Name: f, Value: []byte(v)}}); err != nil {
						fail("Update(%q): %v", k, err)
						return
					}
					want[k] += " " + f + "=" + v
				default: // update in place
					k := mine[rng.IntN(len(mine))]
					if err := db.Update(ctx, "t", k, []adapters.Field{{Name: "f", Value: []byte(v)}}); err != nil {
						fail("Update(%q): %v", k, err)
						return
					}
					want[k] = strings.Replace(want[k], fieldValue(want[k]), "f="+v, 1)
				}
				ops.Add(1)
			}
		})
	}
	for r := range readers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(r), 10))
			var dst []adapters.Field
			var recs []adapters.Record
			for {
				select {
				case <-done:
					return
				default:
				}
				// A pre key may have been deleted by its writer: accept
				// not-found, but no other error.
				k := fmt.Sprintf("pre%06d", rng.IntN(preload))
				var err error
				dst, err = db.Read(ctx, "t", k, nil, dst[:0])
				if err != nil && !errors.Is(err, adapters.ErrNotFound) {
					fail("Read(%q): %v", k, err)
					return
				}
				recs, err = db.Scan(ctx, "t", k, 50, nil, recs[:0])
				if err != nil {
					fail("Scan(%q): %v", k, err)
					return
				}
				for i, rec := range recs {
					if rec.Key < k || (i > 0 && rec.Key <= recs[i-1].Key) {
						fail("Scan(%q) while resharding: %q at %d after %q", k, rec.Key, i, recs[max(i-1, 0)].Key)
						return
					}
				}
			}
		})
	}

	waitOps := func(n int64) {
		target := ops.Load() + n
		for ops.Load() < target && !failed.Load() {
			time.Sleep(100 * time.Microsecond)
		}
	}
	for _, n := range []int{8, 3, 16, 1} {
		waitOps(1000)
		if err := db.SetPartitions(ctx, n); err != nil {
			t.Fatal(err)
		}
		st := db.lastReshard.Load()
		t.Logf("1 table → %2d partitions: %d records copied, %d changes replayed (%d with operations stopped), took %v, blocked %v",
			n, st.records, st.replayed, st.final, st.total, st.blocked)
		if got := db.Partitions(); got != n {
			t.Errorf("Partitions() = %d, want %d", got, n)
		}
	}
	waitOps(1000)
	close(done)
	wg.Wait()
	if failed.Load() {
		return
	}
	want := map[string]string{}
	for _, m := range wants {
		for k, v := range m {
			want[k] = v
		}
	}
	t.Logf("%d operations, %d records at the end", ops.Load(), len(want))
	checkContents(t, db, want)
}

// fieldValue returns the "f=..." part of a fieldsString.
func fieldValue(s string) string {
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

func TestKeys(t *testing.T) {
	t.Parallel()
	d, _ := adapters.Lookup("memory")
	adaptertest.CheckKeys(t, d.Prefixes, d.Keys, adapters.Properties{}, func(r *adapters.Reader) {
		readPartitions(r)
		readEstimate(r)
	})
}
