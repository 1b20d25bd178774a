// Package ycsb is YCSB's CoreWorkload: the read/update/insert/scan/
// read-modify-write/delete mixes of workloads A-F, with YCSB's key, field
// and value construction and its request distributions. It registers
// itself as the workload "core" (and YCSB's class names), like the stream
// and time-series workloads.
package ycsb

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"sync"
	"unsafe"

	"benchtop/adapters"
	"benchtop/workload"
	"benchtop/workload/gen"
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
		Group:      &workload.Group{SplitLoad: splitLoad},
		New: func(command string, p adapters.Properties, db adapters.DB) (workload.Workload, error) {
			cfg, err := ParseConfig(command, p)
			if err != nil {
				return nil, err
			}
			return New(cfg, db)
		},
		Produces: produces,
	})
}

// produces names the operation types a command's last phase can produce:
// INSERT for a load, the operations of non-zero proportion for a run (a
// read-modify-write's READ and UPDATE are measured too).
func produces(command string, p adapters.Properties) []string {
	cfg, err := ParseConfig(command, p)
	if err != nil {
		return nil
	}
	if command == "load" {
		return []string{OpNames[OpInsert]}
	}
	var out []string
	for op, share := range []float64{OpRead: cfg.ReadProportion, OpUpdate: cfg.UpdateProportion, OpInsert: cfg.InsertProportion,
		OpScan: cfg.ScanProportion, OpRMW: cfg.RMWProportion, OpDelete: cfg.DeleteProportion} {
		if share > 0 || (cfg.RMWProportion > 0 && (op == OpRead || op == OpUpdate)) {
			out = append(out, OpNames[op])
		}
	}
	return out
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
	readNames  []string // the fixed fields of reads and scans, when fixed
	ops        *gen.Discrete
	keyChooser gen.Generator
	hot        *hotKeys // the popular keys of a scrambled zipfian chooser
	fieldLen   gen.Generator
	scanLen    gen.Generator
	// keySequence numbers load-phase inserts; insertSeq run-phase inserts.
	keySequence *gen.Counter
	insertSeq   *gen.AcknowledgedCounter
	loadEnd     int64 // first key number not loaded by this load phase
	batch       int   // load-phase batch size (1 = plain Insert)
	batcher     adapters.BatchInserter
	queues      bool              // the batcher's batches report as queued (adapters.BatchQueuer)
	rowTimer    adapters.RowTimer // the batcher times each record (adapters.RowTimer), or nil
	randPool    []byte
	// deleted holds the key numbers this run deleted (dataintegrity
	// only): a read of one of them that is not found is no missing
	// record.
	deleted sync.Map
}

// New builds the core workload on an open adapter.
func New(cfg *Config, db adapters.DB) (workload.Workload, error) { return newCoreWorkload(cfg, db) }

