package mongodb

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

const envURL = "BENCHTOP_MONGODB_URL"

// testURL returns BENCHTOP_MONGODB_URL with its database replaced by a
// fresh ycsb_test_<random> one, or skips the test.
func testURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skip("integration test: needs a MongoDB-wire server; enable with " +
			"`eval \"$(bash .ci/servers/mongodb.sh start)\"` or " +
			"`bash .ci/servers/mongodb.sh start; export BENCHTOP_MONGODB_URL='mongodb://127.0.0.1:27017/ycsb?w=1'`")
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	db := "ycsb_test_" + hex.EncodeToString(rnd[:])
	e := hostsEnd(u)
	q := queryOf(u)
	if q != "" {
		q = "?" + q
	}
	return u[:e] + "/" + db + q
}

// openTest opens the adapter on a fresh database, dropped at the end.
func openTest(t testing.TB, extra adapters.Properties) *DB {
	t.Helper()
	props := adapters.Properties{PropURL: testURL(t)}
	for k, v := range extra {
		props[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	db, err := Open(ctx, props)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	d := db.(*DB)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := d.db.Drop(ctx); err != nil {
			t.Errorf("drop database %s: %v", d.Database(), err)
		}
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func fields(n int, tag string) []adapters.Field {
	fs := make([]adapters.Field, n)
	for i := range fs {
		fs[i] = adapters.Field{Name: fmt.Sprintf("field%d", i), Value: []byte(fmt.Sprintf("%s-%d-\x00\xff", tag, i))}
	}
	return fs
}

func asMap(fs []adapters.Field) map[string]string {
	m := make(map[string]string, len(fs))
	for _, f := range fs {
		m[f.Name] = string(f.Value)
	}
	return m
}

// TestConformance runs the shared adapter suite, with YCSB's defaults and
// with batched upserting inserts.
func TestConformance(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props adapters.Properties
	}{
		{"defaults", nil},
		{"batch10-upsert", adapters.Properties{PropBatchSize: "10", PropUpsert: "true"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := openTest(t, tc.props)
			adaptertest.Run(t, d, adaptertest.Options{})
		})
	}
}

func TestIntegrationCRUD(t *testing.T) {
	d := openTest(t, nil)
	ctx := testCtx(t)
	const tbl = "usertable"

	if err := d.Insert(ctx, tbl, "user1", fields(3, "a")); err != nil {
		t.Fatal(err)
	}
	got, err := d.Read(ctx, tbl, "user1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := asMap(fields(3, "a"))
	if m := asMap(got); fmt.Sprint(m) != fmt.Sprint(want) {
		t.Errorf("Read all = %q, want %q", m, want)
	}

	got, err = d.Read(ctx, tbl, "user1", []string{"field1", "nosuch"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Name != "field1" || string(got[0].Value) != want["field1"] {
		t.Errorf("Read [field1] = %v", got)
	}

	_, err = d.Read(ctx, tbl, "nosuch", nil, nil)
	if !errors.Is(err, adapters.ErrNotFound) || adapters.Kind(err) != adapters.KindNotFound {
		t.Errorf("Read missing: %v (kind %s)", err, adapters.Kind(err))
	}

	err = d.Insert(ctx, tbl, "user1", fields(1, "dup"))
	if k := adapters.Kind(err); k != KindDuplicate {
		t.Errorf("duplicate Insert: %v (kind %q, want %q)", err, k, KindDuplicate)
	}

	if err := d.Update(ctx, tbl, "user1", []adapters.Field{{Name: "field1", Value: []byte("new")}, {Name: "field9", Value: []byte("added")}}); err != nil {
		t.Fatal(err)
	}
	got, _ = d.Read(ctx, tbl, "user1", nil, nil)
	m := asMap(got)
	if m["field0"] != want["field0"] || m["field1"] != "new" || m["field2"] != want["field2"] || m["field9"] != "added" {
		t.Errorf("after $set: %q", m)
	}
	err = d.Update(ctx, tbl, "nosuch", fields(1, "x"))
	if !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("Update missing: %v", err)
	}
	if err := d.Update(ctx, tbl, "user1", nil); err != nil {
		t.Errorf("empty Update of an existing key: %v", err)
	}
	if err := d.Update(ctx, tbl, "nosuch", nil); !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("empty Update of a missing key: %v", err)
	}

	if err := d.Delete(ctx, tbl, "user1"); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, tbl, "user1", nil, nil); !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("Read after Delete: %v", err)
	}
	if err := d.Delete(ctx, tbl, "user1"); !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("Delete missing: %v", err)
	}
}

