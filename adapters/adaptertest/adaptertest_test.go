package adaptertest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

// refDB is a small, obviously correct adapter for testing the suite
// itself. With bug set it breaks one rule, so that we can see the suite
// catch it.
type refDB struct {
	bug string

	mu         sync.RWMutex
	data       map[string]map[string][]byte // key → field → value; values never modified
	parts      int
	lastInsert string
}

func newRef(bug string) *refDB {
	return &refDB{bug: bug, data: map[string]map[string][]byte{}, parts: 1}
}

func (db *refDB) notFound(op, key string) error {
	if db.bug == "plainnotfound" {
		return fmt.Errorf("ref: %s %q: no such key", op, key)
	}
	return fmt.Errorf("ref: %s %q: %w", op, key, adapters.ErrNotFound)
}

func appendRec(dst []adapters.Field, rec map[string][]byte, fields []string) []adapters.Field {
	if fields == nil {
		names := mapKeys(rec)
		slices.Sort(names)
		for _, name := range names {
			dst = append(dst, adapters.Field{Name: name, Value: rec[name]})
		}
		return dst
	}
	for _, name := range fields {
		if v, ok := rec[name]; ok {
			dst = append(dst, adapters.Field{Name: strings.Clone(name), Value: v})
		}
	}
	return dst
}

func mapKeys(m map[string][]byte) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

func (db *refDB) Read(_ context.Context, _, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	rec, ok := db.data[key]
	if !ok {
		return dst, db.notFound("read", key)
	}
	n := len(dst)
	dst = appendRec(dst, rec, fields)
	if len(fields) > 0 && len(dst) == n && db.bug != "emptyisfound" {
		return dst, db.notFound("read", key) // none of the fields asked for
	}
	return dst, nil
}

func (db *refDB) Scan(_ context.Context, _, start string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	var keys []string
	for k := range db.data {
		if k >= start {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	keys = keys[:min(count, len(keys))]
	if db.bug == "unsortedscan" {
		slices.Reverse(keys)
	}
	for _, k := range keys {
		dst = append(dst, adapters.Record{Key: k, Fields: appendRec(nil, db.data[k], fields)})
	}
	return dst, nil
}

func (db *refDB) Update(_ context.Context, _, key string, values []adapters.Field) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	old, ok := db.data[key]
	if !ok {
		return db.notFound("update", key)
	}
	rec := map[string][]byte{}
	if db.bug != "updatereplaces" {
		for k, v := range old {
			rec[k] = v
		}
	}
	for _, f := range values {
		rec[strings.Clone(f.Name)] = slices.Clone(f.Value)
	}
	db.data[strings.Clone(key)] = rec
	return nil
}

func (db *refDB) Insert(_ context.Context, _, key string, values []adapters.Field) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	rec := map[string][]byte{}
	for _, f := range values {
		if db.bug == "keepbuffers" {
			rec[f.Name] = f.Value
		} else {
			rec[strings.Clone(f.Name)] = slices.Clone(f.Value)
		}
	}
	if db.bug != "keepbuffers" {
		key = strings.Clone(key)
	}
	db.data[key] = rec
	db.lastInsert = key
	return nil
}

func (db *refDB) Delete(_ context.Context, _, key string) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if _, ok := db.data[key]; !ok {
		return db.notFound("delete", key)
	}
	delete(db.data, key)
	return nil
}

func (db *refDB) Close() error { return nil }

func (db *refDB) BatchSize() int { return 7 }

func (db *refDB) InsertBatch(ctx context.Context, table string, recs []adapters.Record) error {
	for _, r := range recs {
		if err := db.Insert(ctx, table, r.Key, r.Fields); err != nil {
			return err
		}
	}
	return nil
}

func (db *refDB) Partitions() int {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.parts
}

func (db *refDB) SetPartitions(_ context.Context, n int) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if n < 1 {
		return errors.New("ref: bad partition count")
	}
	if db.bug == "losesonrepartition" && n < db.parts {
		delete(db.data, db.lastInsert)
	}
	db.parts = n
	return nil
}

// unorderedDB is refDB claiming unordered scans, and scanning in an
// arbitrary order.
type unorderedDB struct{ *refDB }

func (unorderedDB) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{UnorderedScan: true}
}

