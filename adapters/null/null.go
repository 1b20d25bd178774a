// Package null is an adapter that does nothing, so that a run measures the
// benchtop engine itself (key generation, pacing, histograms) with no
// database cost at all.
//
// Every operation succeeds at once: Read returns dst unchanged with a nil
// error (it does not claim the key is missing, which would count as an
// error), Scan returns dst unchanged, and writes are dropped. It implements
// Repartitioner trivially, remembering the count, so that the partition
// controls can be exercised in engine tests.
//
// It is deliberately not run through the adaptertest conformance suite:
// it stores nothing, so no read-back check could pass.
package null

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"benchtop/adapters"
)

// MaxPartitions is the largest partition count accepted: the one limit of
// package adapters.
const MaxPartitions = adapters.MaxPartitions

func init() {
	adapters.Register(adapters.Driver{
		Name:        "null",
		Description: "does nothing; measures the engine itself",
		Keys:        []string{"partitions"},
		Open: func(_ context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(props)
		},
	})
}

// DB does nothing. It is safe for concurrent use.
type DB struct {
	parts atomic.Int64
}

var (
	_ adapters.DB            = (*DB)(nil)
	_ adapters.Repartitioner = (*DB)(nil)
	_ adapters.Describer     = (*DB)(nil)
)

// New returns a null DB with one partition.
func New() *DB {
	db := &DB{}
	db.parts.Store(1)
	return db
}

// Open returns a null DB whose partition count is the "partitions"
// property (default 1); a bad value is a *adapters.ConfigError.
func Open(props adapters.Properties) (*DB, error) {
	r := adapters.NewReader(props)
	n := readPartitions(r)
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("null: %w", err)
	}
	db := New()
	db.parts.Store(int64(n))
	return db, nil
}

// readPartitions reads what Open reads: the driver's Keys.
func readPartitions(r *adapters.Reader) int {
	return r.Int("partitions", 1, 1, MaxPartitions)
}

func partitionsError(v string) error {
	return &adapters.ConfigError{
		Key:     "partitions",
		Value:   v,
		Allowed: "a whole number from 1 to " + strconv.Itoa(MaxPartitions),
	}
}

// Read returns dst unchanged.
func (*DB) Read(_ context.Context, _, _ string, _ []string, dst []adapters.Field) ([]adapters.Field, error) {
	return dst, nil
}

// Scan returns dst unchanged.
func (*DB) Scan(_ context.Context, _, _ string, _ int, _ []string, dst []adapters.Record) ([]adapters.Record, error) {
	return dst, nil
}

// Update does nothing.
func (*DB) Update(context.Context, string, string, []adapters.Field) error { return nil }

// Insert does nothing.
func (*DB) Insert(context.Context, string, string, []adapters.Field) error { return nil }

// Delete does nothing.
func (*DB) Delete(context.Context, string, string) error { return nil }

// Close does nothing.
func (*DB) Close() error { return nil }

// Partitions returns the last count set.
func (db *DB) Partitions() int { return int(db.parts.Load()) }

// SetPartitions remembers n.
func (db *DB) SetPartitions(_ context.Context, n int) error {
	if n < 1 || n > MaxPartitions {
		return fmt.Errorf("null: set partitions: %w", partitionsError(strconv.Itoa(n)))
	}
	db.parts.Store(int64(n))
	return nil
}

// Describe says what this target is.
func (db *DB) Describe() string {
	if n := db.Partitions(); n != 1 {
		return fmt.Sprintf("null (stores nothing), %d partitions", n)
	}
	return "null (stores nothing), 1 partition"
}
