package cli

// A run on this machine: benchtop load|run|demo without agents.

import (
	"context"
	"errors"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/internal/output"
	"benchtop/internal/output/metrics"
	"benchtop/liblog"
	"benchtop/results/findmax"
	"benchtop/results/steps"
	"benchtop/tui/attach"
)

// plan is a run ready to start.
type plan struct {
	runner  *engine.Runner
	player  *steps.Player
	search  *findmax.Search // --find-max, nil without
	exports *output.Exports
	ycsb    *output.YCSB  // exporter, exportfile, HDR files
	viewers *viewers      // [screen] the snapshot fan-out and SSH viewers
	note    string        // [screen] who may watch
	sink    *liblog.Sink  // [screen] library logging, never to the terminal
	guard   *output.Guard // the files read and written (files.go)
	hangup  *hangup       // a lost terminal, the attach socket (hangup.go)
}

// localRun validates the configuration, opens the adapter, builds and
// runs the run, writes the report and returns the exit status.
func localRun(st *State, o *options) int {
	cfg, warns, err := engine.NewConfig(o.Command, o.DB, o.Props)
	if err != nil {
		st.tell("%s", describeConfigErr(err))
		return exitUsage
	}
	for _, w := range warns {
		st.tell("%v", w)
	}
	if err := checkRunOps(o, cfg); err != nil { // thresholds.go
		return st.fail(exitUsage, err)
	}
	// Every output is checked before the database, against the inputs
	// and the other outputs, so that a bad path fails fast (files.go);
	// the files are created when the run starts.
	guard, ycsb, err := checkRunFiles(st, o, cfg) // exports, --log, exportfile, HDR files
	if err != nil {
		return st.fail(exitUsage, err)
	}
	// [screen] Library logging never reaches the terminal (--log FILE).
	sink, err := liblog.Open(o.Screen.Log)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	defer sink.Close()
	sink.Mask(adapters.SecretValues(o.Props))
	mx, err := startMetrics(st, o, false) // --metrics, --metrics-push (metrics.go)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	defer closeMetrics(mx)
	if st.signalled() != nil {
		return st.notStarted()
	}
	db, code := openAdapter(st, o)
	if db == nil {
		return code
	}
	defer db.Close()
	p, code := buildRun(st, o, cfg, db, ycsb, mx)
	if p == nil {
		return code
	}
	for _, n := range o.Notes { // the run is accepted: what it was taken to mean
		st.tell("%s", n)
	}
	defer p.player.Close()
	if p.search != nil {
		defer p.search.Close()
	}
	p.sink, p.guard = sink, guard
	p.exports.SetStdout(st.Stdout, guard)
	p.hangup = newHangup(st, sink, output.ReportPath(o.Exports, cfg.Output.ExportFile, p.runner.Info().Start), st.Interactive)
	if st.Interactive || o.Screen.ServeSSH != "" {
		// [screen] The snapshots fan out to the screen and, with
		// --serve-ssh, to SSH viewers.
		p.viewers, p.note, err = startViewers(o, p.runner, func() (string, error) { return output.SaveRun(p.runner, p.exports) })
		if err != nil {
			return st.fail(exitUsage, err)
		}
		if p.note != "" && !st.Interactive {
			st.tell("%s", p.note)
		}
	}
	defer p.viewers.close()
	if st.Interactive {
		var srv *attach.Server
		srv, p.note = startAttach(o, attach.Options{Info: p.runner.Info(), Control: p.runner, Snapshots: p.viewers.b,
			SaveReport: func() (string, error) { return output.SaveRun(p.runner, p.exports) }, Interval: p.runner.Interval()}, p.note)
		p.hangup.listen(srv) // [screen] benchtop attach
	}
	// A run that will not end by itself says so first (hangup.go).
	p.hangup.started, p.hangup.endless = p.runner.Info().Start, runsUntilStopped(o, cfg)
	if p.hangup.endless {
		if st.Interactive {
			// After the attach hint: where the line is cut (80 or 120
			// columns), the way back to a lost run must stay whole.
			p.note = joinNotes(p.note, "runs until stopped: "+noEndReason)
		} else {
			st.tell("runs until stopped: %s (SIGINT or SIGTERM ends it)", noEndReason)
		}
	}
	st.onSignal(p.runner.Interrupt)
	st.onHangup(p.hangup.lose) // the run goes on (hangup.go)
	if st.signalled() != nil {
		return st.notStarted()
	}
	if err := p.exports.Start(p.runner.Info().Start); err != nil {
		return st.fail(exitFailure, err)
	}
	results, runErr := execute(st, p, o)
	code = finishRun(st, o, p, results, runErr)
	endMetrics(st, o, mx, metrics.LostOf(results))
	p.hangup.end(code) // attached screens get the status and the last lines
	return code
}

