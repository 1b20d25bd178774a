// Package sim is a model server, not a database: an in-process queueing
// model with a known capacity and service-time distribution, scripted
// faults on its own clock, and a real key-value store behind it. It is
// the oracle for benchtop's own verdicts (best, knee, outages, the
// capacity search): because its capacity and latency are known, what
// benchtop measures against it can be compared with what the model
// predicts (Model.Predict, Model.MaxRate). It is never a stand-in for a
// real database in the adapters' tests.
//
// The model ("virtual queue, real wait"): c servers take operations first
// come, first served, each on the server that frees first. Under one
// short lock an operation arriving at a (the sim's clock) takes that
// server, free at f: it starts at max(a, f) and finishes s later (s drawn
// from the service distribution; stalls add their length), and the server
// frees then (queue.go). The caller then waits in real time until the
// finish (wait.go: a dispatcher and a short spin, as precise as the
// engine's pacer). The queue's arithmetic is thus exact whatever the
// machine; only the final wait depends on the OS. The capacity is c / m
// operations per second for a mean service time m.
//
// docs/adapters/sim.md documents the model, its formulas, every property,
// the faults, the oracle and the limits.
//
// Files: sim.go (the adapter: registration, the operations), config.go
// (the properties), dist.go (service-time distributions), queue.go (the
// servers' arithmetic), faults.go (the scripted faults), store.go (the
// data), wait.go and sleeper_*.go (the precise wait), burn.go
// (sim.clientcost), model.go (the oracle).
package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"

	"benchtop/adapters"
)

// Description is the adapter's line in `benchtop list`.
const Description = "a model server: known capacity and latency, scripted faults (not a database)"

func init() {
	adapters.Register(adapters.Driver{
		Name:        "sim",
		Description: Description,
		Prefixes:    []string{"sim."},
		Keys:        Keys,
		Open: func(_ context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(props)
		},
	})
}

// DB is an opened model server. All methods are safe for concurrent use.
type DB struct {
	cfg Config
	st  *store

	mu      sync.Mutex // the model's state below
	q       *queue
	smp     *sampler
	svcRand *rand.Rand // service times
	errRand *rand.Rand // fault draws, apart so that faults do not change the service times
	started bool
	zero    int64 // nanotime at the clock's start

	// now and wait are nanotime and the waiter's until, replaced by tests
	// with a fake clock.
	now  func() int64
	wait func(ctx context.Context, at int64) error
	wt   *waiter
}

var (
	_ adapters.DB            = (*DB)(nil)
	_ adapters.Describer     = (*DB)(nil)
	_ adapters.Capable       = (*DB)(nil)
	_ adapters.BatchInserter = (*DB)(nil)
)

// Open returns an empty model server configured from props (the sim.*
// properties; docs/adapters/sim.md). A bad value or a contradictory
// combination is a *adapters.ConfigError.
func Open(props adapters.Properties) (*DB, error) {
	cfg, err := ReadConfig(props)
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	return New(cfg)
}

// New returns an empty model server with cfg.
func New(cfg Config) (*DB, error) {
	smp, err := newSampler(cfg.Model.Service)
	if err != nil {
		return nil, err
	}
	if cfg.Model.Servers < 1 {
		return nil, fmt.Errorf("sim: %d servers: at least 1 is needed", cfg.Model.Servers)
	}
	if cfg.ClientCost > 0 {
		loopsPerNs() // calibrate now, not during the run
	}
	wt := newWaiter()
	db := &DB{
		cfg:     cfg,
		st:      newStore(),
		q:       newQueue(cfg.Model.Servers, cfg.Model.Faults),
		smp:     smp,
		svcRand: rand.New(rand.NewPCG(cfg.Model.Seed, 1)),
		errRand: rand.New(rand.NewPCG(cfg.Model.Seed, 2)),
		now:     nanotime,
		wait:    wt.until,
		wt:      wt,
	}
	return db, nil
}

// Config returns the configuration the server runs with (the derived
// server count or mean service time included).
func (db *DB) Config() Config { return db.cfg }

// Model returns the server's model, for its predictions.
func (db *DB) Model() Model { return db.cfg.Model }

// Describe is a line such as "model server (not a database): 20,000
// ops/s = 20 servers / 1ms mean, exp".
func (db *DB) Describe() string {
	m := db.cfg.Model
	s := fmt.Sprintf("model server (not a database): %s ops/s = %d servers / %s mean, %s",
		group(m.Capacity()), m.Servers, fmtDur(m.Service.Mean), m.Service.Kind)
	if k := m.Service.Kind; k == LogNormal || k == Gamma || k == Uniform {
		s += " cv " + strconv.FormatFloat(m.Service.CV, 'g', 3, 64)
	}
	if f := m.Faults.String(); f != "" {
		s += "; " + f
	}
	return s
}

