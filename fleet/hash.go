package fleet

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"benchtop/adapters"
	"benchtop/engine"
)

// RunHash is the hash of a run as this binary understands it: the
// protocol, the histogram range, the command and adapter, the properties
// (secrets left out) and the settings the engine resolves from them
// (workload, interval, measurement, percentiles, threads, target). The
// coordinator sends its hash with the run; an agent whose binary resolves
// the same run differently (another benchtop version, another adapter
// set) computes another hash and refuses the run, so that histograms and
// operation names that do not line up are never merged.
func RunHash(cfg *engine.Config) string {
	canon := struct {
		Protocol         int
		Range            HistRange
		Command, Adapter string
		Props            map[string]string
		Workload         string
		StatusInterval   int64
		Measurement      string
		Percentiles      []float64
		Threads          int
		Target           float64
		OperationCount   int64
	}{
		Protocol: Protocol, Range: LocalRange(), Command: cfg.Command, Adapter: cfg.DB,
		Props: hashable(cfg.Props), Workload: cfg.Workload, StatusInterval: int64(cfg.StatusInterval),
		Measurement: cfg.MeasurementIntvl, Percentiles: cfg.Percentiles, Threads: cfg.Threads,
		Target: cfg.Target, OperationCount: cfg.OperationCount,
	}
	b, _ := json.Marshal(canon) // maps marshal with sorted keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// hashable is the properties without secrets, whose hash could otherwise
// be guessed at, and without the label benchtop adds itself.
func hashable(p adapters.Properties) map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		if adapters.IsSecretKey(k) || k == "benchtop.workloadname" {
			continue
		}
		out[k] = v
	}
	return out
}

// ShortHash is a hash as shown in messages.
func ShortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
