// Package core is YCSB's CoreWorkload: the read/update/insert/scan/
// read-modify-write/delete mixes of workloads A-F, with YCSB's key, field
// and value construction and its request distributions. It registers
// itself as the workload "core" (and YCSB's class names), like the stream
// and time-series workloads.
package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"
	"unsafe"

	"benchtop/adapters"
	"benchtop/engine/gen"
	"benchtop/engine/workload"
)

// Operation types, in YCSB's report order.
const (
	OpRead = iota
	OpUpdate
	OpInsert
	OpScan
	OpRMW
	OpDelete
	numOps
)

// OpNames are the YCSB names of the core workload's operation types.
var OpNames = []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE"}

// Name is the workload's registry name.
const Name = "core"

func init() {
	workload.Register(workload.Factory{
		Name:    Name,
		Aliases: []string{"", "site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload"},
		Validate: func(command string, p adapters.Properties) error {
			_, err := ParseConfig(command, p)
			return err
		},
		Properties: properties,
		New: func(command string, p adapters.Properties, db adapters.DB) (workload.Workload, error) {
			cfg, err := ParseConfig(command, p)
			if err != nil {
				return nil, err
			}
			return New(cfg, db)
		},
	})
}

// OpNames implements workload.Workload.
func (w *coreWorkload) OpNames() []string { return OpNames }

// Describe implements workload.Describer: the mix and key choice.
func (w *coreWorkload) Describe() string { return w.cfg.Mix() }

// LoadCount implements workload.Loader: the records the load phase
// inserts (insertcount, by default recordcount - insertstart).
func (w *coreWorkload) LoadCount() int64 { return w.cfg.InsertCount }

// LoadOp implements workload.Workload: the load phase inserts.
func (w *coreWorkload) LoadOp() int { return OpInsert }

// NewWorker implements workload.Workload.
func (w *coreWorkload) NewWorker(seed uint64) workload.Worker { return w.newWorker(seed) }

// coreWorkload holds what YCSB's CoreWorkload shares between threads.
type coreWorkload struct {
	cfg        *Config
	db         adapters.DB
	fieldNames []string
	ops        *gen.Discrete
	keyChooser gen.Generator
	fieldLen   gen.Generator
	scanLen    gen.Generator
	// keySequence numbers load-phase inserts; insertSeq run-phase inserts.
	keySequence *gen.Counter
	insertSeq   *gen.AcknowledgedCounter
	loadEnd     int64 // first key number not loaded by this load phase
	batch       int   // load-phase batch size (1 = plain Insert)
	batcher     adapters.BatchInserter
	randPool    []byte
	integrityOK atomic.Int64
}

// New builds the core workload on an open adapter.
func New(cfg *Config, db adapters.DB) (workload.Workload, error) { return newCoreWorkload(cfg, db) }

