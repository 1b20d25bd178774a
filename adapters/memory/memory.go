// Package memory is benchtop's default adapter: a real key-value store that
// lives in the benchmark's own process, so that a run needs nothing
// installed.
//
// Each table is split into P partitions by a hash of the key. A partition
// holds its records in a Go map for point reads and writes and in an
// ordered B-tree (github.com/tidwall/btree) for scans, behind its own
// sync.Mutex, so that the number of partitions changes how much the
// client threads contend: with one partition every update serialises on
// one lock, with eight they mostly do not. Scans merge the partitions'
// ordered iterators and so return keys in global order. The number of
// partitions can be changed while the workload runs (SetPartitions); see
// reshard.go for how that stays correct.
//
// A record is a []adapters.Field. Its value bytes are copied on the way
// in and never modified afterwards, so Read and Scan hand out references
// to them without copying. An Update allocates the new value and swaps it
// into the record's field array in place, under the partition's write
// lock; readers copy the field headers out under the lock.
package memory

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"benchtop/adapters"
)

// MaxPartitions is the largest partition count a table can have: the one
// limit of package adapters.
const MaxPartitions = adapters.MaxPartitions

func init() {
	adapters.Register(adapters.Driver{
		Name:        "memory",
		Description: "embedded in-process store with partitions and live resharding",
		Prefixes:    []string{"memory."},
		Keys:        []string{"partitions", PropEstimate}, // estimate.go
		Open: func(_ context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(props)
		},
	})
}

// DB is the in-process store. The zero value is not usable; call New or
// Open. All methods are safe for concurrent use.
type DB struct {
	nparts atomic.Int64

	// mu serialises table creation, Close and SetPartitions, so that a
	// table is either created with the new partition count or resharded to
	// it.
	mu     sync.Mutex
	tables atomic.Pointer[map[string]*table] // copy-on-write, read without locks
	last   atomic.Pointer[table]             // the table used last, checked before the map

	namesMu sync.Mutex
	names   atomic.Pointer[map[string]string] // interned field names, copy-on-write

	lastReshard atomic.Pointer[reshardStats]

	// reshardHook, when set (by tests), is called by a reshard between its
	// steps with the step just finished: "copy" or "catch-up".
	reshardHook func(step string)
}

var (
	_ adapters.DB            = (*DB)(nil)
	_ adapters.Repartitioner = (*DB)(nil)
	_ adapters.Describer     = (*DB)(nil)
)

// Open returns an empty store configured from props: "partitions" (default
// 1) is the number of partitions of every table. A bad value is a
// *adapters.ConfigError, and so is a load the memory available to the
// process cannot hold (estimate.go; memory.estimate=false loads anyway).
func Open(props adapters.Properties) (*DB, error) {
	r := adapters.NewReader(props)
	n := readPartitions(r)
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	if err := checkFits(props, AvailableMemory); err != nil {
		return nil, fmt.Errorf("memory: %w", err)
	}
	return New(n)
}

// readPartitions reads what Open reads: the driver's Keys.
func readPartitions(r *adapters.Reader) int {
	return r.Int("partitions", 1, 1, MaxPartitions)
}

// New returns an empty store whose tables have n partitions.
func New(n int) (*DB, error) {
	if n < 1 || n > MaxPartitions {
		return nil, fmt.Errorf("memory: %w", partitionsError(strconv.Itoa(n)))
	}
	db := &DB{}
	db.nparts.Store(int64(n))
	db.tables.Store(&map[string]*table{})
	db.names.Store(&map[string]string{})
	return db, nil
}

func partitionsError(v string) error {
	return &adapters.ConfigError{
		Key:     "partitions",
		Value:   v,
		Allowed: "a whole number from 1 to " + strconv.Itoa(MaxPartitions),
	}
}

// Describe returns a line such as "in-process, 8 partitions".
// Capabilities implements adapters.Capable: the store starts empty, so a
// run loads first.
func (db *DB) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{StartsEmpty: true}
}

func (db *DB) Describe() string {
	n := db.Partitions()
	if n == 1 {
		return "in-process, 1 partition"
	}
	return fmt.Sprintf("in-process, %d partitions", n)
}

// Partitions returns the current number of partitions per table.
func (db *DB) Partitions() int { return int(db.nparts.Load()) }

// Close drops all data. The DB stays usable and is empty afterwards.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	db.tables.Store(&map[string]*table{})
	db.last.Store(nil)
	return nil
}

// lookup returns the named table, or nil when it has never been written.
func (db *DB) lookup(name string) *table {
	if t := db.last.Load(); t != nil && t.name == name {
		return t
	}
	t := (*db.tables.Load())[name]
	if t != nil {
		db.last.Store(t)
	}
	return t
}