func TestIntegrationScan(t *testing.T) {
	d := openTest(t, nil)
	ctx := testCtx(t)
	const tbl = "usertable"
	// Inserted out of order; _id order is string order.
	for _, i := range []int{7, 3, 19, 0, 11, 5, 14, 2, 9, 16, 1, 4, 6, 8, 10, 12, 13, 15, 17, 18} {
		if err := d.Insert(ctx, tbl, fmt.Sprintf("user%03d", i), fields(2, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := d.Scan(ctx, tbl, "user005", 5, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range recs {
		keys = append(keys, r.Key)
		if len(r.Fields) != 2 {
			t.Errorf("%s has %d fields", r.Key, len(r.Fields))
		}
	}
	if got := strings.Join(keys, ","); got != "user005,user006,user007,user008,user009" {
		t.Errorf("Scan keys = %s", got)
	}

	recs, err = d.Scan(ctx, tbl, "user0045", 2, []string{"field1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].Key != "user005" || len(recs[0].Fields) != 1 || recs[0].Fields[0].Name != "field1" {
		t.Errorf("Scan with projection = %+v", recs)
	}

	recs, err = d.Scan(ctx, tbl, "user018", 100, nil, nil)
	if err != nil || len(recs) != 2 {
		t.Errorf("Scan past the end: %d records, %v", len(recs), err)
	}
	recs, err = d.Scan(ctx, tbl, "user000", 0, nil, nil)
	if err != nil || len(recs) != 0 {
		t.Errorf("Scan of 0: %d records, %v", len(recs), err)
	}
	recs, err = d.Scan(ctx, tbl, "zzz", 10, nil, nil)
	if err != nil || len(recs) != 0 {
		t.Errorf("Scan beyond all keys: %d records, %v", len(recs), err)
	}
}

// The engine reuses its buffers once a call returns: nothing the adapter
// wrote may change when they do.
func TestIntegrationBufferOwnership(t *testing.T) {
	d := openTest(t, adapters.Properties{PropBatchSize: "4"})
	ctx := testCtx(t)
	const tbl = "usertable"
	if d.BatchSize() != 4 {
		t.Fatalf("BatchSize() = %d, want 4", d.BatchSize())
	}

	key := []byte("user-own-1")
	val := []byte("original")
	if err := d.Insert(ctx, tbl, string(key), []adapters.Field{{Name: "field0", Value: val}}); err != nil {
		t.Fatal(err)
	}
	copy(val, "CHANGED!")

	vals := make([][]byte, 4)
	recs := make([]adapters.Record, 4)
	for i := range recs {
		vals[i] = []byte(fmt.Sprintf("batch-%d", i))
		recs[i] = adapters.Record{Key: fmt.Sprintf("user-batch-%d", i), Fields: []adapters.Field{{Name: "field0", Value: vals[i]}}}
	}
	if err := d.InsertBatch(ctx, tbl, recs); err != nil {
		t.Fatal(err)
	}
	for i := range vals {
		copy(vals[i], "XXXXXXX")
	}

	got, err := d.Read(ctx, tbl, "user-own-1", nil, nil)
	if err != nil || len(got) != 1 || string(got[0].Value) != "original" {
		t.Errorf("Read after reusing the Insert buffer = %q, %v", got, err)
	}
	for i := range recs {
		got, err := d.Read(ctx, tbl, recs[i].Key, nil, nil)
		if err != nil || len(got) != 1 || string(got[0].Value) != fmt.Sprintf("batch-%d", i) {
			t.Errorf("Read %s after reusing the batch buffers = %q, %v", recs[i].Key, got, err)
		}
	}

	// Values handed out are the caller's: changing one changes no other.
	a, _ := d.Read(ctx, tbl, "user-own-1", nil, nil)
	copy(a[0].Value, "mutated!")
	b, _ := d.Read(ctx, tbl, "user-own-1", nil, nil)
	if !bytes.Equal(b[0].Value, []byte("original")) {
		t.Errorf("a returned value aliases another read: %q", b[0].Value)
	}
}

func TestIntegrationInsertBatchDuplicates(t *testing.T) {
	d := openTest(t, adapters.Properties{"batchsize": "5"})
	ctx := testCtx(t)
	const tbl = "usertable"
	for _, k := range []string{"k2", "k3"} {
		if err := d.Insert(ctx, tbl, k, fields(1, "old")); err != nil {
			t.Fatal(err)
		}
	}
	var recs []adapters.Record
	for i := 0; i < 5; i++ {
		recs = append(recs, adapters.Record{Key: fmt.Sprintf("k%d", i), Fields: fields(2, "new")})
	}
	err := d.InsertBatch(ctx, tbl, recs)
	if k := adapters.Kind(err); k != KindDuplicate {
		t.Fatalf("InsertBatch over existing keys: %v (kind %q)", err, k)
	}
	if !strings.Contains(err.Error(), "2 of 5 writes failed") {
		t.Errorf("InsertBatch error = %q, want a count of the failed writes", err)
	}
	// Unordered: every other record went in.
	for i := 0; i < 5; i++ {
		got, err := d.Read(ctx, tbl, fmt.Sprintf("k%d", i), []string{"field0"}, nil)
		if err != nil {
			t.Errorf("k%d: %v", i, err)
			continue
		}
		want := "new-0-\x00\xff"
		if i == 2 || i == 3 {
			want = "old-0-\x00\xff"
		}
		if string(got[0].Value) != want {
			t.Errorf("k%d field0 = %q, want %q", i, got[0].Value, want)
		}
	}
}

func TestIntegrationUpsert(t *testing.T) {
	d := openTest(t, adapters.Properties{PropUpsert: "true"})
	ctx := testCtx(t)
	const tbl = "usertable"
	if err := d.Insert(ctx, tbl, "u1", fields(3, "first")); err != nil {
		t.Fatal(err)
	}
	if err := d.Insert(ctx, tbl, "u1", fields(1, "second")); err != nil {
		t.Fatalf("upsert over an existing key: %v", err)
	}
	got, err := d.Read(ctx, tbl, "u1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A replace, as YCSB's replaceOne: the old fields are gone.
	if m := asMap(got); len(m) != 1 || m["field0"] != "second-0-\x00\xff" {
		t.Errorf("after upsert: %q", m)
	}
	recs := []adapters.Record{
		{Key: "u1", Fields: fields(2, "third")},
		{Key: "u2", Fields: fields(2, "third")},
	}
	if err := d.InsertBatch(ctx, tbl, recs); err != nil {
		t.Fatalf("batch upsert: %v", err)
	}
	for _, k := range []string{"u1", "u2"} {
		got, err := d.Read(ctx, tbl, k, nil, nil)
		if m := asMap(got); err != nil || len(m) != 2 || m["field1"] != "third-1-\x00\xff" {
			t.Errorf("%s after batch upsert: %q, %v", k, m, err)
		}
	}
}

func TestIntegrationDescribe(t *testing.T) {
	d := openTest(t, nil)
	if got := d.Describe(); !strings.HasPrefix(got, "mongodb://") || !strings.Contains(got, d.Database()) {
		t.Errorf("Describe() = %q", got)
	}
}
