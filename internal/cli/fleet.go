package cli

// A fleet run: benchtop run|load ... --agents ... (or --ssh) is the
// coordinator of agents (benchtop agent, agent.go) that run the workload
// on their machines; their intervals merge into one live run.

import (
	"errors"
	"io"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/fleet"
	"benchtop/internal/output"
	"benchtop/liblog"
	"benchtop/results/findmax"
	"benchtop/results/steps"
)

// fleetRun validates the configuration as a local run does, coordinates
// the agents and returns the exit status: exitOK, exitFailure (an error,
// an agent's problem), exitUsage (bad input), exitIncomplete (an agent
// was lost), or the signal's.
func fleetRun(st *State, o *options) int {
	// Names every agent must share (one Kafka topic and group) are picked
	// here, once, before the run is validated and hashed.
	o.Props = fleet.SharedProps(o.DB, o.Props)
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
	// Every output (YCSB's exportfile and HDR files too: the coordinator
	// writes them from the merged figures as one process does) is checked
	// before the agents are reached (files.go).
	guard, ycsb, err := checkRunFiles(st, o, cfg)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	if o.Screen.ServeSSH != "" {
		// Not silently dropped: a coordinator has no SSH viewers yet.
		return st.fail(exitUsage, usagef("--serve-ssh: not with --agents, --agents-file or --ssh (a fleet's coordinator serves no SSH viewers yet): watch the coordinator's own screen, e.g. in tmux"))
	}
	// [screen] Library logging never reaches the terminal (--log FILE).
	sink, err := liblog.Open(o.Screen.Log)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	defer sink.Close()
	sink.Mask(adapters.SecretValues(o.Props))
	token, err := fleet.LoadToken(o.Fleet.TokenFile)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	logw := st.Stderr
	if st.Interactive {
		// The screen owns the terminal; agents' lines would tear it.
		logw = io.Discard
	}
	eps, err := o.Fleet.endpoints(logw)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	mx, err := startMetrics(st, o, true) // --metrics, --metrics-push (metrics.go)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	defer closeMetrics(mx)
	cc := fleet.CoordConfig{Config: cfg, Props: o.Props, Label: o.Workload, Token: token, Agents: eps, Log: logw,
		Meta: engine.CollectMeta(maskArgs(o.Args))}
	ex := newExports(o)
	ex.SetStdout(st.Stdout, guard)
	player := newPlayer(st, o)
	defer player.Close()
	search := newSearch(st, o) // --find-max, nil without
	if search != nil {
		defer search.Close()
		ex.SetCapacity(search.Report) // the s key's save
	}
	runHooks(st, o, player, ex, ycsb, mx, search).coordinator(&cc)

	c, err := fleet.Connect(st.ctx(), cc)
	if err != nil {
		if st.signalled() != nil {
			return st.notStarted()
		}
		var ce *adapters.ConfigError
		if errors.As(err, &ce) {
			st.tell("%s", describeConfigErr(err))
			return exitUsage
		}
		st.tell("%s", adapters.MaskSecretsIn(output.OneLine(err), o.Props))
		var re *fleet.RefusedError
		if errors.As(err, &re) && re.BadInput {
			return exitUsage // an agent refused the run's input (its memory...)
		}
		return exitFailure
	}
	st.onSignal(c.Interrupt)
	lt := newHangup(st, sink, output.ReportPath(o.Exports, cfg.Output.ExportFile, time.Now()), st.Interactive) // the run goes on (hangup.go)
	st.onHangup(lt.lose)
	lt.started, lt.endless = time.Now(), runsUntilStopped(o, cfg) // said first (hangup.go)
	if lt.endless && !st.Interactive {
		st.tell("runs until stopped: %s (SIGINT or SIGTERM ends it)", noEndReason)
	}
	player.Bind(c)
	if search != nil {
		search.Bind(c) // the fleet's target divided among the agents, as the t key's
	}
	for _, n := range o.Notes { // the run is accepted: what it was taken to mean
		st.tell("%s", n)
	}
	// The coordinator's clock starts with Run: the exports start now.
	if err := ex.Start(time.Now()); err != nil {
		return st.fail(exitFailure, err)
	}
	if !st.Interactive {
		st.tell("%d agents ready: %s", len(eps), agentNames(c))
	}
	results, runErr := runCoordinator(st, c, o, ex, lt)
	if runErr != nil {
		st.tell("%s", adapters.MaskSecretsIn(output.OneLine(runErr), o.Props))
	}
	player.Close()
	var capacity *findmax.Report
	if search != nil {
		search.Close()
		capacity = search.Report()
	}
	lt.ending(st)
	code := finishFleet(st, o, c, ex, ycsb, reportTo{guard, lt.report}, player.Failures(), capacity, results, runErr, len(eps))
	var lost *int64
	if v, ok := c.Verdict(); ok {
		n := v.Lost()
		lost = &n
	}
	endMetrics(st, o, mx, lost)
	lt.end(code)
	return code
}

