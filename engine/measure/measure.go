// Package measure holds the latency bookkeeping of the engine: HDR
// histograms (github.com/HdrHistogram/hdrhistogram-go) per operation type and
// variant, grouped in Sets that workers record into and that the sampler
// swaps out and merges each interval.
package measure

import (
	"math"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range: 1 ns to 1 hour at 3 significant digits. Values outside
// are clamped to the range and counted as out of range, never dropped.
const (
	Lowest  = int64(1)
	Highest = int64(time.Hour)
	Digits  = 3
)

// NumOps is the number of operation types a Set can hold.
const NumOps = 8

// Variants of a measurement of one operation type.
const (
	OK             = iota // service time of successful operations
	OKIntended            // latency from the intended start, successful operations
	Failed                // service time of failed operations
	FailedIntended        // latency from the intended start, failed operations
	NumVariants
)

// NumSlots is the number of histograms a Set can hold.
const NumSlots = NumOps * NumVariants

// Slot returns the slot of operation op in variant v.
func Slot(op, v int) int { return op*NumVariants + v }

// NewHistogram returns an empty histogram with the engine's range.
func NewHistogram() *hdr.Histogram { return hdr.New(Lowest, Highest, Digits) }

// Set is one group of histograms and counters. It is not safe for
// concurrent use by itself; Recorder guards it.
type Set struct {
	H          [NumSlots]*hdr.Histogram
	OutOfRange [NumSlots]int64
	// Errors counts failed operations per op type by error kind.
	Errors [NumOps]map[string]int64
	// Causes holds the latest error message per op type and kind (the
	// cause a user can act on, e.g. "database is locked (SQLITE_BUSY)").
	Causes [NumOps]map[string]string
	// Integrity counts data-integrity mismatches; Missing counts reads
	// of a record the run loaded and did not delete that came back
	// NOT_FOUND (dataintegrity).
	Integrity int64
	Missing   int64
	// Ops counts operations as the workload counts them (a
	// read-modify-write is one, though its read and update are measured
	// too), successful and failed; Failed counts the failed ones the same
	// way. Throughput (goodput) is Ops - Failed.
	Ops    int64
	Failed int64
	// CutOff counts operations still in flight when the grace after the
	// deadline (or a stop) ended: cancelled, and counted in no throughput
	// and no error count.
	CutOff int64
	// MaxLag is the largest schedule lag seen (ns between an operation's
	// intended and actual start).
	MaxLag int64
	// Batched counts, per op type, the successful operations that only
	// queued a record in a batch a later one sent (YCSB's BATCHED_OK, of
	// the JDBC binding's jdbc.batchupdateapi). They are in the OK
	// histogram too, as YCSB counts BATCHED_OK as a success.
	Batched [NumOps]int64
}

// Record adds one value (ns) to slot, allocating the histogram on first
// use and clamping out-of-range values.
func (s *Set) Record(slot int, ns int64) { s.RecordN(slot, ns, 1) }

// RecordN adds n equal values (ns) to slot; values beyond the range are
// clamped and counted in OutOfRange.
func (s *Set) RecordN(slot int, ns, n int64) {
	h := s.H[slot]
	if h == nil {
		h = NewHistogram()
		s.H[slot] = h
	}
	if ns < Lowest {
		ns = Lowest
	} else if ns > Highest {
		ns = Highest
		s.OutOfRange[slot] += n
	}
	_ = h.RecordValues(ns, n)
}

// AddError counts n failed operations of type op with the given kind.
func (s *Set) AddError(op int, kind string, n int64) {
	m := s.Errors[op]
	if m == nil {
		m = make(map[string]int64, 2)
		s.Errors[op] = m
	}
	m[kind] += n
}

// MaxCause is the longest error message kept, in bytes.
const MaxCause = 240

// SetCause records msg as the latest cause of errors of kind for op.
func (s *Set) SetCause(op int, kind, msg string) {
	if len(msg) > MaxCause {
		msg = msg[:MaxCause] + "…"
	}
	m := s.Causes[op]
	if m == nil {
		m = make(map[string]string, 1)
		s.Causes[op] = m
	}
	m[kind] = msg
}

// Merge adds everything in o to s.
func (s *Set) Merge(o *Set) {
	for i, h := range o.H {
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		if s.H[i] == nil {
			s.H[i] = NewHistogram()
		}
		// Values are clamped to the range when recorded, so nothing should
		// be dropped; count it as out of range if it ever is.
		s.OutOfRange[i] += o.OutOfRange[i] + mergeHist(s.H[i], h)
	}
	for op, m := range o.Errors {
		for k, n := range m {
			s.AddError(op, k, n)
		}
	}
	for op, m := range o.Causes {
		for k, msg := range m {
			s.SetCause(op, k, msg)
		}
	}
	s.Integrity += o.Integrity
	s.Missing += o.Missing
	s.Ops += o.Ops
	s.Failed += o.Failed
	s.CutOff += o.CutOff
	for op, n := range o.Batched {
		s.Batched[op] += n
	}
	if o.MaxLag > s.MaxLag {
		s.MaxLag = o.MaxLag
	}
}

// Reset empties s, keeping its allocated histograms for reuse.
func (s *Set) Reset() {
	for i, h := range s.H {
		if h != nil && h.TotalCount() > 0 {
			resetHist(h)
		}
		s.OutOfRange[i] = 0
	}
	for i := range s.Errors {
		s.Errors[i] = nil
		s.Causes[i] = nil
	}
	s.Integrity = 0
	s.Missing = 0
	s.Ops = 0
	s.Failed = 0
	s.CutOff = 0
	s.MaxLag = 0
	s.Batched = [NumOps]int64{}
}

// Empty reports whether s holds no measurement.
func (s *Set) Empty() bool {
	for _, h := range s.H {
		if h != nil && h.TotalCount() > 0 {
			return false
		}
	}
	for _, m := range s.Errors {
		if len(m) > 0 {
			return false
		}
	}
	return s.Integrity == 0 && s.Missing == 0 && s.Ops == 0 && s.CutOff == 0
}

// OK is the number of successful operations, counted as Ops counts them.
func (s *Set) OK() int64 { return s.Ops - s.Failed }

// Clone returns a deep copy of s.
func (s *Set) Clone() *Set {
	c := &Set{}
	c.Merge(s)
	return c
}

// Recorder is what a worker records into. Its lock is uncontended when
// each worker has its own Recorder; the sampler takes it only to drain it.
//
// A Recorder owns two Sets for good and alternates between them: the
// histograms allocated for the slots its worker uses stay with it, so that
// memory is bounded by the workers' own slots. (Passing one spare Set from
// recorder to recorder, as the sampler once did, rotated every Set through
// every busy recorder until each had allocated every busy slot: 65 Sets of
// up to 32 histograms of about 270 KB.)
type Recorder struct {
	mu    sync.Mutex
	set   *Set
	spare *Set // empty; only Drain touches it
}

// NewRecorder returns a Recorder with an empty Set.
func NewRecorder() *Recorder { return &Recorder{set: &Set{}, spare: &Set{}} }

// Lock gives the caller exclusive use of the current Set until Unlock.
func (r *Recorder) Lock() *Set {
	r.mu.Lock()
	return r.set
}

// Unlock releases the Set taken by Lock.
func (r *Recorder) Unlock() { r.mu.Unlock() }

// Drain installs the recorder's empty spare Set, hands the Set recorded so
// far to fn (unless it is empty), then empties it and keeps it as the next
// spare. fn must not keep the Set. Drain is for one goroutine at a time
// (the sampler's).
func (r *Recorder) Drain(fn func(*Set)) {
	r.mu.Lock()
	old := r.set
	r.set = r.spare
	r.mu.Unlock()
	if !old.Empty() {
		fn(old)
		old.Reset()
	}
	r.spare = old
}

// Allocated counts the histograms the recorder's two Sets hold, for
// memory accounting.
func (r *Recorder) Allocated() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, s := range []*Set{r.set, r.spare} {
		for _, h := range s.H {
			if h != nil {
				n++
			}
		}
	}
	return n
}

// The counts layout of the engine's histograms (hdrhistogram-go's, for
// Lowest and Digits): index i of a counts array holds the values of
// bucket i>>halfMag - 1 (sub-bucket i&(half-1) + half), bucket 0 holding
// sub-buckets 0 to 2*half-1.
var (
	halfMag  = uint(math.Ceil(math.Log2(2*math.Pow10(Digits)))) - 1
	unitMag  = uint(math.Floor(math.Log2(float64(Lowest))))
	halfSubs = int64(1) << halfMag
)

// valueAt is the lowest value that counts index i holds.
func valueAt(i int) int64 {
	bucket := int64(i>>halfMag) - 1
	sub := int64(i)&(halfSubs-1) + halfSubs
	if bucket < 0 {
		sub -= halfSubs
		bucket = 0
	}
	return sub << (uint(bucket) + unitMag)
}
