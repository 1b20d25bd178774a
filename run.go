package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/steps"
	"benchtop/liblog"
)

// openTimeout bounds an adapter's connect.
const openTimeout = 30 * time.Second

// plan is a run ready to start.
type plan struct {
	runner  *engine.Runner
	player  *steps.Player
	exports *exports
	ycsb    *ycsbOutput  // exporter, exportfile, HDR files (ycsbexport.go)
	viewers *viewers     // [screen] the snapshot fan-out and SSH viewers
	note    string       // [screen] who may watch
	sink    *liblog.Sink // [screen] library logging, never to the terminal
}

// runBenchmark validates the configuration, opens the adapter, builds and
// runs the run, writes the report and returns the exit status.
func runBenchmark(o *cliOptions, interactive bool, stdout, stderr io.Writer, intr *interrupts) int {
	cfg, warns, err := engine.NewConfig(o.Command, o.DB, o.Props)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", describeConfigErr(err))
		return 2
	}
	for _, w := range warns {
		fmt.Fprintln(stderr, "benchtop:", w)
	}
	// The exports' paths are checked before the database, so that a bad
	// path fails fast; the files are created when the run starts.
	if err := checkExports(o); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
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
	if intr.signal() != nil {
		return notStarted(stderr, intr)
	}
	db, code := openAdapter(o, stderr, intr)
	if db == nil {
		return code
	}
	defer db.Close()
	p, code := buildRun(o, cfg, db, stderr, interactive, ycsb)
	if p == nil {
		return code
	}
	defer p.player.Close()
	p.sink = sink
	if code := startScreenViewers(p, o, interactive, stderr); code != 0 {
		return code
	}
	defer p.viewers.close()
	intr.onSignal(p.runner.Interrupt)
	if intr.signal() != nil {
		return notStarted(stderr, intr)
	}
	if err := p.exports.start(o, p.runner.Info().Start); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 1
	}
	results, runErr := execute(intr.ctx, p, o, interactive)
	return finishRun(p, results, runErr, stdout, stderr, intr, interactive)
}

// notStarted reports a signal that came before the run started.
func notStarted(stderr io.Writer, intr *interrupts) int {
	fmt.Fprintf(stderr, "benchtop: interrupted by %s before the run started: nothing was measured\n", intr.name())
	return intr.exitCode()
}

// openAdapter connects to the database; a signal cancels the connect.
// It returns nil and the exit status when there is no database to run on.
func openAdapter(o *cliOptions, stderr io.Writer, intr *interrupts) (adapters.DB, int) {
	ctx, cancel := context.WithTimeout(intr.ctx, openTimeout)
	db, err := adapters.Open(ctx, o.DB, adapters.Properties(o.Props))
	cancel()
	if intr.signal() != nil {
		if db != nil {
			db.Close()
		}
		fmt.Fprintf(stderr, "benchtop: %s: open interrupted by %s: nothing was measured\n", o.DB, intr.name())
		return nil, intr.exitCode()
	}
	if err != nil {
		var ce *adapters.ConfigError
		if errors.As(err, &ce) {
			fmt.Fprintf(stderr, "benchtop: %v\n", describeConfigErr(err))
			return nil, 2
		}
		fmt.Fprintf(stderr, "benchtop: %s: cannot open: %v\n", o.DB, oneLine(err))
		return nil, 1
	}
	return db, 0
}

// buildRun builds the runner with its hooks (steps, exports, status
// lines) and refuses steps the adapter cannot take.
func buildRun(o *cliOptions, cfg *engine.Config, db adapters.DB, stderr io.Writer, interactive bool, ycsb *ycsbOutput) (*plan, int) {
	info := engine.Info{Command: o.Command, Adapter: o.DB, Workload: o.Workload, Properties: adapters.MaskProperties(o.Props),
		Meta:       engine.CollectMeta(maskArgs(o.Args)), // run metadata (runmeta.go)
		Thresholds: o.Thresholds,                         // --threshold (thresholds.go)
	}
	if d, ok := db.(adapters.Describer); ok {
		info.Target = d.Describe()
	}
	opts := engine.Options{Info: info}
	ycsb.hook(&opts)

	p := &plan{exports: &exports{}, ycsb: ycsb}
	p.player = newPlayer(o, stderr, interactive)
	opts.OnPhase = append(opts.OnPhase, p.player.OnPhase)
	opts.OnSnapshot = append(opts.OnSnapshot, p.player.OnSnapshot)
	p.exports.hooks(&opts)
	if o.Status && !interactive {
		status := &statusPrinter{w: stderr, total: cfg.OperationCount}
		opts.OnSnapshot = append(opts.OnSnapshot, status.print)
	}
	runner, err := engine.New(cfg, db, opts)
	if err != nil {
		var ce *adapters.ConfigError
		if errors.As(err, &ce) {
			fmt.Fprintf(stderr, "benchtop: %v\n", describeConfigErr(err))
			return nil, 2
		}
		fmt.Fprintf(stderr, "benchtop: %v\n", oneLine(err))
		return nil, 1
	}
	if err := checkRepartition(o, runner.Info()); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return nil, 2
	}
	p.runner = runner
	p.player.Bind(runner)
	return p, 0
}

