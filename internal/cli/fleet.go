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
	"benchtop/engine/steps"
	"benchtop/engine/stream"
	"benchtop/fleet"
	"benchtop/internal/output"
	"benchtop/liblog"
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
	if err := o.Exports.Check(); err != nil {
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
	// YCSB's exporter, exportfile and HDR files, written by the
	// coordinator from the merged figures as one process writes them.
	ycsb, err := output.NewYCSB(cfg)
	if err != nil {
		return st.fail(exitUsage, err)
	}
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
	player := newPlayer(st, o)
	defer player.Close()
	runHooks(st, o, player, ex, ycsb, mx).coordinator(&cc)

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
	player.Bind(c)
	// The coordinator's clock starts with Run: the exports start now.
	if err := ex.Start(time.Now()); err != nil {
		return st.fail(exitFailure, err)
	}
	if !st.Interactive {
		st.tell("%d agents ready: %s", len(eps), agentNames(c))
	}
	results, runErr := runCoordinator(st, c, o, ex)
	if runErr != nil {
		st.tell("%s", adapters.MaskSecretsIn(output.OneLine(runErr), o.Props))
	}
	player.Close()
	code := finishFleet(st, o, c, ex, ycsb, player.Failures(), results, runErr, len(eps))
	var rows *stream.RowCounts
	if v, _, ok := c.StreamVerdict(); ok {
		rows = &v.RowCounts
	}
	endMetrics(st, o, mx, rows)
	return code
}

// runCoordinator runs the fleet to its end, headless or under the live
// screen.
func runCoordinator(st *State, c *fleet.Coordinator, o *options, ex *output.Exports) ([]*engine.PhaseResult, error) {
	if st.Interactive {
		return coordinatorScreen(st.ctx(), c, o, ex)
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
// and returns the exit status: the signal's, exitIncomplete when an agent
// was lost, exitFailure on an error, an agent's problem, a failed stream
// verdict or an integrity mismatch, exitThresholds when a --threshold was
// crossed.
func finishFleet(st *State, o *options, c *fleet.Coordinator, ex *output.Exports, ycsb *output.YCSB, failed []steps.Failure,
	results []*engine.PhaseResult, runErr error, agents int) int {
	if st.Interactive {
		for _, f := range failed {
			st.tell("step failed: %s", f)
		}
	}
	info := c.Info()
	info.Thresholds = o.Thresholds                         // --threshold, judged on the merged run
	ycsbPaths, err := ycsb.Write(st.Stdout, results, info) // the report, through YCSB's exporter
	if err != nil {
		st.tell("%v", err)
		runErr = err
	}
	output.WriteFleetText(st.Stdout, c)
	output.WriteFleetStream(st.Stdout, c)
	output.WriteFailedSteps(st.Stdout, failed)
	o.Baseline.WriteComment(st.Stdout, results, info) // --baseline
	doc := output.NewSummary(results, info, o.Baseline)
	doc.FleetMembers = output.FleetOf(c)
	if err := ex.Finish(results, info, doc); err != nil {
		st.tell("%v", err)
		runErr = err
	}
	for _, p := range append(ex.Written(), ycsbPaths...) {
		st.tell("wrote %s", p)
	}
	if code := st.signalStatus(); code != 0 {
		return code
	}
	problems := c.Problems()
	for _, p := range problems {
		st.tell("agent %s", p)
	}
	if v, _, ok := c.StreamVerdict(); ok {
		for _, p := range v.Problems() {
			st.tell("fleet %s", p)
			problems = append(problems, p)
		}
	}
	if lost := c.Lost(); len(lost) > 0 {
		st.tell("incomplete run: %d of %d agents lost: %s", len(lost), agents, strings.Join(lost, ", "))
		return exitIncomplete
	}
	if runErr != nil || len(problems) > 0 {
		return exitFailure
	}
	if n := len(results); n > 0 && results[n-1].Set.Integrity > 0 {
		return exitFailure
	}
	if thresholdsCrossed(results, info, st.Stderr) { // thresholds.go
		return exitThresholds
	}
	return exitOK
}

func agentNames(c *fleet.Coordinator) string {
	var names []string
	for _, a := range c.Agents() {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}
