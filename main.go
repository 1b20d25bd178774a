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
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"time"

	_ "benchtop/adapters/cassandra"
	_ "benchtop/adapters/dynamodb"
	_ "benchtop/adapters/hbase"
	_ "benchtop/adapters/influx"
	_ "benchtop/adapters/kafka"
	_ "benchtop/adapters/memory"
	_ "benchtop/adapters/mongodb"
	_ "benchtop/adapters/mysql"
	_ "benchtop/adapters/nats"
	_ "benchtop/adapters/null"
	_ "benchtop/adapters/postgres"
	_ "benchtop/adapters/redis"
	_ "benchtop/adapters/sim"
	"benchtop/internal/cli"
	"benchtop/internal/output"
	"benchtop/internal/sigfirst"
	_ "benchtop/workload/stream"
	_ "benchtop/workload/timeseries"
	_ "benchtop/workload/ycsb"
)

func main() { os.Exit(run()) }

func run() int {
	sigs := sigfirst.C()
	// BENCHTOP_CPUPROFILE=FILE writes a CPU profile of the whole run, for
	// finding what dominates the hot path (go tool pprof FILE).
	// BENCHTOP_TRACE=FILE writes an execution trace (go tool trace FILE;
	// -pprof=sched gives how long goroutines waited for a core).
	// BENCHTOP_HEAPPROFILE=FILE writes the live heap every 30 s and at the
	// end, for finding what holds memory (go tool pprof -base FILE.60s
	// FILE.300s).
	defer startProfile("BENCHTOP_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile)()
	defer startProfile("BENCHTOP_TRACE", trace.Start, trace.Stop)()
	defer heapProfile("BENCHTOP_HEAPPROFILE")()
	return cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, sigs)
}

// startProfile starts a profile or trace into the file the environment
// variable env names, if set; the function it returns stops it.
func startProfile(env string, start func(io.Writer) error, stop func()) func() {
	path := os.Getenv(env)
	if path == "" {
		return func() {}
	}
	f, err := output.CreateRegular(path)
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

// heapProfile writes the live heap into the file the environment
// variable env names, if set: FILE.30s, FILE.60s, ... every 30 s while
// the run goes on (as of the last GC: none is forced), and FILE at the
// end, after a GC. The function it returns writes the last one.
func heapProfile(env string) func() {
	path := os.Getenv(env)
	if path == "" {
		return func() {}
	}
	write := func(name string) {
		f, err := output.CreateRegular(name)
		if err == nil {
			err = pprof.Lookup("heap").WriteTo(f, 0)
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "benchtop: %s: %v\n", env, err)
		}
	}
	stop := make(chan struct{})
	go func() {
		const every = 30 * time.Second
		t := time.NewTicker(every)
		defer t.Stop()
		for n := 1; ; n++ {
			select {
			case <-stop:
				return
			case <-t.C:
				write(fmt.Sprintf("%s.%ds", path, n*int(every/time.Second)))
			}
		}
	}()
	return func() {
		close(stop)
		runtime.GC()
		write(path)
	}
}