func newCoreWorkload(cfg *Config, db adapters.DB) (*coreWorkload, error) {
	w := &coreWorkload{cfg: cfg, db: db, batch: 1}
	for i := 0; i < cfg.FieldCount; i++ {
		w.fieldNames = append(w.fieldNames, cfg.FieldNamePrefix+strconv.Itoa(i))
	}
	w.ops = gen.NewDiscrete()
	if cfg.ReadProportion > 0 {
		w.ops.Add(cfg.ReadProportion, OpRead)
	}
	if cfg.UpdateProportion > 0 {
		w.ops.Add(cfg.UpdateProportion, OpUpdate)
	}
	if cfg.InsertProportion > 0 {
		w.ops.Add(cfg.InsertProportion, OpInsert)
	}
	if cfg.ScanProportion > 0 {
		w.ops.Add(cfg.ScanProportion, OpScan)
	}
	if cfg.RMWProportion > 0 {
		w.ops.Add(cfg.RMWProportion, OpRMW)
	}
	if cfg.DeleteProportion > 0 {
		w.ops.Add(cfg.DeleteProportion, OpDelete)
	}
	switch cfg.FieldLengthDist {
	case "uniform":
		w.fieldLen = gen.NewUniform(int64(cfg.MinFieldLength), int64(cfg.FieldLength))
	case "zipfian":
		w.fieldLen = gen.NewZipfian(int64(cfg.MinFieldLength), int64(cfg.FieldLength), gen.ZipfianConstant)
	default:
		w.fieldLen = gen.NewConstant(int64(cfg.FieldLength))
	}
	if cfg.ScanLengthDist == "zipfian" {
		w.scanLen = gen.NewZipfian(int64(cfg.MinScanLength), int64(cfg.MaxScanLength), gen.ZipfianConstant)
	} else {
		w.scanLen = gen.NewUniform(int64(cfg.MinScanLength), int64(cfg.MaxScanLength))
	}
	w.keySequence = gen.NewCounter(cfg.InsertStart)
	w.loadEnd = cfg.InsertStart + cfg.InsertCount
	w.insertSeq = gen.NewAcknowledgedCounter(cfg.RecordCount)
	lo, hi := cfg.InsertStart, cfg.InsertStart+cfg.InsertCount-1
	if hi < lo {
		hi = lo
	}
	switch cfg.RequestDist {
	case "uniform":
		w.keyChooser = gen.NewUniform(lo, hi)
	case "sequential":
		w.keyChooser = gen.NewSequential(lo, hi)
	case "hotspot":
		w.keyChooser = gen.NewHotspot(lo, hi, cfg.HotspotDataFrac, cfg.HotspotOpnFrac)
	case "exponential":
		w.keyChooser = gen.NewExponential(cfg.ExponentialPct, float64(cfg.RecordCount)*cfg.ExponentialFrac)
	case "latest":
		w.keyChooser = gen.NewSkewedLatest(w.insertSeq)
	case "zipfian":
		newKeys := int64(float64(cfg.OperationCount) * cfg.InsertProportion * 2.0)
		w.keyChooser = gen.NewScrambledZipfian(cfg.InsertStart, cfg.InsertStart+cfg.InsertCount+newKeys)
	default:
		return nil, fmt.Errorf("requestdistribution %q: not supported", cfg.RequestDist)
	}
	if bi, ok := db.(adapters.BatchInserter); ok && bi.BatchSize() > 1 {
		w.batcher = bi
		w.batch = bi.BatchSize()
	}
	// Random values are slices of one read-only pool of printable bytes
	// (YCSB's RandomByteIterator draws printable characters too): adapters
	// copy what they keep, so sharing it is safe and costs nothing per op.
	maxLen := cfg.FieldLength
	r := rand.New(rand.NewPCG(1, 2))
	w.randPool = make([]byte, 64*1024+maxLen)
	for i := range w.randPool {
		w.randPool[i] = byte(' ' + r.IntN(95))
	}
	return w, nil
}

// keyName builds YCSB's key for a key number into buf: "user" followed by
// the (hashed, unless insertorder=ordered) number, zero-padded.
func (w *coreWorkload) keyName(buf []byte, keynum int64) []byte {
	if !w.cfg.OrderedInserts {
		keynum = gen.FNVHash64(keynum)
	}
	buf = append(buf[:0], "user"...)
	var num [24]byte
	digits := strconv.AppendInt(num[:0], keynum, 10)
	for i := len(digits); i < w.cfg.ZeroPadding; i++ {
		buf = append(buf, '0')
	}
	return append(buf, digits...)
}

// KeyName returns the key of key number n as YCSB builds it.
func (c *Config) KeyName(n int64) string {
	w := coreWorkload{cfg: c}
	return string(w.keyName(nil, n))
}

// deterministicValue is YCSB's buildDeterministicValue: key:field followed
// by repeated ":" + Java hashCode of the text so far, cut to size.
func deterministicValue(dst []byte, key, field string, size int) []byte {
	dst = append(dst[:0], key...)
	dst = append(dst, ':')
	dst = append(dst, field...)
	for len(dst) < size {
		dst = append(dst, ':')
		dst = strconv.AppendInt(dst, int64(javaHash(dst)), 10)
	}
	return dst[:size]
}

