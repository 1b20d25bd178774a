package main

import (
	"context"

	"benchtop/engine"
	"benchtop/tui"
)

// runInteractive runs the engine under the live screen and returns the
// results once the user quit and the terminal is restored.
func runInteractive(ctx context.Context, r *engine.Runner, o *cliOptions) ([]*engine.PhaseResult, error) {
	type out struct {
		res []*engine.PhaseResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := r.Run(ctx)
		done <- out{res, err}
	}()
	uiErr := tui.Run(ctx, tui.Options{
		Info:       r.Info(),
		Snapshots:  r.Snapshots(),
		Control:    r,
		Theme:      o.Theme,
		SaveReport: func() (string, error) { return saveNow(r) },
		Interval:   0,
	})
	r.Stop()
	res := <-done
	if uiErr != nil && res.err == nil {
		res.err = uiErr
	}
	return res.res, res.err
}
