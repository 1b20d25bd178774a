// Command benchtop is a live, interactive database benchmark for the
// terminal: a YCSB-compatible workload engine that draws throughput,
// latency, errors and the client host's load while the run goes on, and
// takes keys (or scheduled steps) that change threads, partitions and the
// target rate mid-run.
//
// main parses the command line (cli.go, props.go), opens the adapter and
// builds the run (run.go), runs it headless or under the live screen
// (interactive.go), writes the report and the exports (outputs.go) and
// turns the outcome into the exit status. Signals are caught from the
// process's start (internal/sigfirst, signals.go).
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"sync"

	"golang.org/x/term"

	"benchtop/adapters"
	_ "benchtop/adapters/dynamodb"
	_ "benchtop/adapters/hbase"
	_ "benchtop/adapters/influx"
	_ "benchtop/adapters/kafka"
	_ "benchtop/adapters/memory"
	_ "benchtop/adapters/mongodb"
	_ "benchtop/adapters/nats"
	_ "benchtop/adapters/null"
	_ "benchtop/adapters/redis"
	"benchtop/engine"
	_ "benchtop/engine/core"
	_ "benchtop/engine/stream"
	_ "benchtop/engine/timeseries"
	"benchtop/internal/sigfirst"
)

func main() {
	sigs := sigfirst.C()
	// BENCHTOP_CPUPROFILE=FILE writes a CPU profile of the whole run, for
	// finding what dominates the hot path (go tool pprof FILE).
	// BENCHTOP_TRACE=FILE writes an execution trace (go tool trace FILE;
	// -pprof=sched gives how long goroutines waited for a core).
	stopProfile := startProfile("BENCHTOP_CPUPROFILE", pprof.StartCPUProfile, pprof.StopCPUProfile)
	stopTrace := startProfile("BENCHTOP_TRACE", trace.Start, trace.Stop)
	code := runWithSignals(os.Args[1:], os.Stdout, os.Stderr, sigs)
	stopTrace()
	stopProfile()
	os.Exit(code)
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

// run is main without os.Exit and without signals, for tests. It returns
// the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return runWithSignals(args, stdout, stderr, nil)
}

// runWithSignals is main: signals from sigs (nil: none) interrupt
// whatever stage the run is in.
func runWithSignals(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	intr := watchSignals(sigs) // first: before any file is read
	defer intr.stop()
	stderr = &lockedWriter{w: stderr}
	if len(args) > 0 && args[0] == "report" { // html report: report_cmd.go
		return runReport(args[1:], stdout, stderr)
	}
	// fleet: `benchtop agent`, and the coordinator's flags (agent_cmd.go, fleet_cmd.go).
	if len(args) > 0 && args[0] == "agent" {
		return runAgent(args[1:], os.Stdin, stdout, stderr)
	}
	fleetOpts, args, err := splitFleetFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	o, err := parseArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	switch o.Command {
	case "help":
		fmt.Fprint(stdout, usageText)
		return 0
	case "version":
		fmt.Fprintln(stdout, engine.Version()) // meta.go
		return 0
	case "list":
		for _, d := range adapters.Drivers() {
			fmt.Fprintf(stdout, "%-10s %s\n", d.Name, d.Description)
		}
		return 0
	}
	interactive := !o.Headless && term.IsTerminal(int(os.Stdout.Fd())) && term.IsTerminal(int(os.Stdin.Fd()))
	applyModeDefaults(o, interactive)
	if fleetOpts.enabled() { // fleet: the coordinator (fleet_cmd.go)
		return runFleetCommand(o, fleetOpts, interactive, stdout, stderr, intr)
	}
	return runBenchmark(o, interactive, stdout, stderr, intr)
}

// lockedWriter serialises writes from the goroutines that report on
// stderr (status lines, failed steps, the end of the run).
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
