package ycsb

import (
	"context"
	"errors"
	"testing"

	"benchtop/adapters"
)

// The integrity check passes the values written and fails every way a
// store can get a record wrong: a changed value, a missing field, a field
// nobody wrote, a found record with no fields (YCSB's verifyRow counts
// that as an error too).
func TestIntegrityCheckCatchesCorruption(t *testing.T) {
	t.Parallel()
	for _, readAll := range []string{"true", "false"} {
		for _, corrupt := range []string{"", "value", "missing", "extra", "empty"} {
			t.Run("readallfields="+readAll+"/"+corrupt, func(t *testing.T) {
				db := newStore()
				_, cw := newTestWorker(t, "run", map[string]string{"recordcount": "20", "dataintegrity": "true", "readallfields": readAll,
					"readproportion": "0.5", "updateproportion": "0.2", "readmodifywriteproportion": "0.3"}, db)
				loadAll(t, cw)
				db.corrupt = corrupt
				var reads, bad int
				sub := func(int, int64, int64, error) {}
				for i := 0; i < 300; i++ {
					op, _, err := cw.Transaction(context.Background(), clock(), sub)
					if op == OpUpdate {
						if err != nil {
							t.Fatalf("update: %v", err)
						}
						continue
					}
					reads++
					if err != nil {
						if adapters.Kind(err) != adapters.KindIntegrity {
							t.Fatalf("%s: error %v of kind %q, want integrity", OpNames[op], err, adapters.Kind(err))
						}
						bad++
					}
				}
				if corrupt == "" && bad != 0 {
					t.Errorf("%d of %d reads failed the check on an honest store", bad, reads)
				}
				if corrupt != "" && bad != reads {
					t.Errorf("%s: %d of %d reads failed the check, want all", corrupt, bad, reads)
				}
			})
		}
	}
}

// Each kind of corruption has its own message, so the report's cause says
// what went wrong.
func TestIntegrityErrorsSayWhat(t *testing.T) {
	t.Parallel()
	want := map[string]error{"value": errIntegrity, "missing": errMissingField, "extra": errExtraField, "empty": errEmptyRecord}
	for corrupt, werr := range want {
		db := newStore()
		_, cw := newTestWorker(t, "run", map[string]string{"recordcount": "5", "dataintegrity": "true", "readproportion": "1", "updateproportion": "0"}, db)
		loadAll(t, cw)
		db.corrupt = corrupt
		if _, _, err := cw.Transaction(context.Background(), clock(), noSub(t)); !errors.Is(err, werr) {
			t.Errorf("%s: err = %v, want %v", corrupt, err, werr)
		}
	}
}

// Without dataintegrity nothing is checked: an empty record is no error.
func TestNoCheckWithoutDataIntegrity(t *testing.T) {
	t.Parallel()
	db := newStore()
	_, cw := newTestWorker(t, "run", map[string]string{"recordcount": "5", "readproportion": "1", "updateproportion": "0"}, db)
	loadAll(t, cw)
	db.corrupt = "empty"
	if _, _, err := cw.Transaction(context.Background(), clock(), noSub(t)); err != nil {
		t.Errorf("err = %v, want nil (no check)", err)
	}
}

// Through the Runner: mismatches are counted (Set.Integrity) and the
// errors are of kind integrity, for the READ and the read-modify-write
// (whose READ fails the check and whose UPDATE is not done).
func TestIntegrityThroughRunner(t *testing.T) {
	t.Parallel()
	props := map[string]string{"recordcount": "50", "operationcount": "400", "threadcount": "4", "dataintegrity": "true",
		"readproportion": "0.5", "updateproportion": "0", "readmodifywriteproportion": "0.5"}
	db := newStore()
	res := runPhases(t, "load", props, db)
	if n, _ := count(res[0], OpInsert); n != 50 {
		t.Fatalf("load: %d inserts, want 50", n)
	}
	honest := runPhases(t, "run", props, db)[0]
	if honest.Set.Integrity != 0 {
		t.Fatalf("honest store: %d mismatches", honest.Set.Integrity)
	}
	db.corrupt = "empty"
	bad := runPhases(t, "run", props, db)[0]
	reads, readFail := count(bad, OpRead)
	rmw, rmwFail := count(bad, OpRMW)
	if rmw == 0 || reads <= rmw {
		t.Fatalf("reads %d (with the read-modify-writes' own), read-modify-writes %d: want both", reads, rmw)
	}
	if readFail != reads || rmwFail != rmw {
		t.Errorf("failed: %d of %d reads, %d of %d read-modify-writes; want all", readFail, reads, rmwFail, rmw)
	}
	// The mismatches counted are the steps' (READ and READ-MODIFY-WRITE),
	// not the sub-operations: 400 in all.
	if bad.Set.Integrity != 400 {
		t.Errorf("Integrity = %d, want 400", bad.Set.Integrity)
	}
	if n := bad.Set.Errors[OpRead][adapters.KindIntegrity]; n != readFail {
		t.Errorf("READ integrity errors = %d, want %d", n, readFail)
	}
	if u, _ := count(bad, OpUpdate); u != 0 {
		t.Errorf("%d updates after failed reads", u)
	}
}

// With dataintegrity a read of a record the run loaded and did not delete
// that comes back not found is missing (its own kind, apart from
// mismatches); a record the run deleted itself, or a key beyond the loaded
// range, is no integrity failure.
func TestMissingRecordIsAnIntegrityFailure(t *testing.T) {
	t.Parallel()
	db := newStore()
	_, cw := newTestWorker(t, "run", map[string]string{"recordcount": "20", "dataintegrity": "true",
		"readproportion": "0.6", "deleteproportion": "0.2", "readmodifywriteproportion": "0.2", "updateproportion": "0"}, db)
	loadAll(t, cw)
	var missing, notFound int
	sub := func(int, int64, int64, error) {}
	for range 400 {
		op, _, err := cw.Transaction(context.Background(), clock(), sub)
		if op == OpDelete || err == nil {
			continue
		}
		switch adapters.Kind(err) {
		case adapters.KindMissing:
			missing++
		case adapters.KindNotFound:
			notFound++
		default:
			t.Fatalf("%s: %v of kind %q", OpNames[op], err, adapters.Kind(err))
		}
	}
	if missing != 0 || notFound == 0 {
		t.Errorf("with the run's own deletes: %d missing, %d not found; want 0 missing and some not found", missing, notFound)
	}
	// Now records vanish behind the run's back (a FLUSHALL): every read
	// of one is missing.
	db.mu.Lock()
	clear(db.data)
	db.mu.Unlock()
	_, cw = newTestWorker(t, "run", map[string]string{"recordcount": "20", "dataintegrity": "true", "readproportion": "1", "updateproportion": "0"}, db)
	for range 50 {
		if _, _, err := cw.Transaction(context.Background(), clock(), sub); adapters.Kind(err) != adapters.KindMissing {
			t.Fatalf("a read of a loaded record gone: %v of kind %q, want missing", err, adapters.Kind(err))
		}
	}
	// Without dataintegrity, it is the adapter's not found.
	_, cw = newTestWorker(t, "run", map[string]string{"recordcount": "20", "readproportion": "1", "updateproportion": "0"}, db)
	if _, _, err := cw.Transaction(context.Background(), clock(), sub); adapters.Kind(err) != adapters.KindNotFound {
		t.Errorf("without dataintegrity: %v of kind %q, want not_found", err, adapters.Kind(err))
	}
}
