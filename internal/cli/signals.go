package cli

import (
	"context"
	"os"
	"sync"
	"syscall"
)

// interrupts turns SIGINT, SIGTERM and SIGQUIT into the run's lifecycle:
// the first signal cancels ctx (an adapter's open, the run) and calls the
// hook set by onSignal (the runner's Interrupt); the exit status says
// which signal came. SIGHUP (the terminal was lost) stops nothing: it
// calls the hook set by onHangup (a run goes on without its terminal,
// hangup.go), or for a command that set none is remembered until one is.
// A second stop signal (SIGINT, SIGTERM or SIGQUIT after one) ends the
// process at once through force: whatever holds the first one up (a
// database that does not answer its close), a user is never left with a
// process that ignores them.
type interrupts struct {
	ctx    context.Context
	cancel context.CancelFunc
	quit   chan struct{}

	mu     sync.Mutex
	got    os.Signal
	hook   func()
	hup    bool
	hupped func() // onHangup's
	// force ends the process at once on a second stop signal (nil: the
	// second is only recorded); the State sets it (state.go).
	force func(first, second os.Signal)
}

// watchSignals acts on the signals from ch (nil: none, for tests that run
// no signals) until stop; force ends the process on a second stop signal.
func watchSignals(ch <-chan os.Signal, force func(first, second os.Signal)) *interrupts {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interrupts{ctx: ctx, cancel: cancel, quit: make(chan struct{}), force: force}
	if ch == nil {
		return in
	}
	// A signal caught while the process started is taken now, so that
	// what follows knows of it.
	for pending := true; pending; {
		select {
		case s := <-ch:
			in.take(s)
		default:
			pending = false
		}
	}
	go in.loop(ch)
	return in
}

// take records s (the first signal counts) and acts on it.
func (in *interrupts) take(s os.Signal) {
	if s == syscall.SIGHUP {
		in.mu.Lock()
		first, f := !in.hup, in.hupped
		in.hup = true
		in.mu.Unlock()
		if first && f != nil {
			f()
		}
		return
	}
	in.interrupt(s)
}

// interrupt records s (the first signal counts), cancels ctx and calls
// the hook.
func (in *interrupts) interrupt(s os.Signal) {
	in.mu.Lock()
	first := in.got
	if first == nil {
		in.got = s
	}
	hook, force := in.hook, in.force
	in.mu.Unlock()
	if first != nil && s != syscall.SIGHUP {
		if force != nil {
			force(first, s)
		}
		return
	}
	in.cancel()
	if hook != nil {
		hook()
	}
}

func (in *interrupts) loop(ch <-chan os.Signal) {
	for {
		select {
		case <-in.quit:
			return
		case s := <-ch:
			in.take(s)
		}
	}
}

// onSignal sets what a signal does from now on; if one came already, f
// runs at once.
func (in *interrupts) onSignal(f func()) {
	in.mu.Lock()
	in.hook = f
	got := in.got
	in.mu.Unlock()
	if got != nil && f != nil {
		f()
	}
}

// onHangup sets what a hangup does from now on; if one came already, f
// runs at once.
func (in *interrupts) onHangup(f func()) {
	in.mu.Lock()
	in.hupped = f
	hup := in.hup
	in.mu.Unlock()
	if hup && f != nil {
		f()
	}
}

// hungUp tells whether a SIGHUP came.
func (in *interrupts) hungUp() bool {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.hup
}

// signal is the first signal received, or nil.
func (in *interrupts) signal() os.Signal {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.got
}

// exitCode is 128 + the signal's number (130 for SIGINT, 131 for
// SIGQUIT, 143 for SIGTERM; 129 for a SIGHUP that stopped a command other
// than a run), or 0 when none came.
func (in *interrupts) exitCode() int {
	if s, ok := in.signal().(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 0
}

// name is how a message names the signal.
func (in *interrupts) name() string { return signalName(in.signal()) }

// signalName is how a message names s.
func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return "a signal"
}

// hangupStops makes a hangup stop the command as SIGTERM would (status
// 129): the commands that are not runs.
func (in *interrupts) hangupStops() {
	in.onHangup(func() { in.interrupt(syscall.SIGHUP) })
}

func (in *interrupts) stop() {
	close(in.quit)
	in.cancel()
}
