// Package sigfirst catches SIGINT, SIGTERM, SIGQUIT and SIGHUP from the
// first moments of the process, so that a signal that arrives while the
// program starts (package initialisation takes about 10 ms, much more on
// a loaded machine) is kept for main to act on instead of killing the
// process without a report (or, for SIGHUP, instead of losing a run whose
// terminal went away).
//
// Its init runs before the heavier packages' (it imports only the
// standard library, and Go initialises packages whose imports are ready
// in import-path order). Only package main imports it: this is the one
// process-wide signal channel.
package sigfirst

import (
	"os"
	"os/signal"
	"syscall"
)

var caught = make(chan os.Signal, 8)

func init() {
	signal.Notify(caught, syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP)
}

// C is the channel of the signals caught since the process started.
func C() <-chan os.Signal { return caught }