// openAdapter connects to the database within the adapter's open bound
// (adapters.OpenTimeout); a signal cancels the connect. It returns nil and
// the exit status when there is no database to run on.
func openAdapter(st *State, o *options) (adapters.DB, int) {
	props := adapters.Properties(o.Props)
	ctx, cancel := context.WithTimeout(st.ctx(), adapters.OpenTimeout(o.DB, props))
	db, err := adapters.Open(ctx, o.DB, props)
	cancel()
	if st.signalled() != nil {
		if db != nil {
			db.Close()
		}
		st.tell("%s: open interrupted by %s: nothing was measured", o.DB, st.signalName())
		return nil, st.signalStatus()
	}
	if err != nil {
		var ce *adapters.ConfigError
		if errors.As(err, &ce) {
			st.tell("%s", describeConfigErr(err))
			return nil, exitUsage
		}
		st.tell("%s: cannot open: %s", o.DB, output.OneLine(err))
		return nil, exitFailure
	}
	return db, exitOK
}

// buildRun builds the runner with its hooks (hooks.go) and refuses steps
// the adapter cannot take.
func buildRun(st *State, o *options, cfg *engine.Config, db adapters.DB, ycsb *output.YCSB, mx *metrics.Exporter) (*plan, int) {
	info := engine.Info{Command: o.Command, Adapter: o.DB, Workload: o.Workload, Properties: adapters.MaskProperties(o.Props),
		Meta:       engine.CollectMeta(maskArgs(o.Args)), // run metadata (runmeta.go)
		Thresholds: o.Thresholds,                         // --threshold (thresholds.go)
	}
	if d, ok := db.(adapters.Describer); ok {
		info.Target = adapters.MaskURL(d.Describe())
	}
	opts := engine.Options{Info: info}
	p := &plan{exports: newExports(o), ycsb: ycsb, player: newPlayer(st, o), search: newSearch(st, o)}
	if p.search != nil {
		p.exports.SetCapacity(p.search.Report) // the s key's save
		p.search.SetLocal(localServer(o.DB, info.Target))
	}
	runHooks(st, o, p.player, p.exports, ycsb, mx, p.search).engine(&opts)
	runner, err := engine.New(cfg, db, opts)
	if err != nil {
		var ce *adapters.ConfigError
		if errors.As(err, &ce) {
			st.tell("%s", describeConfigErr(err))
			return nil, exitUsage
		}
		st.tell("%s", output.OneLine(err))
		return nil, exitFailure
	}
	if err := checkRepartition(o, runner.Info()); err != nil {
		return nil, st.fail(exitUsage, err)
	}
	p.runner = runner
	p.player.Bind(runner)
	if p.search != nil {
		p.search.Bind(runner)
	}
	return p, exitOK
}

// checkRepartition refuses partition steps on an adapter that cannot
// change its partition count, before any operation runs.
func checkRepartition(o *options, info engine.Info) error {
	if info.CanRepartition {
		return nil
	}
	for _, s := range o.Steps {
		if s.Action == steps.Partitions {
			return usagef("%s: the %s adapter cannot change its partition count (steps it takes: threads, target, pause, resume, mark, stop)", s.Source, o.DB)
		}
	}
	return nil
}

