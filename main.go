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
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/term"

	"benchtop/adapters"
	_ "benchtop/adapters/dynamodb"
	_ "benchtop/adapters/hbase"
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
	if len(args) > 0 && args[0] == "report" { // html report: report_cmd.go
		return runReport(args[1:], stdout, stderr)
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
	if o.Command == "demo" {
		o.Screen.Demo = true // [screen] captions and the end card
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
	ycsb, err := newYCSBOutput(cfg) // exporter, exportfile, HDR files (ycsbexport.go)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	// [screen] Library logging never reaches the terminal (--log FILE).
	sink, err := openLibLog(o, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	defer sink.Close()

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
		Command:     o.Command,
		Adapter:     o.DB,
		Workload:    o.Workload,
		Properties:  safeProps(o.Props),
		CommandLine: commandLine(args),                  // html report
		Meta:        engine.CollectMeta(maskArgs(args)), // run metadata (runmeta.go)
		Thresholds:  o.Thresholds,                       // --threshold (thresholds.go)
	}
	if d, ok := db.(adapters.Describer); ok {
		info.Target = d.Describe()
	}
	opts := engine.Options{Info: info}
	ycsb.hook(&opts)
	if outs.series != nil {
		opts.OnSnapshot = append(opts.OnSnapshot, outs.series.Write)
	}
	if outs.hdr != nil {
		opts.OnInterval = append(opts.OnInterval, outs.hdr.Interval)
	}
	if outs.html != nil { // html report
		outs.html.hook(&opts)
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

	// [screen] The snapshots fan out to the screen and the SSH viewers.
	var vw *viewers
	var note string
	if interactive || o.Screen.ServeSSH != "" {
		vw, note, err = startViewers(o, runner, func() (string, error) { return saveNow(runner, outs) })
		if err != nil {
			fmt.Fprintf(stderr, "benchtop: %v\n", err)
			return 2
		}
		defer vw.close()
		if note != "" && !interactive {
			fmt.Fprintln(stderr, "benchtop:", note)
		}
	}

	go runSteps(ctx, runner, o.Steps, phaseStarted, o.Command == "run")

	var results []*engine.PhaseResult
	var runErr error
	if interactive {
		results, runErr = runInteractive(ctx, runner, o, outs, vw, note, sink)
		libLogNote(sink, stderr) // [screen]
	} else {
		done := make(chan struct{})
		if vw != nil {
			done = vw.done() // [screen] the fan-out drains the snapshots
		} else {
			go func() {
				for range runner.Snapshots() {
				}
				close(done)
			}()
		}
		results, runErr = runner.Run(ctx)
		<-done
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", oneLine(runErr))
	}

	ycsbPaths, err := ycsb.write(stdout, results, runner.Info()) // the report, through YCSB's exporter
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		runErr = err
	}
	if err := outs.finish(results, runner.Info()); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		runErr = err
	}
	outs.paths = append(outs.paths, ycsbPaths...)
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
	if thresholdsCrossed(results, runner.Info(), stderr) { // thresholds.go
		return exitThresholds
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
func runSteps(ctx context.Context, r *engine.Runner, steps []step, started <-chan engine.Phase, waitRun bool) {
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

func applyStep(r *engine.Runner, st step) {
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
	var out []step
	for _, d := range demoScenario() {
		out = append(out, d.step)
	}
	return out
}

// demoStep is one step of the demo with the caption the screen shows.
type demoStep struct {
	step
	Caption string
}

// demoScenario is the demo: each step's effect is real on a 2-core
// machine too (more threads than cores queue for the CPU and the store's
// lock; a target below capacity shows intended latency), each segment is
// long enough to count (3 intervals after its first), and it ends with
// the segments table. [screen] The lead merges this with the steps package.
func demoScenario() []demoStep {
	cores := runtime.NumCPU()
	return []demoStep{
		{step{At: 0, Key: "threads", Value: "1"}, "1 thread: the baseline"},
		{step{At: 10 * time.Second, Key: "threads", Value: "2"}, "threads 1 → 2: a second worker, more throughput while cores are free"},
		{step{At: 20 * time.Second, Key: "threads", Value: "8"}, fmt.Sprintf("threads 2 → 8: on %d cores, more threads overlap their waits", cores)},
		{step{At: 30 * time.Second, Key: "threads", Value: "64"}, fmt.Sprintf("threads 8 → 64: far more threads than the %d cores: they queue for the CPU and the store's lock, p99 grows", cores)},
		{step{At: 40 * time.Second, Key: "threads", Value: "4"}, "threads 64 → 4: back near the cores: p99 falls again"},
		{step{At: 50 * time.Second, Key: "target", Value: "50000"}, "target 50K ops/s: paced well below capacity; latency is also measured from the intended start"},
		{step{At: 60 * time.Second, Key: "target", Value: "0"}, "target → unlimited: the intended-latency rows go"},
		{step{At: 70 * time.Second, Key: "stop"}, "the end: the segments table"},
	}
}

// outputs are the export files asked for.
type outputs struct {
	jsonPath   string
	seriesFile *os.File
	series     *report.TimeSeries
	hdrFile    *os.File
	hdr        *report.HDRLog
	html       *htmlOutput // html report: report_cmd.go
	paths      []string
}

func openOutputs(o *cliOptions) (*outputs, error) {
	out := &outputs{jsonPath: o.JSON}
	start := time.Now() // one start for the --hdr-log file and --html's log
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
		out.hdr = report.NewHDRLog(f, start)
	}
	if o.HTML != "" { // html report
		h, err := newHTMLOutput(o.HTML, start)
		if err != nil {
			out.close()
			return nil, err
		}
		out.html = h
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
	if o.html != nil { // html report
		if err := o.html.write(o.html.path, results, info); err != nil {
			errs = append(errs, fmt.Errorf("--html: %w", err))
		} else {
			o.paths = append(o.paths, o.html.path)
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
func saveNow(r *engine.Runner, outs *outputs) (string, error) {
	results := r.Current()
	if len(results) == 0 {
		return "", errors.New("nothing measured yet")
	}
	// [screen] A live save is not an interrupted run: the run goes on.
	live := *results[len(results)-1]
	live.Interrupted = false
	results[len(results)-1] = &live
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
	if outs != nil && outs.html != nil { // html report
		if err := outs.html.write(base+".html", results, r.Info()); err != nil {
			return "", fmt.Errorf("save report: %w", err)
		}
		return base + ".txt, .json and .html", nil
	}
	return base + ".txt and .json", nil
}
