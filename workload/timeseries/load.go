package timeseries

import (
	"math"

	"benchtop/adapters"
)

// LoadCount implements workload.Loader: a load phase writes recordcount
// records (insertcount when given, as YCSB's load does).
func (w *Workload) LoadCount() int64 { return w.loadCount }

func loadCount(p adapters.Properties) int64 {
	r := adapters.NewReader(p)
	records := r.Int64("recordcount", 0, 0, math.MaxInt64)
	start := r.Int64("insertstart", 0, 0, math.MaxInt64)
	return r.Int64("insertcount", max(records-start, 0), 0, math.MaxInt64)
}
