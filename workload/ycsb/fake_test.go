package ycsb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
)

// call is one adapter call as the recording store saw it.
type call struct {
	op     string // read, scan, update, insert, delete, batch
	key    string
	fields []string          // read, scan: nil = all
	values map[string]string // update, insert
	count  int               // scan: records asked for; batch: records
}

// store is a recording, corruptible in-process store (it copies what it
// keeps, as the adapter contract asks): it keeps records
// in a map (scans sort the keys) and every call in order.
type store struct {
	mu    sync.Mutex
	data  map[string]map[string][]byte
	calls []call
	// corrupt changes what reads return: "value" (one value altered),
	// "missing" (one field dropped), "extra" (a field nobody wrote),
	// "empty" (a found record with no fields).
	corrupt string
	// failInserts makes the next n inserts of a key fail.
	failInserts map[string]int
}

func newStore() *store {
	return &store{data: map[string]map[string][]byte{}, failInserts: map[string]int{}}
}

func fieldMap(values []adapters.Field) map[string]string {
	m := make(map[string]string, len(values))
	for _, f := range values {
		m[f.Name] = string(f.Value)
	}
	return m
}

func (s *store) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call{op: "read", key: strings.Clone(key), fields: slices.Clone(fields)})
	rec, ok := s.data[key]
	if !ok {
		return dst, fmt.Errorf("read %q: %w", key, adapters.ErrNotFound)
	}
	return s.corrupted(s.fields(rec, fields, dst)), nil
}

func (s *store) fields(rec map[string][]byte, fields []string, dst []adapters.Field) []adapters.Field {
	if fields == nil {
		for name := range rec {
			fields = append(fields, name)
		}
		sort.Strings(fields)
	}
	for _, name := range fields {
		if v, ok := rec[name]; ok {
			dst = append(dst, adapters.Field{Name: name, Value: slices.Clone(v)})
		}
	}
	return dst
}

func (s *store) corrupted(f []adapters.Field) []adapters.Field {
	switch s.corrupt {
	case "value":
		if len(f) > 0 && len(f[0].Value) > 0 {
			f[0].Value[len(f[0].Value)-1] ^= 1
		}
	case "missing":
		if len(f) > 0 {
			f = f[:len(f)-1]
		}
	case "extra":
		f = append(f, adapters.Field{Name: "nobodys", Value: []byte("x")})
	case "empty":
		f = f[:0]
	}
	return f
}

func (s *store) Scan(ctx context.Context, table, start string, n int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call{op: "scan", key: strings.Clone(start), fields: slices.Clone(fields), count: n})
	keys := make([]string, 0, len(s.data))
	for k := range s.data {
		if k >= start {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys[:min(n, len(keys))] {
		dst = append(dst, adapters.Record{Key: k, Fields: s.fields(s.data[k], fields, nil)})
	}
	return dst, nil
}

func (s *store) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call{op: "update", key: strings.Clone(key), values: fieldMap(values)})
	rec, ok := s.data[key]
	if !ok {
		return fmt.Errorf("update %q: %w", key, adapters.ErrNotFound)
	}
	for _, f := range values {
		rec[f.Name] = slices.Clone(f.Value)
	}
	return nil
}

var errInjected = errors.New("injected insert failure")

func (s *store) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.insertLocked(key, values)
}

func (s *store) insertLocked(key string, values []adapters.Field) error {
	s.calls = append(s.calls, call{op: "insert", key: strings.Clone(key), values: fieldMap(values)})
	if n := s.failInserts[key]; n > 0 {
		s.failInserts[key] = n - 1
		return errInjected
	}
	rec := make(map[string][]byte, len(values))
	for _, f := range values {
		rec[f.Name] = slices.Clone(f.Value)
	}
	s.data[strings.Clone(key)] = rec
	return nil
}

func (s *store) Delete(ctx context.Context, table, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call{op: "delete", key: strings.Clone(key)})
	delete(s.data, key)
	return nil
}

func (s *store) Close() error { return nil }

// callsOf returns the recorded calls of one kind.
func (s *store) callsOf(op string) []call {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []call
	for _, c := range s.calls {
		if c.op == op {
			out = append(out, c)
		}
	}
	return out
}

func (s *store) reset() {
	s.mu.Lock()
	s.calls = nil
	s.mu.Unlock()
}

// batchStore is a store that also inserts in batches (a failing key fails
// its whole batch).
type batchStore struct {
	*store
	size int
}

func (b batchStore) BatchSize() int { return b.size }

func (b batchStore) InsertBatch(ctx context.Context, table string, records []adapters.Record) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, call{op: "batch", count: len(records)})
	for _, r := range records {
		if n := b.failInserts[r.Key]; n > 0 {
			b.failInserts[r.Key] = n - 1
			return errInjected
		}
	}
	for _, r := range records {
		rec := make(map[string][]byte, len(r.Fields))
		for _, f := range r.Fields {
			rec[f.Name] = slices.Clone(f.Value)
		}
		b.data[strings.Clone(r.Key)] = rec
	}
	return nil
}

var testHost = host.NewSampler()

// runPhases runs command through the engine's Runner against db and
// returns the phase results.
func runPhases(t *testing.T, command string, props map[string]string, db adapters.DB) []*engine.PhaseResult {
	t.Helper()
	p := map[string]string{"status.interval": "100ms"}
	for k, v := range props {
		p[k] = v
	}
	cfg, _, err := engine.NewConfig(command, "fake", p)
	if err != nil {
		t.Fatalf("NewConfig: %v", err)
	}
	r, err := engine.New(cfg, db, engine.Options{Host: testHost})
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := r.Run(ctx)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// count is the number of operations of type op a phase measured, and how
// many of them failed.
func count(res *engine.PhaseResult, op int) (all, failed int64) {
	for _, v := range []int{measure.OK, measure.Failed} {
		if h := res.Set.H[measure.Slot(op, v)]; h != nil {
			all += h.TotalCount()
			if v == measure.Failed {
				failed = h.TotalCount()
			}
		}
	}
	return all, failed
}

// newTestWorker builds the workload and one worker on db.
func newTestWorker(t *testing.T, command string, props map[string]string, db adapters.DB) (*coreWorkload, *coreWorker) {
	t.Helper()
	cfg, err := ParseConfig(command, adapters.Properties(props))
	if err != nil {
		t.Fatalf("ParseConfig: %v", err)
	}
	w, err := newCoreWorkload(cfg, db)
	if err != nil {
		t.Fatal(err)
	}
	return w, w.newWorker(42)
}

// load inserts records 0..n-1 with cw's workload as the load phase does.
func loadAll(t *testing.T, cw *coreWorker) int {
	t.Helper()
	total := 0
	left := int(cw.w.cfg.InsertCount)
	limit := func(want int) int {
		got := min(want, left)
		left -= got
		return got
	}
	for {
		n, err := cw.Load(context.Background(), limit)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		if n == 0 {
			return total
		}
		total += n
	}
}

// noSub is a SubRecorder for transactions that are not read-modify-writes.
func noSub(t *testing.T) func(int, int64, int64, error) {
	return func(op int, _, _ int64, _ error) { t.Helper(); t.Errorf("unexpected sub-operation %d", op) }
}

func clock() func() int64 {
	var n int64
	return func() int64 { n += 10; return n }
}
