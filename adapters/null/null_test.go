package null

import (
	"context"
	"errors"
	"testing"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

func TestRegistered(t *testing.T) {
	d, ok := adapters.Lookup("null")
	if !ok {
		t.Fatal(`"null" is not registered`)
	}
	if d.Description != "does nothing; measures the engine itself" {
		t.Errorf("description = %q", d.Description)
	}
	db, err := adapters.Open(context.Background(), "null", adapters.Properties{"partitions": "4"})
	if err != nil {
		t.Fatal(err)
	}
	if got := db.(adapters.Repartitioner).Partitions(); got != 4 {
		t.Errorf("Partitions() = %d, want 4", got)
	}
}

func TestOpenBadPartitions(t *testing.T) {
	for _, v := range []string{"0", "-1", "x", "4097"} {
		_, err := adapters.Open(context.Background(), "null", adapters.Properties{"partitions": v})
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != "partitions" || ce.Value != v {
			t.Errorf("partitions=%q: err = %v, want a ConfigError for partitions=%q", v, err, v)
		}
	}
}

func TestDoesNothing(t *testing.T) {
	ctx := context.Background()
	db := New()
	vals := []adapters.Field{{Name: "f", Value: []byte("v")}}
	if err := db.Insert(ctx, "t", "k", vals); err != nil {
		t.Errorf("Insert: %v", err)
	}
	if err := db.Update(ctx, "t", "k", vals); err != nil {
		t.Errorf("Update: %v", err)
	}
	dst := []adapters.Field{{Name: "kept"}}
	got, err := db.Read(ctx, "t", "k", nil, dst)
	if err != nil || len(got) != 1 || got[0].Name != "kept" {
		t.Errorf("Read = %v, %v; want dst unchanged and no error", got, err)
	}
	recs, err := db.Scan(ctx, "t", "", 10, nil, nil)
	if err != nil || len(recs) != 0 {
		t.Errorf("Scan = %v, %v; want nothing and no error", recs, err)
	}
	if err := db.Delete(ctx, "t", "k"); err != nil {
		t.Errorf("Delete: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

func TestSetPartitions(t *testing.T) {
	ctx := context.Background()
	db := New()
	for _, n := range []int{8, 3, 1} {
		if err := db.SetPartitions(ctx, n); err != nil {
			t.Fatalf("SetPartitions(%d): %v", n, err)
		}
		if got := db.Partitions(); got != n {
			t.Errorf("Partitions() = %d after SetPartitions(%d)", got, n)
		}
	}
	var ce *adapters.ConfigError
	if err := db.SetPartitions(ctx, 0); !errors.As(err, &ce) {
		t.Errorf("SetPartitions(0) = %v, want a ConfigError", err)
	}
	if got := db.Partitions(); got != 1 {
		t.Errorf("Partitions() = %d after a refused change, want 1", got)
	}
	if got, want := db.Describe(), "null (stores nothing), 1 partition"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
}

func BenchmarkRead(b *testing.B) {
	db := New()
	ctx := context.Background()
	dst := make([]adapters.Field, 0, 10)
	for b.Loop() {
		dst, _ = db.Read(ctx, "usertable", "user1", nil, dst[:0])
	}
}

func TestKeys(t *testing.T) {
	d, _ := adapters.Lookup("null")
	adaptertest.CheckKeys(t, d.Prefixes, d.Keys, adapters.Properties{}, func(r *adapters.Reader) { readPartitions(r) })
}