// javaHash is Java's String.hashCode for ASCII text.
func javaHash(b []byte) int32 {
	var h int32
	for _, c := range b {
		h = 31*h + int32(c)
	}
	return h
}

// worker state for the core workload: one per worker goroutine.
type coreWorker struct {
	w       *coreWorkload
	r       *rand.Rand
	keyBuf  []byte
	values  []adapters.Field
	valBufs [][]byte
	readDst []adapters.Field
	scanDst []adapters.Record
	one     [1]string
	batch   []adapters.Record
}

func (w *coreWorkload) newWorker(seed uint64) *coreWorker {
	cw := &coreWorker{
		w:       w,
		r:       rand.New(rand.NewPCG(seed, seed*0x9E3779B97F4A7C15+1)),
		keyBuf:  make([]byte, 0, 64),
		values:  make([]adapters.Field, 0, len(w.fieldNames)),
		valBufs: make([][]byte, len(w.fieldNames)),
		readDst: make([]adapters.Field, 0, len(w.fieldNames)),
	}
	return cw
}

// unsafeString views b as a string for the duration of an adapter call
// (the contract says adapters copy what they keep).
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// nextKeynum is CoreWorkload.nextKeynum: never a key beyond the last
// acknowledged insert.
func (cw *coreWorker) nextKeynum() int64 {
	w := cw.w
	if w.cfg.RequestDist == "exponential" {
		for {
			k := w.insertSeq.Last() - w.keyChooser.Next(cw.r)
			if k >= 0 {
				return k
			}
		}
	}
	for {
		k := w.keyChooser.Next(cw.r)
		if k <= w.insertSeq.Last() {
			return k
		}
	}
}

// buildValues fills cw.values for key with either all fields or one
// random field.
func (cw *coreWorker) buildValues(key string, all bool) []adapters.Field {
	w := cw.w
	cw.values = cw.values[:0]
	if all {
		for i, name := range w.fieldNames {
			cw.values = append(cw.values, adapters.Field{Name: name, Value: cw.value(i, key, name)})
		}
		return cw.values
	}
	i := cw.r.IntN(len(w.fieldNames))
	name := w.fieldNames[i]
	return append(cw.values, adapters.Field{Name: name, Value: cw.value(i, key, name)})
}

func (cw *coreWorker) value(i int, key, field string) []byte {
	w := cw.w
	size := int(w.fieldLen.Next(cw.r))
	if w.cfg.DataIntegrity {
		cw.valBufs[i] = deterministicValue(cw.valBufs[i], key, field, size)
		return cw.valBufs[i]
	}
	off := cw.r.IntN(len(w.randPool) - size + 1)
	return w.randPool[off : off+size : off+size]
}

// readFields returns nil (all fields), every field name
// (readallfieldsbyname) or one random field name.
func (cw *coreWorker) readFields() []string {
	if cw.w.cfg.ReadAllFields {
		if cw.w.cfg.ReadAllFieldsByName {
			return cw.w.fieldNames
		}
		return nil
	}
	cw.one[0] = cw.w.fieldNames[cw.r.IntN(len(cw.w.fieldNames))]
	return cw.one[:]
}

// errIntegrity marks a data-integrity mismatch.
var errIntegrity = adapters.WithKind(adapters.KindIntegrity, errors.New("data integrity: value read does not match the value written"))

// verify checks read fields against deterministic values.
func (cw *coreWorker) verify(key string, fields []adapters.Field) error {
	if !cw.w.cfg.DataIntegrity {
		return nil
	}
	for _, f := range fields {
		want := deterministicValue(cw.valBufs[0], key, f.Name, cw.w.cfg.FieldLength)
		cw.valBufs[0] = want
		if string(want) != string(f.Value) {
			return errIntegrity
		}
	}
	return nil
}

