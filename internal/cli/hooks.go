package cli

// What a run writes and calls back, made in one place for a run on this
// machine (run.go) and a fleet's coordinator (fleet.go): the steps'
// player, the exports, YCSB's HDR files, the -s status lines and the
// live metrics.

import (
	"time"

	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/fleet"
	"benchtop/internal/output"
	"benchtop/internal/output/metrics"
	"benchtop/results/findmax"
	"benchtop/results/steps"
)

// hooks are the functions a run calls with every phase, snapshot and
// interval (and, in a fleet, every agent's own interval).
type hooks struct {
	phase    []func(engine.Phase)
	snapshot []func(*engine.Snapshot)
	interval []func(engine.Phase, []string, time.Time, time.Time, *measure.Set)
	agent    []func(string, engine.Phase, []string, time.Time, time.Time, *measure.Set)
}

// runHooks are the hooks of a run: its steps' player, its exports,
// YCSB's HDR files (nil: none, as in a fleet), the live metrics (nil:
// none), the capacity search (nil: none) and, headless with -s, the
// status lines on stderr.
func runHooks(st *State, o *options, player *steps.Player, ex *output.Exports, ycsb *output.YCSB, mx *metrics.Exporter, fm *findmax.Search) hooks {
	var h hooks
	if mx != nil {
		// First: its snapshot hook adds a failing push's warning, which
		// the status lines and the screen then show.
		h.interval = append(h.interval, mx.Interval)
		h.snapshot = append(h.snapshot, mx.Snapshot)
		h.agent = append(h.agent, mx.AgentInterval)
	}
	if fm != nil {
		// Before the outputs: its snapshot hook sets the search's view
		// and the segments' best and knee, which they then write.
		h.phase = append(h.phase, fm.OnPhase)
		h.interval = append(h.interval, fm.OnInterval)
		h.snapshot = append(h.snapshot, fm.OnSnapshot)
	}
	if ycsb != nil {
		h.interval = append(h.interval, ycsb.Interval)
	}
	h.phase = append(h.phase, player.OnPhase)
	h.snapshot = append(h.snapshot, player.OnSnapshot, ex.Snapshot)
	h.interval = append(h.interval, ex.Interval)
	h.agent = append(h.agent, ex.AgentInterval)
	if o.Status && !st.Interactive {
		h.snapshot = append(h.snapshot, output.Status(st.Stderr))
	}
	return h
}

// engine adds the hooks to a local run's options.
func (h hooks) engine(opts *engine.Options) {
	opts.OnPhase = append(opts.OnPhase, h.phase...)
	opts.OnSnapshot = append(opts.OnSnapshot, h.snapshot...)
	opts.OnInterval = append(opts.OnInterval, h.interval...)
}

// coordinator adds the hooks to a fleet coordinator's configuration.
func (h hooks) coordinator(cc *fleet.CoordConfig) {
	cc.OnPhase = append(cc.OnPhase, h.phase...)
	cc.OnSnapshot = append(cc.OnSnapshot, h.snapshot...)
	cc.OnInterval = append(cc.OnInterval, h.interval...)
	cc.OnAgentInterval = append(cc.OnAgentInterval, h.agent...)
}

// newExports are the exports o asks for; with --baseline the page
// labels this run by its JSON summary's name, or "this run".
func newExports(o *options) *output.Exports {
	name := o.Exports.JSON
	if name == "" {
		name = "this run"
	}
	return output.NewExports(o.Exports, name, o.Baseline)
}

// newPlayer makes the player of the run's steps: their clock starts with
// the run phase (the load phase for load). Headless, a failed step is
// told at once; on the live screen, after it closes.
func newPlayer(st *State, o *options) *steps.Player {
	phase := engine.PhaseRun
	if o.Command == "load" {
		phase = engine.PhaseLoad
	}
	var tell func(steps.Failure)
	if !st.Interactive {
		tell = func(f steps.Failure) { st.tell("step failed: %s", f) }
	}
	return steps.NewPlayer(o.Steps, phase, tell)
}
