// Package rundata is the run's data as everyone reads it: the Snapshot
// the engine publishes each interval (its operations' Stats, Events,
// Segments, the host's reading, a workload's typed figures, a fleet's
// agents, a capacity search's state), the run's Info and RunMeta. It is
// the contract apart from the runner: the screens, the reports and the
// fleet read it without linking the engine, gopsutil or a workload.
//
// It imports only the standard library: an interval's histograms travel
// apart (engine.IntervalData, to the OnInterval and OnIntervalData hooks).
// The engine, host, workload and marks packages keep their old names for
// these types as aliases.
package rundata