func newCoreWorkload(cfg *Config, db adapters.DB) (*coreWorkload, error) {
	w := &coreWorkload{cfg: cfg, db: db, batch: 1}
	w.fieldNames = fieldNames(cfg.FieldNamePrefix, cfg.FieldCount)
	for _, i := range cfg.ReadFields.Fixed {
		w.readNames = append(w.readNames, w.fieldNames[i])
	}
	w.ops = opMix(cfg)
	switch cfg.FieldLengthDist {
	case "uniform":
		w.fieldLen = gen.NewUniform(int64(cfg.MinFieldLength), int64(cfg.FieldLength))
	case "zipfian":
		w.fieldLen = gen.NewZipfian(int64(cfg.MinFieldLength), int64(cfg.FieldLength), gen.ZipfianConstant)
	case "histogram":
		if cfg.FieldLengthHistogram == nil {
			return nil, fmt.Errorf("fieldlengthdistribution=histogram: no histogram read")
		}
		w.fieldLen = cfg.FieldLengthHistogram
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
	var err error
	if w.keyChooser, err = keyChooser(cfg, w.insertSeq); err != nil {
		return nil, err
	}
	if !cfg.DataIntegrity {
		// With dataintegrity every read needs its key number (a record
		// not found is missing when it was loaded): keys are built from
		// it (the same keys: the table is an optimisation).
		w.hot = newHotKeys(w)
	}
	if bi, ok := db.(adapters.BatchInserter); ok && bi.BatchSize() > 1 {
		w.batcher = bi
		w.batch = bi.BatchSize()
		if q, ok := db.(adapters.BatchQueuer); ok {
			w.queues = q.QueuesBatches()
		}
		if rt, ok := db.(adapters.RowTimer); ok && !w.queues && rt.RowTimed() {
			w.rowTimer = rt
		}
	}
	// Random values are slices of one read-only pool of printable bytes
	// (YCSB's RandomByteIterator draws printable characters too): adapters
	// copy what they keep, so sharing it is safe and costs nothing per op.
	maxLen := cfg.MaxFieldLength()
	r := rand.New(rand.NewPCG(1, 2))
	w.randPool = make([]byte, 64*1024+maxLen)
	for i := range w.randPool {
		w.randPool[i] = byte(' ' + r.IntN(95))
	}
	return w, nil
}

// opMix is the operation chooser of the configured proportions.
func opMix(cfg *Config) *gen.Discrete {
	d := gen.NewDiscrete()
	for _, p := range []struct {
		v  float64
		op int
	}{
		{cfg.ReadProportion, OpRead}, {cfg.UpdateProportion, OpUpdate}, {cfg.InsertProportion, OpInsert},
		{cfg.ScanProportion, OpScan}, {cfg.RMWProportion, OpRMW}, {cfg.DeleteProportion, OpDelete},
	} {
		if p.v > 0 {
			d.Add(p.v, p.op)
		}
	}
	return d
}

// keyChooser is the request distribution over the key numbers of the run:
// insertstart to insertstart + insertcount - 1 (latest follows the
// acknowledged inserts).
func keyChooser(cfg *Config, inserts *gen.AcknowledgedCounter) (gen.Generator, error) {
	lo, hi := cfg.InsertStart, cfg.InsertStart+cfg.InsertCount-1
	if hi < lo {
		hi = lo
	}
	switch cfg.RequestDist {
	case "uniform":
		return gen.NewUniform(lo, hi), nil
	case "sequential":
		return gen.NewSequential(lo, hi), nil
	case "hotspot":
		return gen.NewHotspot(lo, hi, cfg.HotspotDataFrac, cfg.HotspotOpnFrac), nil
	case "exponential":
		return gen.NewExponential(cfg.ExponentialPct, float64(cfg.RecordCount)*cfg.ExponentialFrac), nil
	case "latest":
		return gen.NewSkewedLatest(inserts), nil
	case "zipfian":
		newKeys := int64(float64(cfg.OperationCount) * cfg.InsertProportion * 2.0)
		return gen.NewScrambledZipfian(cfg.InsertStart, cfg.InsertStart+cfg.InsertCount+newKeys), nil
	}
	return nil, fmt.Errorf("requestdistribution %q: not supported", cfg.RequestDist)
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
	r       *gen.Rand
	keyArr  [keyArrLen]byte // keys are built here (keyInto)
	values  []adapters.Field
	valBufs [][]byte
	readDst []adapters.Field
	scanDst []adapters.Record
	names   []string // the field names of one read, when drawn at random
	perm    []int    // field indexes, shuffled in part to draw distinct fields
	batch   []adapters.Record
	seen    []bool // verify: fields met in one read
	verBuf  []byte // verify: the value expected
	retry   loadRetry
	// took is the last load step's time of each record timed on its own
	// (workload.Queuer), nil when the step timed none; batched says they
	// only queued (BATCHED_OK); clock times them (ns, monotonic); rowTook
	// is the adapter's times of a RowTimer's batch.
	took    []int64
	batched bool
	rowTook []int64
	clock   func() int64
}

func (w *coreWorkload) newWorker(seed uint64) *coreWorker {
	cw := &coreWorker{
		w:       w,
		r:       gen.NewRand(seed*0x9E3779B97F4A7C15 + 1),
		values:  make([]adapters.Field, 0, len(w.fieldNames)),
		valBufs: make([][]byte, len(w.fieldNames)),
		readDst: make([]adapters.Field, 0, len(w.fieldNames)),
		seen:    make([]bool, len(w.fieldNames)),
		names:   make([]string, 0, len(w.fieldNames)),
		perm:    make([]int, len(w.fieldNames)),
		clock:   monotonic,
	}
	for i := range cw.perm {
		cw.perm[i] = i
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

// splitLoad gives agent i of n of a fleet its part of the records a load
// inserts (YCSB's parallel-load recipe: insertstart and insertcount), so
// that the fleet loads every record exactly once.
func splitLoad(props map[string]string, i, n int) (start, count int64) {
	p := adapters.NewReader(adapters.Properties(props))
	rc := p.Int64("recordcount", 0, 0, math.MaxInt64)
	first := p.Int64("insertstart", 0, 0, math.MaxInt64)
	total := max(p.Int64("insertcount", rc-first, 0, math.MaxInt64), 0)
	start = first + workload.PortionStart(total, i, n)
	count = workload.Portion(total, i, n)
	props["insertstart"] = strconv.FormatInt(start, 10)
	props["insertcount"] = strconv.FormatInt(count, 10)
	return start, count
}
