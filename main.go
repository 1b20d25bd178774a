// Command benchtop is a live, interactive database benchmark for the
// terminal: a YCSB-compatible workload engine that draws throughput,
// latency, errors and the client host's load while the run goes on, and
// takes keys (or scheduled steps) that change threads, partitions and the
// target rate mid-run.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"benchtop/adapters"
	_ "benchtop/adapters/dynamodb"
	_ "benchtop/adapters/influx"
	_ "benchtop/adapters/memory"
	_ "benchtop/adapters/mongodb"
	_ "benchtop/adapters/nats"
	_ "benchtop/adapters/null"
	_ "benchtop/adapters/redis"
	"benchtop/engine"
	_ "benchtop/engine/core"
	"benchtop/engine/report"
	_ "benchtop/engine/stream"
	_ "benchtop/engine/timeseries"
)

func main() {
	// BENCHTOP_CPUPROFILE=FILE writes a CPU profile of the whole run, for
	// finding what dominates the hot path (go tool pprof FILE).
	if path := os.Getenv("BENCHTOP_CPUPROFILE"); path != "" {
		if f, err := os.Create(path); err == nil {
			if err := pprof.StartCPUProfile(f); err == nil {
				code := run(os.Args[1:], os.Stdout, os.Stderr)
				pprof.StopCPUProfile()
				f.Close()
				os.Exit(code)
			}
			f.Close()
		}
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is main without os.Exit, for tests. It returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
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
		fmt.Fprintln(stdout, "benchtop (development build)")
		return 0
	case "list":
		for _, d := range adapters.Drivers() {
			fmt.Fprintf(stdout, "%-10s %s\n", d.Name, d.Description)
		}
		return 0
	}

	interactive := !o.Headless && term.IsTerminal(int(os.Stdout.Fd())) && term.IsTerminal(int(os.Stdin.Fd()))
	if o.Command == "demo" {
		o.Command = "run"
		o.Steps = append(o.Steps, demoSteps()...)
		sort.SliceStable(o.Steps, func(i, j int) bool { return o.Steps[i].At < o.Steps[j].At })
		o.Workload = "demo (workload A)"
		if !interactive {
			if _, ok := o.Props["maxexecutiontime"]; !ok {
				o.Props["maxexecutiontime"] = "75"
			}
		}
	} else if o.NoArgs && !interactive {
		// Headless with no arguments: a short run that ends by itself.
		o.Props["maxexecutiontime"] = "10"
	}
	if w := strings.TrimSpace(o.Props["workload"]); w != "" && !strings.HasSuffix(w, "CoreWorkload") && w != "core" && (o.NoArgs || o.Workload == "workloada") {
		// -p workload=stream without a -P file: name the run after it.
		o.Workload = w
	}
	o.Props["benchtop.workloadname"] = o.Workload

	cfg, warns, err := engine.NewConfig(o.Command, o.DB, o.Props)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", describeConfigErr(err))
		return 2
	}
	for _, w := range warns {
		fmt.Fprintln(stderr, "benchtop:", w)
	}

	// Open the outputs before the database so that a bad path fails fast.
	outs, err := openOutputs(o)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	defer outs.close()
	if fleetOpts.enabled() { // fleet: the coordinator (fleet_cmd.go)
		return runFleet(o, cfg, fleetOpts, outs, interactive, stdout, stderr)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	openCtx, openCancel := context.WithTimeout(ctx, 30*time.Second)
	db, err := adapters.Open(openCtx, o.DB, adapters.Properties(o.Props))
	openCancel()
	if err != nil {
		var ce *adapters.ConfigError
		if errors.As(err, &ce) {
			fmt.Fprintf(stderr, "benchtop: %v\n", describeConfigErr(err))
			return 2
		}
		fmt.Fprintf(stderr, "benchtop: %s: cannot open: %v\n", o.DB, oneLine(err))
		return 1
	}
	defer db.Close()

	info := engine.Info{
		Command:    o.Command,
		Adapter:    o.DB,
		Workload:   o.Workload,
		Properties: safeProps(o.Props),
	}
	if d, ok := db.(adapters.Describer); ok {
		info.Target = d.Describe()
	}
	opts := engine.Options{Info: info}
	if outs.series != nil {
		opts.OnSnapshot = append(opts.OnSnapshot, outs.series.Write)
	}
	if outs.hdr != nil {
		opts.OnInterval = append(opts.OnInterval, outs.hdr.Interval)
	}
	var status *statusPrinter
	if o.Status && !interactive {
		status = &statusPrinter{w: stderr, total: cfg.OperationCount}
		opts.OnSnapshot = append(opts.OnSnapshot, status.print)
	}
	phaseStarted := make(chan engine.Phase, 4)
	opts.OnPhase = append(opts.OnPhase, func(p engine.Phase) {
		select {
		case phaseStarted <- p:
		default:
		}
	})
	runner, err := engine.New(cfg, db, opts)
	if err != nil {
		var ce *adapters.ConfigError
		if errors.As(err, &ce) {
			fmt.Fprintf(stderr, "benchtop: %v\n", describeConfigErr(err))
			return 2
		}
		fmt.Fprintf(stderr, "benchtop: %v\n", oneLine(err))
		return 1
	}

	// Signals: stop the workers, then report what was measured.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var sigMu sync.Mutex
	var gotSig os.Signal
	go func() {
		for s := range sigs {
			sigMu.Lock()
			if gotSig == nil {
				gotSig = s
			}
			sigMu.Unlock()
			runner.Interrupt()
			cancel()
		}
	}()

	go runSteps(ctx, runner, o.Steps, phaseStarted, o.Command == "run")

	var results []*engine.PhaseResult
	var runErr error
	if interactive {
		results, runErr = runInteractive(ctx, runner, o, outs)
	} else {
		done := make(chan struct{})
		go func() {
			for range runner.Snapshots() {
			}
			close(done)
		}()
		results, runErr = runner.Run(ctx)
		<-done
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", oneLine(runErr))
	}

	report.WriteText(stdout, results, runner.Info())
	if err := outs.finish(results, runner.Info()); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		runErr = err
	}
	for _, p := range outs.written() {
		fmt.Fprintf(stderr, "benchtop: wrote %s\n", p)
	}
	sigMu.Lock()
	s := gotSig
	sigMu.Unlock()
	switch s {
	case syscall.SIGINT:
		return 130
	case syscall.SIGTERM:
		return 143
	}
	if runErr != nil {
		return 1
	}
	if n := len(results); n > 0 {
		last := results[n-1]
		if last.Set.Integrity > 0 {
			return 1
		}
		if last.Closing != nil && len(last.Closing.Problems) > 0 {
			for _, p := range last.Closing.Problems {
				fmt.Fprintf(stderr, "benchtop: %s\n", p)
			}
			return 1
		}
	}
	return 0
}

