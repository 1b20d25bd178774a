package cli

import (
	"context"
	"os"
	"sync"
	"syscall"
)

// interrupts turns SIGINT and SIGTERM into the run's lifecycle: the first
// signal cancels ctx (an adapter's open, the run) and calls the hook set
// by onSignal (the runner's Interrupt); the exit status says which signal
// came.
type interrupts struct {
	ctx    context.Context
	cancel context.CancelFunc
	quit   chan struct{}

	mu   sync.Mutex
	got  os.Signal
	hook func()
}

// watchSignals acts on the signals from ch (nil: none, for tests that run
// no signals) until stop.
func watchSignals(ch <-chan os.Signal) *interrupts {
	ctx, cancel := context.WithCancel(context.Background())
	in := &interrupts{ctx: ctx, cancel: cancel, quit: make(chan struct{})}
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
	in.mu.Lock()
	if in.got == nil {
		in.got = s
	}
	hook := in.hook
	in.mu.Unlock()
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

// signal is the first signal received, or nil.
func (in *interrupts) signal() os.Signal {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.got
}

// exitCode is 128 + the signal's number (130 for SIGINT, 131 for
// SIGQUIT when it is caught, 143 for SIGTERM), or 0 when none came.
func (in *interrupts) exitCode() int {
	switch in.signal() {
	case syscall.SIGINT:
		return 130
	case syscall.SIGQUIT:
		return 131
	case syscall.SIGTERM:
		return 143
	}
	return 0
}

// name is how a message names the signal.
func (in *interrupts) name() string {
	switch in.signal() {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return "a signal"
}

func (in *interrupts) stop() {
	close(in.quit)
	in.cancel()
}
