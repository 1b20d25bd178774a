package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/term"

	"benchtop/adapters"
)

// State is what every command shares, made once by Main (as k6's
// cmd/state.GlobalState is): the command line, the standard streams,
// whether the live screen may open, and the signals with the exit status
// they give. Commands take it instead of passing the streams around.
type State struct {
	// Args is the command line as given (without the program's name),
	// for the run's metadata.
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr serialises the goroutines that report on it (status lines,
	// failed steps, the end of the run).
	Stderr io.Writer
	// Terminal: standard input and output are a terminal, so a run may
	// open the live screen.
	Terminal bool
	// Interactive: this run is on the live screen (a terminal and not
	// --headless); set by the run commands once their flags are read.
	Interactive bool

	signals *interrupts
	// stderr is Stderr, which a lost terminal (hangup.go) points
	// elsewhere; stdoutTTY and stderrTTY say which streams a hangup
	// takes away.
	stderr               *lockedWriter
	stdoutTTY, stderrTTY bool
}

// newState starts watching sigs (nil: none) at once, before any file is
// read: a signal from then on interrupts whatever stage the command is
// in.
func newState(args []string, stdin io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) *State {
	lw := &lockedWriter{w: stderr}
	st := &State{Args: args, Stdin: stdin, Stdout: stdout, Stderr: lw, stderr: lw,
		Terminal: isTerminal(stdin) && isTerminal(stdout), stdoutTTY: isTerminal(stdout), stderrTTY: isTerminal(stderr)}
	st.signals = watchSignals(sigs, func(first, second os.Signal) { st.forceExit(first, second, os.Exit) })
	return st
}

// forceExit ends the process on a second stop signal, saying so, with
// the first signal's status: what the first one was doing (the report,
// the exports) is not waited for.
func (st *State) forceExit(first, second os.Signal, exit func(int)) {
	code := 128
	if s, ok := first.(syscall.Signal); ok {
		code += int(s)
	}
	st.tell("%s after %s: exiting now without waiting for the report and exports (exit status %d)", signalName(second), signalName(first), code)
	exit(code)
}

func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// close stops watching the signals.
func (st *State) close() { st.signals.stop() }

// tell writes one line on stderr: "benchtop: " and the message.
func (st *State) tell(format string, a ...any) {
	fmt.Fprintf(st.Stderr, "benchtop: "+format+"\n", a...)
}

// fail tells err and returns the exit status code.
func (st *State) fail(code int, err error) int {
	st.tell("%v", err)
	return code
}

// ctx is cancelled by the first signal: an adapter's open, the run.
func (st *State) ctx() context.Context { return st.signals.ctx }

// signalled is the first signal received, or nil.
func (st *State) signalled() os.Signal { return st.signals.signal() }

// onSignal sets what a signal does from now on (the run's Interrupt); if
// one came already, f runs at once.
func (st *State) onSignal(f func()) { st.signals.onSignal(f) }

// signalName is how a message names the signal received.
func (st *State) signalName() string { return st.signals.name() }

// signalStatus is the exit status a signal gives (130 for SIGINT, 143
// for SIGTERM), or 0 when none came.
func (st *State) signalStatus() int { return st.signals.exitCode() }

// onHangup sets what a hangup (SIGHUP) does from now on; if one came
// already, f runs at once. Until a command sets it, a hangup is only
// remembered.
func (st *State) onHangup(f func()) { st.signals.onHangup(f) }

// hungUp tells whether the terminal was lost (SIGHUP).
func (st *State) hungUp() bool { return st.signals.hungUp() }

// notStarted tells a signal that came before the run started and returns
// its exit status.
func (st *State) notStarted() int {
	st.tell("interrupted by %s before the run started: nothing was measured", st.signalName())
	return st.signalStatus()
}

// hideSecrets makes every later line on stderr lose the secrets props
// hold (adapters.SecretValues): the last guard, whatever a library puts
// into an error.
func (st *State) hideSecrets(props map[string]string) {
	if lw, ok := st.Stderr.(*lockedWriter); ok {
		lw.mu.Lock()
		lw.secrets = adapters.SecretValues(props)
		lw.mu.Unlock()
	}
}

// lockedWriter serialises writes, masks the secrets it was given and,
// when set, sends a copy of what it writes elsewhere (the attached
// screens, hangup.go).
type lockedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	secrets []string
	also    io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := p
	if len(l.secrets) > 0 {
		s := string(p)
		for _, v := range l.secrets {
			s = strings.ReplaceAll(s, v, "****")
		}
		out = []byte(s)
	}
	if l.also != nil {
		l.also.Write(out)
	}
	if _, err := l.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// set points the writer at w from now on.
func (l *lockedWriter) set(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.w = w
}

// copyTo sends a copy of every write to w from now on (nil: none).
func (l *lockedWriter) copyTo(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.also = w
}
