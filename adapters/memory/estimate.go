package memory

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"benchtop/adapters"
)

// The memory estimate: what the store will hold once the load is done,
// from the core workload's properties, checked against the memory
// available to the process (available.go) before anything is loaded, so
// that a load too large is refused with the figures instead of being
// killed part way with no report.
//
// The model is per record: each value in an allocation of its own
// (copyValue, rounded up to Go's size class), the record's field headers
// ([]adapters.Field, 40 bytes a field, rounded up too), the key (one
// string shared by the map and the B-tree), and an entry's share of the
// map and the B-tree (entryOverhead); plus what the process holds before
// the first record (baseBytes: the runtime, the engine, the histograms).
// The two constants were fitted on the peak RSS (getrusage's ru_maxrss)
// of `benchtop load memory` at 10k, 100k and 300k records of 10 fields x
// 100 bytes, 20k records of 100 fields x 20 bytes and 100k records of 1
// field x 1000 bytes (Go 1.26, amd64, GOGC=100): estimates 0.98-1.05 of
// the measured peaks; internal/cli's TestMemoryEstimateMatchesRSS holds
// them within 25 %. A run phase that updates records (new values, the
// old ones garbage until the next GC) may take up to about twice the
// records' share at GOGC=100; the check is on the load.
const (
	baseBytes     = 40 << 20
	entryOverhead = 240
	fieldHeader   = 40 // an adapters.Field: a string and a []byte
)

// PropEstimate turns the check off (memory.estimate=false): the load
// starts whatever the estimate says.
const PropEstimate = "memory.estimate"

// Estimate is what a load will hold.
type Estimate struct {
	Records     int64
	Fields      int
	Lengths     string  // the values' lengths as given: "100 B", "1-100 B, zipfian"
	ValueBytes  float64 // the mean allocated size of one value
	RecordBytes float64 // one record, all included
	Bytes       float64 // the process after the load
}

// String is "1,000,000 records of 100 fields of 100 B need about 15.4 GB".
func (e Estimate) String() string {
	return fmt.Sprintf("%s records of %d fields of %s need about %s", group(e.Records), e.Fields, e.Lengths, sizeOf(e.Bytes))
}

// EstimateLoad is the estimate of the core workload's load that props
// describe; ok is false when props are not a core workload's (the stream
// and time-series workloads keep no records here).
func EstimateLoad(props adapters.Properties) (Estimate, bool) {
	if w := strings.ToLower(strings.TrimSpace(props["workload"])); w != "" && w != "core" && !strings.HasSuffix(w, "coreworkload") {
		return Estimate{}, false
	}
	num := func(key string, def int64) int64 {
		if v, err := strconv.ParseInt(strings.TrimSpace(props[key]), 10, 64); err == nil && v >= 0 {
			return v
		}
		return def
	}
	records := num("recordcount", 0)
	start := num("insertstart", 0)
	records = num("insertcount", max(records-start, 0))
	fields := int(max(num("fieldcount", 10), 1))
	length := max(num("fieldlength", 100), 1)
	minLength := min(max(num("minfieldlength", 1), 1), length)
	keyLen := max(4+19, 4+num("zeropadding", 1)) // "user" and a hashed number
	prefix := props["fieldnameprefix"]
	if _, set := props["fieldnameprefix"]; !set {
		prefix = "field"
	}
	var value float64
	lengths := fmt.Sprintf("%d B", length)
	switch dist := strings.TrimSpace(props["fieldlengthdistribution"]); dist {
	case "uniform":
		value = meanAlloc(minLength, length, func(int64) float64 { return 1 })
		lengths = fmt.Sprintf("%d-%d B, uniform", minLength, length)
	case "zipfian":
		// YCSB's zipfian over the lengths: the shortest most often.
		value = meanAlloc(minLength, length, func(n int64) float64 { return 1 / math.Pow(float64(n-minLength+1), 0.99) })
		lengths = fmt.Sprintf("%d-%d B, zipfian", minLength, length)
	case "histogram": // its lengths are at most fieldlength
		value = float64(sizeClass(length))
		lengths = fmt.Sprintf("at most %d B", length)
	default: // constant
		value = float64(sizeClass(length))
	}
	rec := float64(fields)*value + float64(sizeClass(int64(fields)*fieldHeader)) + float64(sizeClass(keyLen)) + entryOverhead
	names := float64(fields) * float64(len(prefix)+24) // interned once for all records
	return Estimate{Records: records, Fields: fields, Lengths: lengths, ValueBytes: value, RecordBytes: rec,
		Bytes: baseBytes + names + float64(records)*rec}, true
}

// meanAlloc is the mean allocated size of a value whose length is drawn
// from [lo, hi] with weight(n): exactly up to 100,000 lengths, sampled
// evenly beyond.
func meanAlloc(lo, hi int64, weight func(int64) float64) float64 {
	step := max((hi-lo+1)/100000, 1)
	var sum, wsum float64
	for n := lo; n <= hi; n += step {
		w := weight(n)
		sum += w * float64(sizeClass(n))
		wsum += w
	}
	return sum / wsum
}

// sizeClass is what Go's allocator takes for an object of n bytes: its
// size classes up to 32 KiB, whole 8 KiB pages beyond.
func sizeClass(n int64) int64 {
	if n <= 0 {
		return 0
	}
	if n > 32768 {
		return (n + 8191) / 8192 * 8192
	}
	for _, c := range sizeClasses {
		if n <= c {
			return c
		}
	}
	return 32768
}

// sizeClasses are Go's (runtime/sizeclasses.go).
var sizeClasses = []int64{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256,
	288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792,
	2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240,
	10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// checkFits refuses a load the memory available to the process cannot
// hold (a *adapters.ConfigError naming recordcount: bad input, exit 2),
// unless memory.estimate=false.
func checkFits(props adapters.Properties, avail func() (Available, error)) error {
	r := adapters.NewReader(props)
	on := readEstimate(r)
	if err := r.Err(); err != nil {
		return err
	}
	est, ok := EstimateLoad(props)
	if !on || !ok || est.Records == 0 {
		return nil
	}
	a, err := avail()
	if err != nil || a.Bytes <= 0 || est.Bytes <= float64(a.Bytes) {
		return nil // nothing known to compare with: load
	}
	fit := int64(0)
	if room := float64(a.Bytes) - baseBytes; room > 0 {
		fit = int64(room / est.RecordBytes)
	}
	key := "recordcount"
	if _, set := props["insertcount"]; set {
		key = "insertcount"
	}
	return &adapters.ConfigError{Key: key, Value: strconv.FormatInt(est.Records, 10),
		Allowed: fmt.Sprintf("a load that fits in memory: %s, and %s is available to this process (%s); about %s records fit (fewer records or fields, a shorter fieldlength, or %s=false to load anyway)",
			est, sizeOf(float64(a.Bytes)), a.From, group(fit), PropEstimate)}
}

// readEstimate reads memory.estimate (default true).
func readEstimate(r *adapters.Reader) bool {
	return r.Bool(PropEstimate, true)
}

// sizeOf is a byte count for people: 512 B, 37.5 MB, 15.2 GB.
func sizeOf(b float64) string {
	switch {
	case b >= 1e12:
		return fmt.Sprintf("%.1f TB", b/1e12)
	case b >= 1e9:
		return fmt.Sprintf("%.1f GB", b/1e9)
	case b >= 1e6:
		return fmt.Sprintf("%.1f MB", b/1e6)
	case b >= 1e3:
		return fmt.Sprintf("%.1f kB", b/1e3)
	}
	return fmt.Sprintf("%.0f B", b)
}

// group writes n with thousands separators.
func group(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