// create returns the named table, creating it on first use.
func (db *DB) create(name string) *table {
	if t := db.lookup(name); t != nil {
		return t
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	old := *db.tables.Load()
	if t := old[name]; t != nil {
		return t
	}
	t := newTable(strings.Clone(name), int(db.nparts.Load()))
	m := make(map[string]*table, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[t.name] = t
	db.tables.Store(&m)
	return t
}

// maxInterned bounds the interned field names, so that a workload with
// generated field names cannot grow the table without limit.
const maxInterned = 4096

// intern returns a stored copy of a field name, shared by all records that
// have the field: 100,000 records of 10 fields then hold 10 strings, not
// a million.
func (db *DB) intern(name string) string {
	if s, ok := (*db.names.Load())[name]; ok {
		return s
	}
	s := strings.Clone(name)
	db.namesMu.Lock()
	defer db.namesMu.Unlock()
	old := *db.names.Load()
	if prev, ok := old[name]; ok {
		return prev
	}
	if len(old) >= maxInterned {
		return s
	}
	m := make(map[string]string, len(old)+1)
	for k, v := range old {
		m[k] = v
	}
	m[s] = s
	db.names.Store(&m)
	return s
}

// Read appends the requested fields of key to dst. The values are
// references to immutable stored data.
func (db *DB) Read(_ context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	t := db.lookup(table)
	if t == nil {
		return dst, fmt.Errorf("memory: read %q: %w", key, adapters.ErrNotFound)
	}
	p := t.lock(key)
	rec, ok := p.get(key)
	n := len(dst)
	if ok {
		// The headers are copied under the lock: Update replaces them in
		// place. The value bytes they point to never change.
		dst = appendFields(dst, rec, fields)
	}
	p.mu.Unlock()
	// A record holding none of the fields asked for is not found either,
	// as YCSB's hbase2 binding answers an empty result (the contract).
	if !ok || (len(fields) > 0 && len(dst) == n) {
		return dst, fmt.Errorf("memory: read %q: %w", key, adapters.ErrNotFound)
	}
	return dst, nil
}

// Scan appends up to count records to dst, in ascending key order across
// all partitions, starting at the first key >= startKey.
func (db *DB) Scan(_ context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	t := db.lookup(table)
	if t == nil || count <= 0 {
		return dst, nil
	}
	return t.scan(startKey, count, fields, dst), nil
}

// Update replaces the given fields of an existing record and adds those it
// does not have yet.
func (db *DB) Update(_ context.Context, table, key string, values []adapters.Field) error {
	t := db.lookup(table)
	if t == nil {
		return fmt.Errorf("memory: update %q: %w", key, adapters.ErrNotFound)
	}
	// Copy the values before taking the lock, to keep the critical section
	// short: each into an allocation of its own (see copyValue).
	var small [16][]byte
	bufs := small[:0]
	if len(values) > len(small) {
		bufs = make([][]byte, 0, len(values))
	}
	for _, v := range values {
		bufs = append(bufs, copyValue(v.Value))
	}
	p := t.lock(key)
	rec, ok := p.get(key)
	if !ok {
		p.mu.Unlock()
		return fmt.Errorf("memory: update %q: %w", key, adapters.ErrNotFound)
	}
	grown := false
	for i, v := range values {
		val := bufs[i]
		if j := indexOf(rec, v.Name); j >= 0 {
			// In place: readers copy headers under the lock, and a
			// resharding copy shares this array (see reshard.go).
			rec[j].Value = val
			continue
		}
		if !grown {
			// A new field: copy-on-write into a new array, which changes
			// the entry itself (and is logged for a running reshard).
			nr := make([]adapters.Field, len(rec), len(rec)+len(values)-i)
			copy(nr, rec)
			rec = nr
			grown = true
		}
		rec = append(rec, adapters.Field{Name: db.intern(v.Name), Value: val})
	}
	if grown {
		k := strings.Clone(key)
		p.set(k, rec)
		p.logChange(k)
	}
	p.mu.Unlock()
	return nil
}

// Insert writes a record, replacing any record with the same key (as most
// of the databases benchtop drives do for a put).
func (db *DB) Insert(_ context.Context, table, key string, values []adapters.Field) error {
	t := db.create(table)
	rec := db.newRecord(values)
	k := strings.Clone(key)
	p := t.lock(k)
	p.set(k, rec)
	p.logChange(k)
	p.mu.Unlock()
	return nil
}

// Delete removes a record.
func (db *DB) Delete(_ context.Context, table, key string) error {
	t := db.lookup(table)
	if t == nil {
		return fmt.Errorf("memory: delete %q: %w", key, adapters.ErrNotFound)
	}
	p := t.lock(key)
	ok := p.del(key)
	if ok && p.logging {
		p.logChange(strings.Clone(key))
	}
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("memory: delete %q: %w", key, adapters.ErrNotFound)
	}
	return nil
}

// SetPartitions reshards every table to n partitions while reads and
// writes go on; see reshard.go.
func (db *DB) SetPartitions(ctx context.Context, n int) error {
	if n < 1 || n > MaxPartitions {
		return fmt.Errorf("memory: set partitions: %w", partitionsError(strconv.Itoa(n)))
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("memory: set partitions to %d: %w", n, err)
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	var total reshardStats
	for _, t := range *db.tables.Load() {
		st := t.reshard(n, db.reshardHook)
		total.add(st)
	}
	db.nparts.Store(int64(n))
	db.lastReshard.Store(&total)
	return nil
}

// newRecord copies values into a new record: one allocation for the field
// headers and one for each value (see copyValue). A repeated name keeps the
// last value.
func (db *DB) newRecord(values []adapters.Field) []adapters.Field {
	rec := make([]adapters.Field, 0, len(values))
	for _, v := range values {
		val := copyValue(v.Value)
		if j := indexOf(rec, v.Name); j >= 0 {
			rec[j].Value = val
			continue
		}
		rec = append(rec, adapters.Field{Name: db.intern(v.Name), Value: val})
	}
	return rec
}

// copyValue copies one value into an allocation of its own, whose
// capacity is its length so that nobody can append into it.
//
// One allocation per value, not one for the whole record: an update that
// replaces some of a record's fields then frees exactly their old bytes.
// With one buffer per record, a one-field update (YCSB's
// writeallfields=false) kept the whole old buffer alive for the fields it
// did not replace, until every field had been replaced: on a 10-minute
// workload A run the heap grew from about 100 MB to several hundred.
func copyValue(v []byte) []byte {
	c := make([]byte, len(v))
	copy(c, v)
	return c
}

func indexOf(rec []adapters.Field, name string) int {
	for i := range rec {
		if rec[i].Name == name {
			return i
		}
	}
	return -1
}

// appendFields appends the named fields of rec (all when fields is nil).
// A requested field the record does not have is left out.
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
