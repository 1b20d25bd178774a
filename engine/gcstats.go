package engine

import (
	"runtime"
	"runtime/metrics"
	"time"
)

// GCStats are the Go runtime's garbage collections over a span (a phase),
// for the report's GC lines in YCSB's shape ([TOTAL_GCS_Go], Count, ...).
type GCStats struct {
	// Collections counts the GC cycles completed, Forced those of them
	// that runtime.GC forced.
	Collections, Forced int64
	// Pause is the stop-the-world time (runtime.MemStats.PauseTotalNs):
	// what Java's collection time counts for a young-generation pause.
	Pause time.Duration
	// CPU is the CPU time the collector used, concurrent marking included
	// (/cpu/classes/gc/total:cpu-seconds, the runtime's estimate).
	CPU time.Duration
}

// readGC reads the runtime's totals so far. ReadMemStats stops the world
// for a moment: call it at a phase's edges, not per interval.
func readGC() GCStats {
	samples := []metrics.Sample{
		{Name: "/gc/cycles/total:gc-cycles"},
		{Name: "/gc/cycles/forced:gc-cycles"},
		{Name: "/cpu/classes/gc/total:cpu-seconds"},
	}
	metrics.Read(samples)
	var g GCStats
	if v := samples[0].Value; v.Kind() == metrics.KindUint64 {
		g.Collections = int64(v.Uint64())
	}
	if v := samples[1].Value; v.Kind() == metrics.KindUint64 {
		g.Forced = int64(v.Uint64())
	}
	if v := samples[2].Value; v.Kind() == metrics.KindFloat64 {
		g.CPU = time.Duration(v.Float64() * float64(time.Second))
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	g.Pause = time.Duration(ms.PauseTotalNs)
	return g
}

// since is what happened between start and g.
func (g GCStats) since(start GCStats) GCStats {
	return GCStats{
		Collections: g.Collections - start.Collections,
		Forced:      g.Forced - start.Forced,
		Pause:       g.Pause - start.Pause,
		CPU:         g.CPU - start.CPU,
	}
}