// Transaction runs one run-phase operation and returns its type, the
// number of operations it counts for, and its error. The READ and UPDATE
// of a read-modify-write are recorded through sub too, as YCSB does.
func (cw *coreWorker) Transaction(ctx context.Context, now func() int64, sub workload.SubRecorder) (int, int, error) {
	w := cw.w
	op := w.ops.Next(cw.r)
	table := w.cfg.Table
	switch op {
	case OpRead:
		cw.keyBuf = w.keyName(cw.keyBuf, cw.nextKeynum())
		key := unsafeString(cw.keyBuf)
		res, err := w.db.Read(ctx, table, key, cw.readFields(), cw.readDst[:0])
		cw.readDst = res[:0]
		if err == nil {
			err = cw.verify(key, res)
		}
		return op, 1, err
	case OpUpdate:
		cw.keyBuf = w.keyName(cw.keyBuf, cw.nextKeynum())
		key := unsafeString(cw.keyBuf)
		return op, 1, w.db.Update(ctx, table, key, cw.buildValues(key, w.cfg.WriteAllFields))
	case OpInsert:
		n := w.insertSeq.Next()
		cw.keyBuf = w.keyName(cw.keyBuf, n)
		key := unsafeString(cw.keyBuf)
		err := w.db.Insert(ctx, table, key, cw.buildValues(key, true))
		w.insertSeq.Acknowledge(n)
		return op, 1, err
	case OpScan:
		cw.keyBuf = w.keyName(cw.keyBuf, cw.nextKeynum())
		key := unsafeString(cw.keyBuf)
		n := int(w.scanLen.Next(cw.r))
		res, err := w.db.Scan(ctx, table, key, n, cw.readFields(), cw.scanDst[:0])
		clear(res)
		cw.scanDst = res[:0]
		return op, 1, err
	case OpRMW:
		cw.keyBuf = w.keyName(cw.keyBuf, cw.nextKeynum())
		key := unsafeString(cw.keyBuf)
		t0 := now()
		res, err := w.db.Read(ctx, table, key, cw.readFields(), cw.readDst[:0])
		cw.readDst = res[:0]
		if err == nil {
			err = cw.verify(key, res)
		}
		t1 := now()
		sub(OpRead, t0, t1, err)
		if err != nil {
			return op, 1, err
		}
		err = w.db.Update(ctx, table, key, cw.buildValues(key, w.cfg.WriteAllFields))
		sub(OpUpdate, t1, now(), err)
		return op, 1, err
	case OpDelete:
		cw.keyBuf = w.keyName(cw.keyBuf, cw.nextKeynum())
		return op, 1, w.db.Delete(ctx, table, unsafeString(cw.keyBuf))
	}
	return op, 1, fmt.Errorf("unknown operation %d", op)
}

// Load runs one load-phase step: one insert, or one batch when the
// adapter batches. It returns the number of records, 0 when the load is
// done.
func (cw *coreWorker) Load(ctx context.Context, limit func(int) int) (int, error) {
	w := cw.w
	if w.batcher == nil {
		if limit(1) == 0 {
			return 0, nil
		}
		n := w.keySequence.Next()
		cw.keyBuf = w.keyName(cw.keyBuf, n)
		key := unsafeString(cw.keyBuf)
		return 1, w.db.Insert(ctx, w.cfg.Table, key, cw.buildValues(key, true))
	}
	want := limit(w.batch)
	if want == 0 {
		return 0, nil
	}
	// Batches need stable keys and values until the call returns: build
	// them in per-worker arenas.
	cw.batch = cw.batch[:0]
	var valArena []byte
	for i := 0; i < want; i++ {
		n := w.keySequence.Next()
		cw.keyBuf = w.keyName(cw.keyBuf, n)
		key := string(cw.keyBuf)
		vals := make([]adapters.Field, len(w.fieldNames))
		for j, name := range w.fieldNames {
			v := cw.value(j, key, name)
			valArena = append(valArena, v...)
			vals[j] = adapters.Field{Name: name, Value: valArena[len(valArena)-len(v):]}
		}
		cw.batch = append(cw.batch, adapters.Record{Key: key, Fields: vals})
	}
	return want, w.batcher.InsertBatch(ctx, w.cfg.Table, cw.batch)
}