// execute runs to the end, headless or under the live screen.
func execute(st *State, p *plan, o *options) ([]*engine.PhaseResult, error) {
	if st.Interactive {
		res, err := runScreen(st.ctx(), p, o)
		libLogNote(p.sink, st.Stderr) // [screen]
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
	res, err := p.runner.Run(st.ctx())
	<-done
	return res, err
}

// finishRun writes the report and the exports and returns the exit
// status.
func finishRun(st *State, o *options, p *plan, results []*engine.PhaseResult, runErr error) int {
	p.player.Close()
	var capacity *findmax.Report
	if p.search != nil {
		p.search.Close()
		capacity = p.search.Report()
	}
	failed := p.player.Failures()
	if st.Interactive {
		for _, f := range failed {
			st.tell("step failed: %s", f)
		}
	}
	if runErr != nil {
		st.tell("%s", output.OneLine(runErr))
	}
	p.hangup.ending(st) // the lines from here on reach the attached screens
	if len(results) == 0 {
		// Nothing ran: nothing to report, no export files.
		p.exports.Discard()
		if st.signalled() != nil {
			return st.notStarted()
		}
		if runErr != nil {
			return exitFailure
		}
		return exitOK
	}
	info := p.runner.Info()
	out, reportDone := reportOut(st, p.guard, p.hangup.report) // hangup.go
	ycsbPaths, err := p.ycsb.Write(out, results, info)         // the report, through YCSB's exporter
	if err != nil {
		st.tell("%v", err)
		runErr = err
	}
	output.WriteFailedSteps(out, failed)
	output.WriteCapacity(out, capacity) // --find-max
	base := p.exports.Baseline()
	base.WriteComment(out, results, info) // --baseline
	reportFile, err := reportDone()
	if err != nil {
		st.tell("%v", err)
		runErr = err
	} else if reportFile != "" {
		ycsbPaths = append(ycsbPaths, reportFile)
	}
	doc := output.NewSummary(results, info, base).WithFailedSteps(failed).WithCapacity(capacity)
	doc.ReportFile = reportFile
	if err := p.exports.Finish(results, info, doc); err != nil {
		st.tell("%v", err)
		runErr = err
	}
	if err := p.sink.Err(); err != nil { // --log on a full disk
		st.tell("%v", err)
		runErr = err
	}
	for _, path := range append(p.exports.Written(), ycsbPaths...) {
		st.tell("wrote %s", path)
	}
	if c := results[len(results)-1].Closing; c != nil {
		for _, n := range c.Notes { // what the closing check could not judge
			st.tell("%s", n)
		}
	}
	return runStatus(st, o, results, info, runErr, capacity)
}

// runStatus tells why the run did not do what was asked, one line each,
// and returns the status that wins (exit.go's precedence): exitFailure
// after an error, when the run's data or operations failed (failures.go)
// or a workload's closing check found a problem; the signal's after a
// signal; exitThresholds when a threshold was crossed or no rate down to
// find-max's floor meets its conditions; exitUntrusted when find-max's
// answer cannot be trusted; else exitOK.
func runStatus(st *State, o *options, results []*engine.PhaseResult, info engine.Info, runErr error, capacity *findmax.Report) int {
	codes := []int{st.signalStatus(), runFailures(st, o, results)}
	if runErr != nil {
		codes = append(codes, exitFailure)
	}
	last := results[len(results)-1]
	if last.Closing != nil && len(last.Closing.Problems) > 0 {
		for _, pr := range last.Closing.Problems {
			st.tell("%s", pr)
		}
		codes = append(codes, exitFailure)
	}
	if thresholdsCrossed(results, info, st.Stderr) { // thresholds.go
		codes = append(codes, exitThresholds)
	}
	codes = append(codes, findMaxStatus(st, capacity, exitStatus(codes...))) // findmax.go
	return exitStatus(codes...)
}