// describeConfigErr names the flag or property, the value and what is
// allowed, in one line.
func describeConfigErr(err error) string {
	var ce *adapters.ConfigError
	if errors.As(err, &ce) {
		key := ce.Key
		switch key {
		case "threadcount":
			key = "-threads / threadcount"
		case "target":
			key = "-target / target"
		}
		return fmt.Sprintf("%s: %q is not allowed (allowed: %s)", key, ce.Value, ce.Allowed)
	}
	return oneLine(err)
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// safeProps returns the properties with secrets masked, for reports.
func safeProps(p map[string]string) map[string]string {
	out := make(map[string]string, len(p))
	for k, v := range p {
		lk := strings.ToLower(k)
		switch {
		case strings.Contains(lk, "password") || strings.Contains(lk, "secret") || strings.Contains(lk, "token") || strings.Contains(lk, "credential"):
			out[k] = "****"
		case strings.Contains(lk, "url") || strings.Contains(lk, "endpoint") || strings.Contains(lk, "addr"):
			out[k] = adapters.MaskURL(v)
		default:
			out[k] = v
		}
	}
	return out
}

// runSteps applies scheduled steps relative to the start of the run phase
// (or of the load phase for a load command).
func runSteps(ctx context.Context, r engine.Controller, steps []step, started <-chan engine.Phase, waitRun bool) {
	if len(steps) == 0 {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case p := <-started:
			if waitRun && p != engine.PhaseRun {
				continue
			}
		}
		break
	}
	t0 := time.Now()
	for _, st := range steps {
		if d := time.Until(t0.Add(st.At)); d > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
		applyStep(r, st)
	}
}

