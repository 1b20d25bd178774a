// Package tui is benchtop's full-screen terminal interface: a bubbletea
// program that draws the engine's snapshots (throughput, latency, host,
// segments) while the run goes on and turns keys into the engine's live
// controls. It only reads snapshots and calls the engine.Controller.
//
// Files, one job each:
//
//	tui.go             the way in: Options, Run (the local screen),
//	                   NewSession (an SSH viewer's), newModel
//	model.go           the root Model's state and the values read from it
//	                   (views, values asked for and pending, cur*)
//	update.go          Init and Update: every message routed, every key
//	                   dispatched (prompt, view keys, control keys)
//	controls.go        the control setters: threads, partitions, target,
//	                   pause, mark, segment, stop, each ending in one
//	                   engine.Controller call run as a command
//	notice.go          the notice line's text and its expiry
//	layout.go          View and rebuild: the panels' arrangement and sizes
//	help.go            the help line, the `:` prompt in its place, `?`
//	status.go          the status lines: warnings, demo caption, notice,
//	                   errors, last event
//	intervalerrors.go  the last interval's errors by kind and cause, stalls
//	demo.go            a scripted demo's captions and end card
//
// Below them: components/ (one panel each, keeping common.Component:
// New, SetSize, Render, View; search is --find-max's panel, above the
// segments in the segments view, with a status line of its own in the
// main view), common (that contract, the program context and the drawing
// helpers), history (what the charts draw from), keys (the key map),
// format, fanout and serve (SSH viewers).
//
// A key press, e.g. `]`:
//
//	update.go:Update (tea.KeyMsg) -> update.go:handleKeys (one key per rune)
//	-> update.go:handleKey -> update.go:controlKey
//	-> controls.go:setPartitions (checks, pending value, rebuild)
//	-> controls.go:control -> engine.Controller.SetPartitions, in its own
//	goroutine -> controlMsg -> update.go:Update -> controls.go:controlDone.
//
// With the prompt open (`:`), handleKey goes to update.go:promptKey and,
// on Enter, update.go:apply, which calls the same setters.
//
// A Snapshot to the screen:
//
//	engine (Options.Snapshots) -> update.go:waitForSnapshot (a command)
//	-> snapshotMsg -> update.go:Update -> update.go:addSnapshot
//	(history.History.Add, pending values seen, demo steps)
//	-> layout.go:rebuild -> layout.go:mainBody (or segmentsBody, the
//	partitions panel, help.go:fullHelp, demo.go:endCard) -> each
//	component's SetSize, Render(hist) and View -> Model.frame
//	-> layout.go:View, which bubbletea draws.
//
// Files call one way only, in this order (a file calls only files after
// it): tui.go, update.go, controls.go, notice.go, layout.go, help.go,
// status.go, intervalerrors.go, demo.go, model.go. All of them use the
// Model type of model.go.
package tui
