package measure

import (
	"reflect"
	"slices"
	"unsafe"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A view of a histogram's counts array and total, in place.
//
// hdrhistogram-go keeps both unexported: Export copies the array (270 KB
// at the engine's range), and Merge and Reset walk or clear all of it. The
// sampler merges and empties every recorder's histograms once per
// interval, most of them holding a few thousand values in the first few
// thousand buckets; with 64 busy recorders the walks took tens of ms of
// one core per interval, in a burst that held up the workers queued on
// its P. Through the view a merge adds the counts up to the source's last
// value, and a reset clears only those.
//
// The view reads the fields' offsets by reflection once, and is used only
// if a probe histogram reads back through it exactly as Export gives it
// (TestViewMatchesExport); otherwise (another hdrhistogram-go) the
// library's own Merge and Reset are used.
var (
	countsOff, totalOff uintptr
	viewOK              = probeView()
)

func probeView() bool {
	t := reflect.TypeFor[hdr.Histogram]()
	c, ok1 := t.FieldByName("counts")
	n, ok2 := t.FieldByName("totalCount")
	if !ok1 || !ok2 || c.Type != reflect.TypeFor[[]int64]() || n.Type != reflect.TypeFor[int64]() {
		return false
	}
	countsOff, totalOff = c.Offset, n.Offset
	h := NewHistogram()
	for _, v := range []int64{1, 999, 123456, 7e9} {
		if h.RecordValues(v, v%7+1) != nil {
			return false
		}
	}
	return *totalOf(h) == h.TotalCount() && slices.Equal(countsOf(h), h.Export().Counts)
}

func countsOf(h *hdr.Histogram) []int64 {
	return *(*[]int64)(unsafe.Add(unsafe.Pointer(h), countsOff))
}

func totalOf(h *hdr.Histogram) *int64 {
	return (*int64)(unsafe.Add(unsafe.Pointer(h), totalOff))
}

// mergeHist adds src to dst and returns the values dropped (none: every
// histogram of the engine has the same range, and values are clamped to
// it when recorded).
func mergeHist(dst, src *hdr.Histogram) int64 {
	if !viewOK {
		return dst.Merge(src)
	}
	sc, dc := countsOf(src), countsOf(dst)
	total := src.TotalCount()
	if len(sc) != len(dc) { // not the engine's range
		return dst.Merge(src)
	}
	left := total
	for i := 0; left > 0 && i < len(sc); i++ {
		if c := sc[i]; c != 0 {
			dc[i] += c
			left -= c
		}
	}
	*totalOf(dst) += total
	return 0
}

// MergeHistogram adds src to dst (both of the engine's range) as
// hdrhistogram-go's Merge does, faster; it returns the values dropped.
func MergeHistogram(dst, src *hdr.Histogram) int64 { return mergeHist(dst, src) }

// resetHist empties h as its Reset does, clearing only the buckets up to
// its last value.
func resetHist(h *hdr.Histogram) {
	if !viewOK {
		h.Reset()
		return
	}
	h.SetTag("")
	h.SetStartTimeMs(0)
	h.SetEndTimeMs(0)
	c := countsOf(h)
	left := h.TotalCount()
	for i := 0; left > 0 && i < len(c); i++ {
		if c[i] != 0 {
			left -= c[i]
			c[i] = 0
		}
	}
	*totalOf(h) = 0
}

// EachBucket calls fn for every bucket of h that holds values, in
// increasing order: the lowest and highest value the bucket stands for
// and its count (hdrhistogram-go's Distribution, without the zero
// buckets and without allocating one Bar per bucket). Through the view
// it reads the counts in place up to the last value; a histogram of
// another range, or another hdrhistogram-go, goes through Distribution.
// It is for once-per-interval readers (the metrics exporter), never the
// hot path.
func EachBucket(h *hdr.Histogram, fn func(lowest, highest, count int64)) {
	if h == nil || h.TotalCount() == 0 {
		return
	}
	if !viewOK || len(countsOf(h)) != countsLen || h.LowestTrackableValue() != Lowest || h.SignificantFigures() != Digits {
		for _, b := range h.Distribution() {
			if b.Count > 0 {
				fn(b.From, b.To, b.Count)
			}
		}
		return
	}
	c := countsOf(h)
	left := h.TotalCount()
	for i := 0; left > 0 && i < len(c); i++ {
		if n := c[i]; n != 0 {
			fn(valueAt(i), valueAt(i+1)-1, n)
			left -= n
		}
	}
}