func applyStep(r engine.Controller, st step) {
	var n int
	var f float64
	switch st.Key {
	case "threads":
		fmt.Sscan(st.Value, &n)
		_ = r.SetThreads(n)
	case "partitions":
		fmt.Sscan(st.Value, &n)
		_ = r.SetPartitions(n)
	case "target":
		fmt.Sscan(st.Value, &f)
		_ = r.SetTarget(f)
	case "pause":
		r.Pause()
	case "resume":
		r.Resume()
	case "mark":
		label := st.Value
		if label == "" {
			label = "mark"
		}
		r.Mark(label)
	case "stop":
		r.Stop()
	}
}

// demoSteps is the scripted scenario of `benchtop demo`.
func demoSteps() []step {
	return []step{
		{At: 0, Key: "threads", Value: "1"},
		{At: 8 * time.Second, Key: "threads", Value: "2"},
		{At: 16 * time.Second, Key: "threads", Value: "4"},
		{At: 24 * time.Second, Key: "threads", Value: "8"},
		{At: 32 * time.Second, Key: "partitions", Value: "8"},
		{At: 42 * time.Second, Key: "mark", Value: "8 partitions"},
		{At: 50 * time.Second, Key: "target", Value: "200000"},
		{At: 62 * time.Second, Key: "target", Value: "0"},
	}
}

// outputs are the export files asked for.
type outputs struct {
	jsonPath   string
	seriesFile *os.File
	series     *report.TimeSeries
	hdrFile    *os.File
	hdr        *report.HDRLog
	paths      []string
}

func openOutputs(o *cliOptions) (*outputs, error) {
	out := &outputs{jsonPath: o.JSON}
	if o.JSON != "" {
		if err := checkWritable(o.JSON); err != nil {
			return nil, fmt.Errorf("--json %s: %v", o.JSON, err)
		}
	}
	if o.TimeSeries != "" {
		f, err := os.Create(o.TimeSeries)
		if err != nil {
			return nil, fmt.Errorf("--timeseries %s: %v", o.TimeSeries, unwrapPathErr(err))
		}
		out.seriesFile = f
		out.series = report.NewTimeSeries(f)
	}
	if o.HDRLog != "" {
		f, err := os.Create(o.HDRLog)
		if err != nil {
			out.close()
			return nil, fmt.Errorf("--hdr-log %s: %v", o.HDRLog, unwrapPathErr(err))
		}
		out.hdrFile = f
		out.hdr = report.NewHDRLog(f, time.Now())
	}
	return out, nil
}

func checkWritable(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %v", dir, unwrapPathErr(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

func (o *outputs) finish(results []*engine.PhaseResult, info engine.Info) error {
	var errs []error
	if o.series != nil {
		if err := o.series.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("--timeseries: %w", err))
		} else {
			o.paths = append(o.paths, o.seriesFile.Name())
		}
	}
	if o.hdr != nil {
		if err := o.hdr.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("--hdr-log: %w", err))
		} else {
			o.paths = append(o.paths, o.hdrFile.Name())
		}
	}
	if o.jsonPath != "" {
		if err := writeJSONFile(o.jsonPath, results, info); err != nil {
			errs = append(errs, fmt.Errorf("--json: %w", err))
		} else {
			o.paths = append(o.paths, o.jsonPath)
		}
	}
	return errors.Join(errs...)
}

func writeJSONFile(path string, results []*engine.PhaseResult, info engine.Info) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := report.WriteJSON(f, results, info); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (o *outputs) written() []string { return o.paths }

func (o *outputs) close() {
	if o.seriesFile != nil {
		o.seriesFile.Close()
	}
	if o.hdrFile != nil {
		o.hdrFile.Close()
	}
}

// saveNow writes the report so far (YCSB text and JSON) into the current
// directory and returns where.
func saveNow(r *engine.Runner) (string, error) {
	results := r.Current()
	if len(results) == 0 {
		return "", errors.New("nothing measured yet")
	}
	base := "benchtop-report-" + time.Now().Format("20060102-150405")
	f, err := os.Create(base + ".txt")
	if err != nil {
		return "", fmt.Errorf("save report: %w", err)
	}
	report.WriteText(f, results, r.Info())
	if err := f.Close(); err != nil {
		return "", fmt.Errorf("save report: %w", err)
	}
	if err := writeJSONFile(base+".json", results, r.Info()); err != nil {
		return "", fmt.Errorf("save report: %w", err)
	}
	return base + ".txt and .json", nil
}