// runCoordinator runs the fleet to its end, headless or under the live
// screen.
func runCoordinator(st *State, c *fleet.Coordinator, o *options, ex *output.Exports, lt *hangup) ([]*engine.PhaseResult, error) {
	if st.Interactive {
		return coordinatorScreen(st.ctx(), c, o, ex, lt)
	}
	drained := make(chan struct{})
	go func() {
		for range c.Snapshots() {
		}
		close(drained)
	}()
	res, err := c.Run(st.ctx())
	<-drained
	return res, err
}

// finishFleet writes the fleet's report and exports once the run is over
// and returns the exit status, as a run of one process does (runStatus),
// with exitIncomplete when an agent was lost and exitFailure on an
// agent's problem or a failed stream verdict; find-max's outcome gives
// exitThresholds (no rate down to its floor) or exitUntrusted. rt is
// where the text report goes when the terminal is lost.
func finishFleet(st *State, o *options, c *fleet.Coordinator, ex *output.Exports, ycsb *output.YCSB, rt reportTo, failed []steps.Failure,
	capacity *findmax.Report, results []*engine.PhaseResult, runErr error, agents int) int {
	if st.Interactive {
		for _, f := range failed {
			st.tell("step failed: %s", f)
		}
	}
	info := c.Info()
	info.Thresholds = o.Thresholds                      // --threshold, judged on the merged run
	out, reportDone := reportOut(st, rt.guard, rt.path) // hangup.go
	ycsbPaths, err := ycsb.Write(out, results, info)    // the report, through YCSB's exporter
	if err != nil {
		st.tell("%v", err)
		runErr = err
	}
	output.WriteFleetText(out, c)
	output.WriteFleetVerdict(out, c)
	output.WriteFailedSteps(out, failed)
	output.WriteCapacity(out, capacity)         // --find-max
	o.Baseline.WriteComment(out, results, info) // --baseline
	reportFile, err := reportDone()
	if err != nil {
		st.tell("%v", err)
		runErr = err
	} else if reportFile != "" {
		ycsbPaths = append(ycsbPaths, reportFile)
	}
	doc := output.NewSummary(results, info, o.Baseline).WithCapacity(capacity)
	doc.ReportFile = reportFile
	doc.FleetMembers = output.FleetOf(c)
	if err := ex.Finish(results, info, doc); err != nil {
		st.tell("%v", err)
		runErr = err
	}
	for _, p := range append(ex.Written(), ycsbPaths...) {
		st.tell("wrote %s", p)
	}
	// Every reason is told, and the status that wins is returned
	// (exit.go's precedence).
	codes := []int{st.signalStatus(), runFailures(st, o, results)}
	problems := c.Problems()
	for _, p := range problems {
		st.tell("agent %s", p)
	}
	if v, ok := c.Verdict(); ok {
		for _, p := range v.Problems() {
			st.tell("fleet %s", p)
			problems = append(problems, p)
		}
	}
	if lost := c.Lost(); len(lost) > 0 {
		st.tell("incomplete run: %d of %d agents lost: %s", len(lost), agents, strings.Join(lost, ", "))
		codes = append(codes, exitIncomplete)
	}
	if runErr != nil || len(problems) > 0 {
		codes = append(codes, exitFailure)
	}
	if len(results) > 0 && thresholdsCrossed(results, info, st.Stderr) { // thresholds.go
		codes = append(codes, exitThresholds)
	}
	codes = append(codes, findMaxStatus(st, capacity, exitStatus(codes...))) // findmax.go
	return exitStatus(codes...)
}

func agentNames(c *fleet.Coordinator) string {
	var names []string
	for _, a := range c.Agents() {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}