// Capabilities: the store starts empty, so a run loads first.
func (db *DB) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{StartsEmpty: true}
}

// serve runs one operation of the given units of work through the model
// and waits until it ends. It returns the operation's failure, if the
// model scripts one: an outage (unavailable), a scripted error, or, for a
// read, a scripted NOT_FOUND (notFound true, err nil).
func (db *DB) serve(ctx context.Context, units float64, read bool) (notFound bool, err error) {
	burn(db.cfg.ClientCost)
	f := &db.cfg.Model.Faults
	db.mu.Lock()
	now := db.now()
	if !db.started {
		db.started, db.zero = true, now
	}
	a := now - db.zero
	end, _, out := db.q.admit(a, db.smp.draw(db.svcRand)*units)
	switch {
	case out != served:
		err = errOutage
	case len(f.Errors) > 0 && db.errRand.Float64() < share(f.Errors, a):
		err = errFault
	case read && len(f.NotFound) > 0 && db.errRand.Float64() < share(f.NotFound, a):
		notFound = true
	}
	zero := db.zero
	db.mu.Unlock()
	if out == refused {
		return false, err // fails fast
	}
	if werr := db.wait(ctx, zero+end); werr != nil {
		return false, fmt.Errorf("sim: %w", werr)
	}
	return notFound, err
}

func notFoundErr(op, key string) error {
	return fmt.Errorf("sim: %s %q: %w", op, key, adapters.ErrNotFound)
}

// Read returns the requested fields of key after one unit of service.
// A read of chosen fields that finds none of them is NOT_FOUND.
func (db *DB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	nf, err := db.serve(ctx, 1, true)
	if err != nil {
		return dst, err
	}
	if nf {
		return dst, fmt.Errorf("sim: read %q: %w (scripted, %s)", key, adapters.ErrNotFound, PropNotFound)
	}
	n := len(dst)
	dst, ok := db.st.read(table, key, fields, dst)
	if !ok || (fields != nil && len(dst) == n) {
		return dst, notFoundErr("read", key)
	}
	return dst, nil
}

// Scan returns up to count records from the first key >= startKey, in
// key order, after 1 + ScanRow × (records returned) units of service.
func (db *DB) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	n := len(dst)
	dst = db.st.scan(table, startKey, count, fields, dst)
	if _, err := db.serve(ctx, 1+db.cfg.Model.ScanRow*float64(len(dst)-n), false); err != nil {
		return dst[:n], err
	}
	return dst, nil
}

// Update sets the given fields of an existing record, once served.
func (db *DB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	if _, err := db.serve(ctx, 1, false); err != nil {
		return err
	}
	if !db.st.update(table, key, values) {
		return notFoundErr("update", key)
	}
	return nil
}

// Insert writes a record (replacing one with the same key), once served.
func (db *DB) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	if _, err := db.serve(ctx, 1, false); err != nil {
		return err
	}
	db.st.insert(table, key, values)
	return nil
}

// Delete removes a record, once served.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	if _, err := db.serve(ctx, 1, false); err != nil {
		return err
	}
	if !db.st.del(table, key) {
		return notFoundErr("delete", key)
	}
	return nil
}

// loadBatch is the load phase's batch with sim.load=instant.
const loadBatch = 1000

// BatchSize is the load phase's batch: 1000 records with sim.load=instant
// (batches go in directly, outside the model), 1 with sim.load=modelled
// (no batches: each record is an insert through the model).
func (db *DB) BatchSize() int {
	if db.cfg.Load == LoadModelled {
		return 1
	}
	return loadBatch
}

// InsertBatch writes records directly, outside the model, and does not
// start the sim's clock: the load phase with sim.load=instant.
func (db *DB) InsertBatch(ctx context.Context, table string, records []adapters.Record) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	for _, r := range records {
		db.st.insert(table, r.Key, r.Fields)
	}
	return nil
}

// Close drops the data and ends the waits: an operation still waiting,
// or one that comes later, fails at once ("the server is closed").
func (db *DB) Close() error {
	db.wt.close()
	db.st.clear()
	return nil
}

// group writes n shortly, whole numbers from 1,000 with thousands
// separators: 20,000, 1,500, 333.3, 0.5.
func group(n float64) string {
	if n < 1000 {
		return strconv.FormatFloat(n, 'g', 4, 64)
	}
	s := strconv.FormatFloat(math.Round(n), 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
