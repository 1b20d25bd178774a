package memory

import (
	"math/bits"
	"sync"
	"sync/atomic"

	"github.com/tidwall/btree"

	"benchtop/adapters"
)

// table is one named table: a partition map that SetPartitions replaces.
type table struct {
	name  string
	parts atomic.Pointer[partMap]
}

func newTable(name string, n int) *table {
	t := &table{name: name}
	t.parts.Store(newPartMap(n, 0))
	return t
}

// partMap is an immutable list of partitions. A key lives in
// parts[index(hash(key))].
type partMap struct {
	parts []*partition
}

func newPartMap(n, records int) *partMap {
	m := &partMap{parts: make([]*partition, n)}
	for i := range m.parts {
		m.parts[i] = newPartition(records / n)
	}
	return m
}

// of returns the partition of a key hash: the hash scaled to [0, n), which
// spreads as evenly as the hash and needs no division.
func (m *partMap) of(h uint64) *partition {
	i, _ := bits.Mul64(h, uint64(len(m.parts)))
	return m.parts[i]
}

// partition is one shard of a table.
//
// Invariants, all under mu:
//   - index and tree hold the same keys, each with the same record (the
//     same []adapters.Field header): index for point reads and writes,
//     which a B-tree would slow down with a cache miss per key comparison,
//     and tree for scans in key order. A record's []adapters.Field array
//     is written only under mu.Lock (Update replaces values in place);
//     readers copy the headers out under mu.Lock. The value bytes are never
//     written after they are stored.
//   - retired is set, once, when a reshard has moved the partition's
//     records into a new partition map. An operation that finds its
//     partition retired after taking the lock reloads the map and retries;
//     so nothing is ever read from or written to a retired partition.
//   - while logging is set (during a reshard), every change to an entry
//     (a key added, removed or given a new field array) appends the key to
//     log; see reshard.go.
type partition struct {
	mu      sync.Mutex
	retired bool
	logging bool
	log     []string
	index   map[string][]adapters.Field
	tree    btree.Map[string, []adapters.Field]

	// Keep two partitions' locks off one cache line.
	_ [64]byte
}

func newPartition(sizeHint int) *partition {
	return &partition{index: make(map[string][]adapters.Field, sizeHint)}
}

func (p *partition) get(key string) ([]adapters.Field, bool) {
	rec, ok := p.index[key]
	return rec, ok
}

// set stores rec under key, which must be an immutable copy: a map
// assignment to an existing key stores the new key string too.
func (p *partition) set(key string, rec []adapters.Field) {
	p.index[key] = rec
	p.tree.Set(key, rec)
}

// load is set for keys arriving in ascending order, which the tree
// appends cheaply.
func (p *partition) load(key string, rec []adapters.Field) {
	p.index[key] = rec
	p.tree.Load(key, rec)
}

func (p *partition) del(key string) bool {
	if _, ok := p.index[key]; !ok {
		return false
	}
	delete(p.index, key)
	p.tree.Delete(key)
	return true
}

func (p *partition) len() int { return len(p.index) }

// logChange records that key's entry changed, when a reshard is
// watching. key must be an immutable copy. Called under p.mu.Lock.
func (p *partition) logChange(key string) {
	if p.logging {
		p.log = append(p.log, key)
	}
}

// hash is the partition hash of a key.
//
// It is FNV-1a, not a seeded hash: the same key lands in the same partition
// in every run, so that runs of a zipfian workload (whose few hot keys
// decide how busy each partition lock is) can be compared with each other.
func (t *table) hash(key string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	// Mix the high bits down: partOf scales the hash by the partition
	// count, which reads the top bits.
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	return h
}

// partOf returns the partition of key, hashing the key only when there is
// a choice.
func (t *table) partOf(m *partMap, key string) *partition {
	if len(m.parts) == 1 {
		return m.parts[0]
	}
	return m.of(t.hash(key))
}

// lock returns the live partition of key, locked. Readers and writers
// take the same plain mutex: for these sub-microsecond critical sections it
// measured faster here than sync.RWMutex (1.75M against 1.06M ops/s on
// workload A).
func (t *table) lock(key string) *partition {
	for {
		p := t.partOf(t.parts.Load(), key)
		p.mu.Lock()
		if !p.retired {
			return p
		}
		p.mu.Unlock()
	}
}

// scan appends up to count records from startKey on, in key order across
// all partitions. With several partitions it locks all of them (in
// index order, the same order a reshard locks them in, so the two cannot
// deadlock) and merges their iterators; the result is therefore a
// consistent snapshot.
func (t *table) scan(start string, count int, fields []string, dst []adapters.Record) []adapters.Record {
	for {
		m := t.parts.Load()
		live := true
		n := 0
		for _, p := range m.parts {
			p.mu.Lock()
			n++
			if p.retired {
				live = false
				break
			}
		}
		if live {
			dst = mergeScan(m.parts, start, count, fields, dst)
		}
		for _, p := range m.parts[:n] {
			p.mu.Unlock()
		}
		if live {
			return dst
		}
	}
}
