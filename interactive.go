package main

import (
	"context"

	"benchtop/engine"
	"benchtop/liblog"
	"benchtop/tui"
)

// runInteractive runs the engine under the live screen and returns the
// results once the user quit and the terminal is restored.
func runInteractive(ctx context.Context, r *engine.Runner, o *cliOptions, outs *exports, vw *viewers, note string, sink *liblog.Sink) ([]*engine.PhaseResult, error) {
	type out struct {
		res []*engine.PhaseResult
		err error
	}
	done := make(chan out, 1)
	sub, backlog := vw.b.Subscribe(64) // [screen] before the run starts
	defer sub.Close()
	go func() {
		res, err := r.Run(ctx)
		done <- out{res, err}
	}()
	// [screen] While the screen is up, nothing but it writes to the
	// terminal: standard error goes to --log FILE (or nowhere).
	restore, err := sink.CaptureStderr()
	if err != nil {
		restore = func() {}
	}
	uiErr := tui.Run(ctx, tui.Options{
		Info:       r.Info(),
		Snapshots:  sub.C(),
		Backlog:    backlog,
		Control:    r,
		Theme:      o.Theme,
		SaveReport: func() (string, error) { return saveNow(r, outs) },
		Interval:   r.Interval(),
		Viewers:    vw.count(),
		Notice:     note,
		Demo:       demoCaptions(o),
		Baseline:   o.Baseline.screen(), // --baseline (baseline.go)
	})
	restore()
	r.Stop()
	res := <-done
	if uiErr != nil && res.err == nil {
		res.err = uiErr
	}
	return res.res, res.err
}
