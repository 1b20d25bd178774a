// Package adaptertest is the conformance suite that every benchtop adapter
// runs, from its own tests, against its real backend:
//
//	func TestConformance(t *testing.T) {
//		db := openAgainstTestServer(t)
//		adaptertest.Run(t, db, adaptertest.Options{})
//	}
//
// Run checks the contract of package adapters: round trips of binary
// values, field subsets, updates, not-found errors (a record holding none
// of the columns read is not found too), deletes, ordered scans,
// concurrent writers, data integrity, the buffer-ownership rule, and the
// BatchInserter and Repartitioner extensions when the adapter has them.
// Each check is a subtest that can fail on its own.
//
// The suite is meant for shared, slow servers (a FerretDB doing ~1,000
// ops/s, dynalite ~2,000): it touches a few hundred keys at most, all under
// a prefix of its own, and deletes them again at the end (best effort).
package adaptertest

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"benchtop/adapters"
)

// Options tune Run.
type Options struct {
	// Table is the table (collection) to use; default "usertable".
	Table string
	// KeyPrefix isolates this run's keys from other data on a shared
	// server; default: a random prefix per Run call.
	KeyPrefix string
	// FixedColumns says the store's table has a fixed set of columns,
	// field0 to field3 (a SQL or CQL table made with fieldcount=4), and
	// that a read of all fields returns every one of them: the suite then
	// writes every record with all four, and the round trip of every byte
	// value, of a value of kilobytes and of an empty value goes through
	// those columns instead of names of its own; the MissingColumns check
	// (a record holding none of the columns read) does not apply.
	FixedColumns bool
}

// fieldNames are the fields every record of the suite has.
var fieldNames = []string{"field0", "field1", "field2", "field3"}

// Run runs the conformance suite against db. It does not close db.
func Run(t *testing.T, db adapters.DB, opts Options) {
	t.Helper()
	s := &suite{
		db:        db,
		table:     opts.Table,
		prefix:    opts.KeyPrefix,
		unordered: adapters.CapabilitiesOf(db).UnorderedScan,
		fixed:     opts.FixedColumns,
		keys:      map[string]struct{}{},
	}
	if s.table == "" {
		s.table = "usertable"
	}
	if s.prefix == "" {
		s.prefix = fmt.Sprintf("bt%08x-", rand.Uint32())
	}
	t.Cleanup(s.cleanup)

	t.Run("RoundTrip", s.testRoundTrip)
	t.Run("ReadFieldSubset", s.testReadFieldSubset)
	t.Run("Update", s.testUpdate)
	t.Run("NotFound", s.testNotFound)
	t.Run("MissingColumns", s.testMissingColumns)
	t.Run("Delete", s.testDelete)
	t.Run("Scan", s.testScan)
	t.Run("ConcurrentWriters", s.testConcurrentWriters)
	t.Run("Integrity", s.testIntegrity)
	t.Run("Ownership", s.testOwnership)
	t.Run("BatchInsert", s.testBatchInsert)
	t.Run("Repartition", s.testRepartition)
}

// suite is the state of one Run.
type suite struct {
	db        adapters.DB
	table     string
	prefix    string
	unordered bool
	fixed     bool // Options.FixedColumns

	mu   sync.Mutex
	keys map[string]struct{} // every key inserted, for cleanup
}

func (s *suite) key(format string, a ...any) string {
	return s.prefix + fmt.Sprintf(format, a...)
}

func (s *suite) track(keys ...string) {
	s.mu.Lock()
	for _, k := range keys {
		s.keys[k] = struct{}{}
	}
	s.mu.Unlock()
}

// cleanup deletes every key the suite inserted, best effort: errors
// (including not-found for keys a test deleted) are ignored.
func (s *suite) cleanup() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s.mu.Lock()
	keys := make(chan string, len(s.keys))
	for k := range s.keys {
		keys <- k
	}
	s.keys = map[string]struct{}{}
	s.mu.Unlock()
	close(keys)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for k := range keys {
				if ctx.Err() != nil {
					return
				}
				_ = s.db.Delete(ctx, s.table, k)
			}
		})
	}
	wg.Wait()
}

// value is what the suite writes to field of key, tagged with tag (which
// says which write it was): the tag, a 0x00 byte, 8 to 120 bytes derived
// from key, field and tag, and a 0xff byte. Every value thus holds 0x00
// and 0xff and arbitrary binary, and tagOf recovers the tag.
func value(key, field, tag string) []byte {
	h := fnv.New64a()
	h.Write([]byte(key))
	h.Write([]byte{0})
	h.Write([]byte(field))
	h.Write([]byte{0})
	h.Write([]byte(tag))
	seed := h.Sum64()
	r := rand.New(rand.NewPCG(seed, seed>>7|1))
	n := 8 + int(seed%113)
	v := make([]byte, 0, len(tag)+n+2)
	v = append(v, tag...)
	v = append(v, 0x00)
	for i := 0; i < n; i += 8 {
		v = binary.LittleEndian.AppendUint64(v, r.Uint64())
	}
	v = v[:len(tag)+1+n]
	return append(v, 0xff)
}

// tagOf returns the tag of a value made by value.
func tagOf(v []byte) string {
	for i, b := range v {
		if b == 0 {
			return string(v[:i])
		}
	}
	return string(v)
}

// want returns the expected fields of key when all of fields were last
// written with tag.
func want(key, tag string, fields []string) map[string][]byte {
	m := make(map[string][]byte, len(fields))
	for _, f := range fields {
		m[f] = value(key, f, tag)
	}
	return m
}

// diffFields says how got differs from want (field name → value), or ""
// when it holds exactly those fields with those values.
func diffFields(got []adapters.Field, want map[string][]byte) string {
	seen := make(map[string]bool, len(got))
	var d []string
	for _, f := range got {
		if seen[f.Name] {
			d = append(d, fmt.Sprintf("field %q returned twice", f.Name))
			continue
		}
		seen[f.Name] = true
		w, ok := want[f.Name]
		if !ok {
			d = append(d, fmt.Sprintf("unexpected field %q", f.Name))
			continue
		}
		if msg := diffValue(f.Value, w); msg != "" {
			d = append(d, fmt.Sprintf("field %q: %s", f.Name, msg))
		}
	}
	for name := range want {
		if !seen[name] {
			d = append(d, fmt.Sprintf("field %q missing", name))
		}
	}
	return strings.Join(d, "; ")
}

func diffValue(got, want []byte) string {
	if string(got) == string(want) {
		return ""
	}
	if len(got) != len(want) {
		return fmt.Sprintf("value of %d bytes (tag %q), want %d bytes (tag %q)", len(got), tagOf(got), len(want), tagOf(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("byte %d is 0x%02x, want 0x%02x (tag %q, want %q)", i, got[i], want[i], tagOf(got), tagOf(want))
		}
	}
	return ""
}

// limit stops a loop's error reports after a few, so that a broken adapter
// gives a readable failure rather than hundreds of lines.
type limit struct {
	mu sync.Mutex
	n  int
}

// errorf reports and returns false once too many errors were reported.
func (l *limit) errorf(t *testing.T, format string, a ...any) bool {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n++
	if l.n <= 5 {
		t.Errorf(format, a...)
	}
	return l.n < 5
}

func (l *limit) exceeded() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n >= 5
}
