package sim

import (
	"strings"
	"sync"

	"github.com/tidwall/btree"

	"benchtop/adapters"
)

// store is the data behind the model: a real key-value store, so that
// reads of loaded keys succeed, others are NOT_FOUND, and scans return
// records in key order. One ordered map (a B-tree) per table behind one
// lock: its cost is a few µs at most, which the model's service times
// dwarf, so it is kept simple rather than fast (adapters/memory is the
// fast one).
type store struct {
	mu     sync.Mutex
	tables map[string]*btree.Map[string, []adapters.Field]
}

func newStore() *store {
	return &store{tables: map[string]*btree.Map[string, []adapters.Field]{}}
}

func (st *store) table(name string, create bool) *btree.Map[string, []adapters.Field] {
	t := st.tables[name]
	if t == nil && create {
		t = new(btree.Map[string, []adapters.Field])
		st.tables[strings.Clone(name)] = t
	}
	return t
}

// read appends the requested fields of key (all when fields is nil) to
// dst; ok is false when the key is missing. Values are references to
// stored bytes, which are never modified.
func (st *store) read(table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.table(table, false)
	if t == nil {
		return dst, false
	}
	rec, ok := t.Get(key)
	if !ok {
		return dst, false
	}
	return appendFields(dst, rec, fields), true
}

// scan appends up to count records from the first key >= start.
func (st *store) scan(table, start string, count int, fields []string, dst []adapters.Record) []adapters.Record {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.table(table, false)
	if t == nil || count <= 0 {
		return dst
	}
	n := 0
	t.Ascend(start, func(k string, rec []adapters.Field) bool {
		dst = append(dst, adapters.Record{Key: k, Fields: appendFields(nil, rec, fields)})
		n++
		return n < count
	})
	return dst
}

// insert writes a record, replacing any with the same key.
func (st *store) insert(table, key string, values []adapters.Field) {
	rec := merge(nil, values)
	st.mu.Lock()
	st.table(table, true).Set(strings.Clone(key), rec)
	st.mu.Unlock()
}

// update sets the given fields of an existing record; false when it is
// missing.
func (st *store) update(table, key string, values []adapters.Field) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.table(table, false)
	if t == nil {
		return false
	}
	rec, ok := t.Get(key)
	if !ok {
		return false
	}
	// A new array: readers hold references to the old one's headers. The
	// key is cloned: Set stores the key it is given, and the caller's is
	// valid only during the call.
	t.Set(strings.Clone(key), merge(rec, values))
	return true
}

// del removes a record; false when it is missing.
func (st *store) del(table, key string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	t := st.table(table, false)
	if t == nil {
		return false
	}
	_, ok := t.Delete(key)
	return ok
}

// clear drops every table.
func (st *store) clear() {
	st.mu.Lock()
	st.tables = map[string]*btree.Map[string, []adapters.Field]{}
	st.mu.Unlock()
}

// merge returns a new record: old's fields with values copied over them
// (a repeated name keeps the last value). The value bytes are copied (the
// caller's are valid only during the call); names are cloned.
func merge(old, values []adapters.Field) []adapters.Field {
	rec := make([]adapters.Field, len(old), len(old)+len(values))
	copy(rec, old)
	for _, v := range values {
		val := append([]byte(nil), v.Value...)
		if i := indexOf(rec, v.Name); i >= 0 {
			rec[i].Value = val
			continue
		}
		rec = append(rec, adapters.Field{Name: strings.Clone(v.Name), Value: val})
	}
	return rec
}

func indexOf(rec []adapters.Field, name string) int {
	for i := range rec {
		if rec[i].Name == name {
			return i
		}
	}
	return -1
}

// appendFields appends the named fields of rec (all when fields is nil);
// a requested field the record lacks is left out.
func appendFields(dst, rec []adapters.Field, fields []string) []adapters.Field {
	if fields == nil {
		return append(dst, rec...)
	}
	for _, name := range fields {
		if i := indexOf(rec, name); i >= 0 {
			dst = append(dst, rec[i])
		}
	}
	return dst
}
