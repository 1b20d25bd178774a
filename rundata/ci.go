package rundata

// RateCI is a rate and a p99 with their 95 % confidence intervals
// (results/ci), as the JSON gives them side by side: the run's (the
// summary's) and each find-max probe's. OpsPerSec is successful
// operations per second; P99US the p99 in µs, nil (null) when nothing
// succeeded, its bounds with it.
type RateCI struct {
	OpsPerSec       float64  `json:"ops_per_sec"`
	OpsPerSecCILow  float64  `json:"ops_per_sec_ci_low"`
	OpsPerSecCIHigh float64  `json:"ops_per_sec_ci_high"`
	P99US           *float64 `json:"p99_us"`
	P99USCILow      *float64 `json:"p99_us_ci_low"`
	P99USCIHigh     *float64 `json:"p99_us_ci_high"`
}
