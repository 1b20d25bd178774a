package htmlreport

// The workloads' page sections, registered as main registers them: the
// fixtures hold a stream's and a time series' members.
import (
	_ "benchtop/workload/stream"
	_ "benchtop/workload/timeseries"
)
