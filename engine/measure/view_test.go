package measure

import (
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// EachBucket gives exactly hdrhistogram-go's Distribution, zero buckets
// left out, for the engine's range; and for another range (through
// Distribution itself).
func TestEachBucketMatchesDistribution(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 9))
	for _, h := range []*hdr.Histogram{NewHistogram(), hdr.New(1, 1e6, 2)} {
		top := h.HighestTrackableValue()
		for range 5000 {
			v := int64(r.ExpFloat64() * 2e5)
			if r.IntN(50) == 0 {
				v = r.Int64N(top) // the far range too
			}
			_ = h.RecordValues(max(min(v, top), 1), r.Int64N(3)+1)
		}
		_ = h.RecordValue(1)
		_ = h.RecordValue(top)
		var want [][3]int64
		for _, b := range h.Distribution() {
			if b.Count > 0 {
				want = append(want, [3]int64{b.From, b.To, b.Count})
			}
		}
		var got [][3]int64
		var total int64
		EachBucket(h, func(lo, hi, n int64) {
			got = append(got, [3]int64{lo, hi, n})
			total += n
		})
		if total != h.TotalCount() {
			t.Fatalf("range %d: counted %d values, the histogram holds %d", top, total, h.TotalCount())
		}
		if len(got) != len(want) {
			t.Fatalf("range %d: %d buckets, Distribution has %d non-empty", top, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("range %d: bucket %d = %v, Distribution says %v", top, i, got[i], want[i])
			}
		}
	}
	EachBucket(nil, func(int64, int64, int64) { t.Fatal("a nil histogram has no bucket") })
}
