package engine

import (
	"context"
	"errors"
	"testing"

	"benchtop/adapters"
)

// prepDB records the Prepare calls of a run, and fails them on demand.
type prepDB struct {
	*fakeDB
	calls []bool // load, per call
	err   error
}

func (p *prepDB) Prepare(ctx context.Context, load bool) error {
	p.calls = append(p.calls, load)
	return p.err
}

// New lets an adapter set its store up once, told whether the run's first
// phase is a load; its error stops New, a ConfigError kept as one.
func TestNewPreparesTheAdapter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		command string
		extra   map[string]string
		load    bool
	}{
		{"load", nil, true},
		{"run", nil, false},
		{"run", map[string]string{"load.before.run": "true"}, true},
	} {
		db := &prepDB{fakeDB: &fakeDB{}}
		if _, err := New(testConfig(t, tc.command, tc.extra), db, Options{Host: sharedHost}); err != nil {
			t.Fatalf("%s %v: New: %v", tc.command, tc.extra, err)
		}
		if len(db.calls) != 1 || db.calls[0] != tc.load {
			t.Errorf("%s %v: Prepare calls %v, want one with load=%v", tc.command, tc.extra, db.calls, tc.load)
		}
	}
	refused := &adapters.ConfigError{Key: "table", Value: "usertable", Allowed: "an existing table"}
	db := &prepDB{fakeDB: &fakeDB{}, err: refused}
	_, err := New(testConfig(t, "run", nil), db, Options{Host: sharedHost})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce != refused {
		t.Errorf("New with a refusing Prepare: %v, want its ConfigError", err)
	}
	if db.total() != 0 {
		t.Errorf("%d operations reached an adapter that refused the run", db.total())
	}
}

// partDB is a store with partitions of its own, fixed for the run.
type partDB struct {
	*prepDB
	parts int
}

func (p partDB) Partitions() int { return p.parts }

// A store's own partitions, known once Prepare has run, are the run's.
func TestNewShowsTheStoresPartitions(t *testing.T) {
	t.Parallel()
	r, err := New(testConfig(t, "run", map[string]string{"partitions": "1"}), partDB{&prepDB{fakeDB: &fakeDB{}}, 6}, Options{Host: sharedHost})
	if err != nil {
		t.Fatal(err)
	}
	if r.ctl.Partitions != 6 || r.info.CanRepartition {
		t.Errorf("partitions %d, can repartition %v; want 6 and false", r.ctl.Partitions, r.info.CanRepartition)
	}
}