// newPlayer makes the player of the run's steps: their clock starts with
// the run phase (the load phase for load). Headless, a failed step is
// told at once; on the live screen, after it closes.
func newPlayer(o *cliOptions, stderr io.Writer, interactive bool) *steps.Player {
	phase := engine.PhaseRun
	if o.Command == "load" {
		phase = engine.PhaseLoad
	}
	var tell func(steps.Failure)
	if !interactive {
		tell = func(f steps.Failure) { fmt.Fprintf(stderr, "benchtop: step failed: %s\n", f) }
	}
	return steps.NewPlayer(o.Steps, phase, tell)
}

// checkRepartition refuses partition steps on an adapter that cannot
// change its partition count, before any operation runs.
func checkRepartition(o *cliOptions, info engine.Info) error {
	if info.CanRepartition {
		return nil
	}
	for _, st := range o.Steps {
		if st.Action == steps.Partitions {
			return usagef("%s: the %s adapter cannot change its partition count (steps it takes: threads, target, pause, resume, mark, stop)", st.Source, o.DB)
		}
	}
	return nil
}

// execute runs to the end, headless or under the live screen.
func execute(ctx context.Context, p *plan, o *cliOptions, interactive bool) ([]*engine.PhaseResult, error) {
	if interactive {
		res, err := runInteractive(ctx, p.runner, o, p.exports, p.viewers, p.note, p.sink)
		libLogNote(p.sink, os.Stderr) // [screen]
		return res, err
	}
	done := make(chan struct{})
	if p.viewers != nil {
		done = p.viewers.done() // [screen] the fan-out drains the snapshots
	} else {
		go func() {
			for range p.runner.Snapshots() {
			}
			close(done)
		}()
	}
	res, err := p.runner.Run(ctx)
	<-done
	return res, err
}

// finishRun writes the report and the exports and returns the exit
// status.
func finishRun(p *plan, results []*engine.PhaseResult, runErr error, stdout, stderr io.Writer, intr *interrupts, interactive bool) int {
	p.player.Close()
	failed := p.player.Failures()
	if interactive {
		for _, f := range failed {
			fmt.Fprintf(stderr, "benchtop: step failed: %s\n", f)
		}
	}
	if runErr != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", oneLine(runErr))
	}
	if len(results) == 0 {
		// Nothing ran: nothing to report, no export files.
		p.exports.discard()
		if intr.signal() != nil {
			return notStarted(stderr, intr)
		}
		if runErr != nil {
			return 1
		}
		return 0
	}
	info := p.runner.Info()
	ycsbPaths, err := p.ycsb.write(stdout, results, info) // the report, through YCSB's exporter
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		runErr = err
	}
	writeFailedSteps(stdout, failed)
	p.exports.baseline.writeComment(stdout, results, info) // --baseline (baseline.go)
	if err := p.exports.finish(results, info, failed); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		runErr = err
	}
	p.exports.paths = append(p.exports.paths, ycsbPaths...)
	for _, path := range p.exports.paths {
		fmt.Fprintf(stderr, "benchtop: wrote %s\n", path)
	}
	return exitCode(results, info, runErr, stderr, intr)
}

// exitCode: 130/143 after a signal, 1 after an error, a data-integrity
// mismatch or a workload's problem, else 0.
func exitCode(results []*engine.PhaseResult, info engine.Info, runErr error, stderr io.Writer, intr *interrupts) int {
	if c := intr.exitCode(); c != 0 {
		return c
	}
	if runErr != nil {
		return 1
	}
	last := results[len(results)-1]
	if last.Set.Integrity > 0 {
		return 1
	}
	if last.Closing != nil && len(last.Closing.Problems) > 0 {
		for _, pr := range last.Closing.Problems {
			fmt.Fprintf(stderr, "benchtop: %s\n", pr)
		}
		return 1
	}
	if thresholdsCrossed(results, info, stderr) { // thresholds.go
		return exitThresholds
	}
	return 0
}

// startScreenViewers fans the snapshots out to the screen and, with
// --serve-ssh, to SSH viewers. [screen]
func startScreenViewers(p *plan, o *cliOptions, interactive bool, stderr io.Writer) int {
	if !interactive && o.Screen.ServeSSH == "" {
		return 0
	}
	vw, note, err := startViewers(o, p.runner, func() (string, error) { return saveNow(p.runner, p.exports) })
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	p.viewers, p.note = vw, note
	if note != "" && !interactive {
		fmt.Fprintln(stderr, "benchtop:", note)
	}
	return 0
}
