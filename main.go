// Command benchtop is a live, interactive database benchmark for the
// terminal: a YCSB-compatible workload engine that draws throughput,
// latency, errors and the client host's load while the run goes on, and
// takes keys (or scheduled steps) that change threads, partitions and the
// target rate mid-run.
//
// main catches signals from the process's start (internal/sigfirst),
// starts the profiles the environment asks for, links in the adapters and
// workloads, and hands the command line to internal/cli, whose exit
// status it exits with. Every file a run writes is internal/output's.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"

	_ "benchtop/adapters/dynamodb"
	_ "benchtop/adapters/hbase"
	_ "benchtop/adapters/influx"
	_ "benchtop/adapters/kafka"
	_ "benchtop/adapters/memory"
	_ "benchtop/adapters/mongodb"
	_ "benchtop/adapters/nats"
	_ "benchtop/adapters/null"
	_ "benchtop/adapters/redis"
	_ "benchtop/adapters/sim"
	_ "benchtop/engine/core"
	_ "benchtop/engine/stream"
	_ "benchtop/engine/timeseries"
	"benchtop/internal/cli"
	"benchtop/internal/sigfirst"
)

func main() { os.Exit(run()) }

func run() int {
	sigs := sigfirst.C()
	// BENCHTOP_CPUPROFILE=FILE writes a CPU profile of the whole run, for
	// finding what dominates the hot path (go tool pprof FILE).
	// BENCHTOP_TRACE=FILE writes an execution trace (go tool trace FILE;
	// -pprof=sched gives how long goroutines waited for a core).
	defer startProfile("BENCHTOP_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile)()
	defer startProfile("BENCHTOP_TRACE", trace.Start, trace.Stop)()
	return cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, sigs)
}

// startProfile starts a profile or trace into the file the environment
// variable env names, if set; the function it returns stops it.
func startProfile(env string, start func(io.Writer) error, stop func()) func() {
	path := os.Getenv(env)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		if err = start(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "benchtop: %s: %v (running without it)\n", env, err)
		return func() {}
	}
	return func() {
		stop()
		f.Close()
	}
}
