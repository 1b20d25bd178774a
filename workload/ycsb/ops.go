package ycsb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"benchtop/adapters"
	"benchtop/workload"
)

// readFields returns the fields a read or scan asks for: readfields'
// choice (fixed or random ones), one random field name
// (readallfields=false), every name (a READ with readallfieldsbyname or
// dataintegrity, as YCSB's doTransactionRead passes them), or nil for all.
func (cw *coreWorker) readFields(read bool) []string {
	w := cw.w
	if f := w.cfg.ReadFields; !f.All {
		if f.Fixed != nil {
			return w.readNames
		}
		return cw.randomNames(f)
	}
	if read && (w.cfg.ReadAllFieldsByName || w.cfg.DataIntegrity) {
		return w.fieldNames
	}
	return nil
}

// Data-integrity failures: each is a KindIntegrity error, counted as a
// mismatch and making the exit status 1.
var (
	errIntegrity = adapters.WithKind(adapters.KindIntegrity, errors.New("data integrity: value read does not match the value written"))
	// errEmptyRecord is YCSB's verifyRow on no cells: a found record with
	// no fields is never valid.
	errEmptyRecord  = adapters.WithKind(adapters.KindIntegrity, errors.New("data integrity: record found with no fields"))
	errMissingField = adapters.WithKind(adapters.KindIntegrity, errors.New("data integrity: a field asked for is missing"))
	errExtraField   = adapters.WithKind(adapters.KindIntegrity, errors.New("data integrity: a field not asked for (or twice) was returned"))
	// errMissingRecord: a record this run loaded and did not delete was
	// not found. Not wrapped around the adapter's error: its own kind,
	// not_found, would win.
	errMissingRecord = adapters.WithKind(adapters.KindMissing, errors.New("data integrity: a record loaded and not deleted was not found"))
)

// verify checks a read's fields against the deterministic values: every
// field asked for (asked nil: every field of the record) is there once,
// with the value written, and nothing else is.
func (cw *coreWorker) verify(key string, asked []string, fields []adapters.Field) error {
	w := cw.w
	if !w.cfg.DataIntegrity {
		return nil
	}
	if len(fields) == 0 {
		return errEmptyRecord
	}
	want := len(asked)
	if asked == nil {
		want = len(w.fieldNames)
	}
	clear(cw.seen)
	for _, f := range fields {
		i := cw.fieldIndex(f.Name)
		if i < 0 || cw.seen[i] || (asked != nil && !contains(asked, f.Name)) {
			return errExtraField
		}
		cw.seen[i] = true
		cw.verBuf = deterministicValue(cw.verBuf, key, f.Name, w.cfg.FieldLength)
		if string(cw.verBuf) != string(f.Value) {
			return errIntegrity
		}
	}
	if len(fields) < want {
		return errMissingField
	}
	return nil
}

