package memory

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"benchtop/adapters"
)

// One-field updates (YCSB's writeallfields=false) free the bytes they
// replace: after every field but one of every record was replaced, one at
// a time, the store holds about one copy of the data. When a record's
// values shared one buffer, the old buffer stayed alive for the field not
// replaced, and the heap held the data nearly twice. Values handed to a
// reader before the updates keep their bytes.
func TestUpdatesFreeWhatTheyReplace(t *testing.T) {
	// Not parallel: it reads the whole process's heap, which the other
	// tests' stores would fill (21.5 MB for 10 MB once, beside them).
	const records, fields, size = 1000, 10, 1000
	db := mustNew(t, 1)
	ctx := context.Background()
	val := func(tag string, i, f int) []byte {
		b := make([]byte, size)
		copy(b, fmt.Sprintf("%s-%d-%d", tag, i, f))
		return b
	}
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	for i := 0; i < records; i++ {
		var rec []adapters.Field
		for f := 0; f < fields; f++ {
			rec = append(rec, adapters.Field{Name: fmt.Sprintf("field%d", f), Value: val("old", i, f)})
		}
		if err := db.Insert(ctx, "t", fmt.Sprint(i), rec); err != nil {
			t.Fatal(err)
		}
	}
	kept, err := db.Read(ctx, "t", "0", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for f := 1; f < fields; f++ {
		for i := 0; i < records; i++ {
			u := []adapters.Field{{Name: fmt.Sprintf("field%d", f), Value: val("new", i, f)}}
			if err := db.Update(ctx, "t", fmt.Sprint(i), u); err != nil {
				t.Fatal(err)
			}
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	live := float64(ms.HeapAlloc) - float64(before)
	data := float64(records * fields * size)
	if live > 1.4*data {
		t.Errorf("the heap holds %.1f MB for %.1f MB of values: replaced values are kept alive", live/1e6, data/1e6)
	}
	got, err := db.Read(ctx, "t", "7", []string{"field0", "field5"}, nil)
	if err != nil || len(got) != 2 || string(got[0].Value) != string(val("old", 7, 0)) || string(got[1].Value) != string(val("new", 7, 5)) {
		t.Errorf("record 7 after the updates: %d fields, err %v", len(got), err)
	}
	for f, fv := range kept {
		if string(fv.Value) != string(val("old", 0, f)) {
			t.Errorf("a value read before the updates changed: %s", fv.Name)
		}
	}
	runtime.KeepAlive(db)
}