func (db unorderedDB) Scan(ctx context.Context, table, start string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	n := len(dst)
	dst, err := db.refDB.Scan(ctx, table, start, count, fields, dst)
	switch db.bug {
	case "unordered-onlystart":
		// Only the start key: what a broken hash scan that never pages
		// gives.
		dst = dst[:min(len(dst), n+1)]
	case "unordered-short":
		if len(dst)-n > 1 {
			dst = dst[:len(dst)-1]
		}
	case "unordered-empty":
		dst = dst[:n]
	}
	slices.Reverse(dst[n:])
	return dst, err
}

func TestReference(t *testing.T) {
	db := newRef("")
	t.Cleanup(func() { // runs after Run's own cleanup
		if len(db.data) != 0 {
			t.Errorf("%d keys left after Run; it should clean up", len(db.data))
		}
	})
	adaptertest.Run(t, db, adaptertest.Options{})
}

func TestUnorderedReference(t *testing.T) {
	adaptertest.Run(t, unorderedDB{newRef("")}, adaptertest.Options{Table: "t", KeyPrefix: "fixed-"})
}

// TestBroken runs the suite against a broken refDB; it is run by
// TestCatchesBugs in a child process, and skipped otherwise.
func TestBroken(t *testing.T) {
	bug := os.Getenv("ADAPTERTEST_BUG")
	if bug == "" {
		t.Skip("run by TestCatchesBugs")
	}
	if bug == "fixed-without-option" {
		// A fixed-column table run as if it took any field name.
		adaptertest.Run(t, fixedDB{newRef("")}, adaptertest.Options{})
		return
	}
	if strings.HasPrefix(bug, "unordered-") {
		adaptertest.Run(t, unorderedDB{newRef(bug)}, adaptertest.Options{})
		return
	}
	adaptertest.Run(t, newRef(bug), adaptertest.Options{})
}

// TestCatchesBugs checks that the suite fails an adapter that breaks a
// rule, in the subtest about that rule.
func TestCatchesBugs(t *testing.T) {
	for _, tc := range []struct{ bug, subtest string }{
		{"keepbuffers", "Ownership"},
		{"plainnotfound", "NotFound"},
		{"emptyisfound", "MissingColumns"},
		{"unsortedscan", "Scan"},
		{"updatereplaces", "Update"},
		{"losesonrepartition", "Repartition"},
		{"unordered-onlystart", "Scan"},
		{"unordered-short", "Scan"},
		{"unordered-empty", "Scan"},
		{"fixed-without-option", "RoundTrip"},
	} {
		t.Run(tc.bug, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestBroken$", "-test.v", "-test.count=1")
			cmd.Env = append(os.Environ(), "ADAPTERTEST_BUG="+tc.bug)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("the suite passed an adapter with bug %q:\n%s", tc.bug, out)
			}
			if want := "--- FAIL: TestBroken/" + tc.subtest + " "; !strings.Contains(string(out), want) {
				t.Errorf("bug %q: output lacks %q:\n%s", tc.bug, want, out)
			}
		})
	}
}

// fixedDB is refDB as a table of four columns, field0 to field3: other
// names are refused, and a read of all fields returns every column, an
// unwritten one as a nil value (SQL's NULL).
type fixedDB struct{ *refDB }

var fixedColumns = []string{"field0", "field1", "field2", "field3"}

func checkColumns(values []adapters.Field) error {
	for _, f := range values {
		if !slices.Contains(fixedColumns, f.Name) {
			return fmt.Errorf("fixed: no column %q", f.Name)
		}
	}
	return nil
}

func (db fixedDB) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	if err := checkColumns(values); err != nil {
		return err
	}
	return db.refDB.Insert(ctx, table, key, values)
}

func (db fixedDB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	if err := checkColumns(values); err != nil {
		return err
	}
	return db.refDB.Update(ctx, table, key, values)
}

func (db fixedDB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	if fields != nil {
		return db.refDB.Read(ctx, table, key, fields, dst)
	}
	n := len(dst)
	dst, err := db.refDB.Read(ctx, table, key, nil, dst)
	if err != nil {
		return dst, err
	}
	got := map[string][]byte{}
	for _, f := range dst[n:] {
		got[f.Name] = f.Value
	}
	dst = dst[:n]
	for _, c := range fixedColumns {
		dst = append(dst, adapters.Field{Name: c, Value: got[c]})
	}
	return dst, nil
}

// A table of fixed columns passes with Options.FixedColumns (the round
// trip of binary values goes through its columns).
func TestFixedColumnsReference(t *testing.T) {
	adaptertest.Run(t, fixedDB{newRef("")}, adaptertest.Options{FixedColumns: true})
}