// fieldIndex is the index of a field name of this workload, or -1.
func (cw *coreWorker) fieldIndex(name string) int {
	rest, ok := strings.CutPrefix(name, cw.w.cfg.FieldNamePrefix)
	if !ok {
		return -1
	}
	i, err := strconv.Atoi(rest)
	if err != nil || i < 0 || i >= len(cw.w.fieldNames) || cw.w.fieldNames[i] != name {
		return -1
	}
	return i
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// Transaction runs one run-phase operation and returns its type, the
// number of operations it counts for, and its error. The READ and UPDATE
// of a read-modify-write are recorded through sub too, as YCSB does.
func (cw *coreWorker) Transaction(ctx context.Context, now func() int64, sub workload.SubRecorder) (int, int, error) {
	w := cw.w
	op := w.ops.Next(cw.r)
	switch op {
	case OpRead:
		return op, 1, cw.read(ctx)
	case OpUpdate:
		key := cw.nextKey()
		return op, 1, w.db.Update(ctx, w.cfg.Table, key, cw.buildValues(key, w.cfg.WriteFields))
	case OpInsert:
		// YCSB's doTransactionInsert: the next number of the transaction
		// sequence, acknowledged when done (what "latest" follows).
		n := w.insertSeq.Next()
		key := unsafeString(w.keyInto(&cw.keyArr, n))
		err := w.db.Insert(ctx, w.cfg.Table, key, cw.buildValues(key, Fields{All: true}))
		w.insertSeq.Acknowledge(n)
		return op, 1, err
	case OpScan:
		key := cw.nextKey()
		n := int(w.scanLen.Next(cw.r))
		res, err := w.db.Scan(ctx, w.cfg.Table, key, n, cw.readFields(false), cw.scanDst[:0])
		clear(res)
		cw.scanDst = res[:0]
		return op, 1, err
	case OpRMW:
		return op, 1, cw.readModifyWrite(ctx, now, sub)
	case OpDelete:
		if w.cfg.DataIntegrity {
			// Said before the delete is sent: a read racing it may find
			// the record gone.
			n := cw.nextKeynum()
			w.deleted.Store(n, struct{}{})
			return op, 1, w.db.Delete(ctx, w.cfg.Table, unsafeString(w.keyInto(&cw.keyArr, n)))
		}
		return op, 1, w.db.Delete(ctx, w.cfg.Table, cw.nextKey())
	}
	return op, 1, fmt.Errorf("unknown operation %d", op)
}

// nextKey chooses the key of a read, update, scan or delete.
func (cw *coreWorker) nextKey() string {
	if h := cw.w.hot; h != nil {
		return cw.nextHotKey(h)
	}
	return unsafeString(cw.w.keyInto(&cw.keyArr, cw.nextKeynum()))
}

// read is a READ of a chosen key, verified when dataintegrity is on.
func (cw *coreWorker) read(ctx context.Context) error {
	num, key := cw.nextKeyNum()
	asked := cw.readFields(true)
	return cw.readKey(ctx, num, key, asked)
}

// nextKeyNum is nextKey and, with dataintegrity (when reads need it),
// the key's number; -1 without.
func (cw *coreWorker) nextKeyNum() (int64, string) {
	if !cw.w.cfg.DataIntegrity {
		return -1, cw.nextKey()
	}
	n := cw.nextKeynum()
	return n, unsafeString(cw.w.keyInto(&cw.keyArr, n))
}

// readKey reads key's fields and verifies them: with dataintegrity, the
// values, and that a record of key number num that this run loaded and
// did not delete is there (a read of it not found is missing).
func (cw *coreWorker) readKey(ctx context.Context, num int64, key string, asked []string) error {
	res, err := cw.w.db.Read(ctx, cw.w.cfg.Table, key, asked, cw.readDst[:0])
	cw.readDst = res[:0]
	switch {
	case err == nil:
		err = cw.verify(key, asked, res)
	case cw.w.cfg.DataIntegrity && errors.Is(err, adapters.ErrNotFound) && cw.w.loaded(num):
		err = fmt.Errorf("%w: %s", errMissingRecord, err.Error())
	}
	return err
}

// loaded tells whether key number num is one this run's data set holds:
// loaded (insertstart to insertstart + insertcount) and not deleted.
func (w *coreWorkload) loaded(num int64) bool {
	if num < w.cfg.InsertStart || num >= w.cfg.InsertStart+w.cfg.InsertCount {
		return false
	}
	_, gone := w.deleted.Load(num)
	return !gone
}

// readModifyWrite is YCSB's doTransactionReadModifyWrite: a read of one or
// all fields and an update of one or all, timed as one operation; the READ
// and the UPDATE are recorded through sub too. A failed or mismatching
// read is not followed by the update.
func (cw *coreWorker) readModifyWrite(ctx context.Context, now func() int64, sub workload.SubRecorder) error {
	w := cw.w
	num, key := cw.nextKeyNum()
	t0 := now()
	err := cw.readKey(ctx, num, key, cw.readFields(false))
	t1 := now()
	sub(OpRead, t0, t1, err)
	if err != nil {
		return err
	}
	err = w.db.Update(ctx, w.cfg.Table, key, cw.buildValues(key, w.cfg.WriteFields))
	sub(OpUpdate, t1, now(), err)
	return err
}
