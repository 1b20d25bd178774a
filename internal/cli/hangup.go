package cli

// A run survives its terminal. On SIGHUP (a dropped SSH session, a
// closed terminal window) the live screen lets go of the terminal and the
// run goes on: it ends as it would have (its duration, operation count or
// maxexecutiontime) or, with no end, when a terminal attached to it
// (benchtop attach) quits it, or on SIGTERM; its exit status is its own.
// What would have gone to the lost terminal goes elsewhere: benchtop's
// lines to --log (or nowhere), the text report to a file beside the
// exports (output.ReportPath), named in the JSON summary and in
// `benchtop attach --list`.

import (
	"bytes"
	"fmt"
	"io"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"benchtop/engine"
	"benchtop/internal/output"
	"benchtop/liblog"
	"benchtop/results/steps"
	"benchtop/tui/attach"
)

// loseTerminal points benchtop's lines away from the lost terminal: to
// log (--log, or nowhere). A write to a pipe whose reader went with the
// session (benchtop ... | tee) fails from now on instead of killing the
// process (SIGPIPE).
func (st *State) loseTerminal(log *liblog.Sink) {
	signal.Ignore(syscall.SIGPIPE)
	if !st.stderrTTY {
		return
	}
	if log == nil {
		st.stderr.set(io.Discard)
		return
	}
	st.stderr.set(log)
}

// loseFD2 points the process's file descriptor 2, which libraries write
// to, at log too when it was the lost terminal; never restored.
func (st *State) loseFD2(log *liblog.Sink) {
	if st.stderrTTY && log != nil {
		_, _ = log.CaptureStderr()
	}
}

// hangup is what a lost terminal does to a run, and the run's attach
// socket (benchtop attach), which is told.
type hangup struct {
	once   sync.Once
	screen chan struct{} // closed: the live screen lets go (tui.Options.Hangup)
	// report is where the text report goes if standard output was the
	// lost terminal.
	report string
	// lose is the handler: streams away from the terminal, the screen
	// let go, the attach socket told (its list shows the report's path).
	// The screen calls it too when the terminal fails before the signal
	// comes, and then afterScreen, once it has let go of the terminal.
	lose, afterScreen func()

	mu   sync.Mutex
	lost bool
	srv  *attach.Server // nil without
	// detached is what the socket says once the terminal is lost.
	detached string
	// started is the run's start, for the line that says how long it
	// had run when its terminal went; endless, that it will not end by
	// itself (runsUntilStopped); now is the clock.
	started time.Time
	endless bool
	now     func() time.Time
}

// newHangup prepares a run for the loss of its terminal: what goes to
// stderr goes to log (--log; nil: nowhere) from then on; report is the
// text report's path; screen: the run is on the live screen, which holds
// file descriptor 2 while it is up.
func newHangup(st *State, log *liblog.Sink, report string, screen bool) *hangup {
	h := &hangup{screen: make(chan struct{}), report: report, started: time.Now(), now: time.Now}
	if st.stdoutTTY {
		h.detached = report
	}
	h.afterScreen = func() { st.loseFD2(log) }
	h.lose = func() {
		h.once.Do(func() {
			st.loseTerminal(log)
			if !screen {
				st.loseFD2(log)
			}
			st.tell("%s", h.lostLine()) // to --log now, or nowhere
			close(h.screen)
			h.mu.Lock()
			h.lost = true
			srv := h.srv
			h.mu.Unlock()
			if srv != nil {
				srv.Detached(h.detached)
			}
		})
	}
	return h
}

// lostLine is the line said when the terminal goes: how long the run had
// run, and whether it will end by itself.
func (h *hangup) lostLine() string {
	line := fmt.Sprintf("terminal lost %s into the run; the run goes on", ranFor(h.now().Sub(h.started)))
	if h.endless {
		return line + " until stopped (" + noEndReason + "): benchtop attach, then q, or SIGTERM"
	}
	return line + " to its end"
}

// listen takes the run's attach socket (nil: none).
func (h *hangup) listen(srv *attach.Server) {
	h.mu.Lock()
	h.srv = srv
	lost := h.lost
	h.mu.Unlock()
	if lost && srv != nil {
		srv.Detached(h.detached)
	}
}

// ending says the run writes its report: the lines told from now on
// reach the attached screens.
func (h *hangup) ending(st *State) {
	h.mu.Lock()
	srv := h.srv
	h.mu.Unlock()
	if srv != nil {
		srv.Ending()
		st.stderr.copyTo(srv)
	}
}

// end gives the attached screens the exit status and closes the socket.
func (h *hangup) end(code int) {
	h.mu.Lock()
	srv := h.srv
	h.mu.Unlock()
	srv.Close(code) // nil: nothing
}

// reportTo is where a run's text report may go: the Guard that checks
// it, and the file for a lost terminal.
type reportTo struct {
	guard *output.Guard
	path  string
}

// reportOut is where the text report goes: once the terminal that was
// standard output is lost, the report file; else reportWriter's (files.go).
// done puts the report in place and returns the file it went to ("" for
// a stream).
//
// A report for a terminal is kept until done and then written at once:
// the terminal may go between the check and the writes (its SIGHUP comes
// a moment after its writes start failing with EIO, and on a loaded
// machine the report is written in that moment), and then the report
// goes to the file as if the signal had come first, never lost with an
// error.
func reportOut(st *State, g *output.Guard, reportPath string) (w io.Writer, done func() (file string, err error)) {
	if st.hungUp() && st.stdoutTTY {
		return reportFile(g, reportPath, nil)
	}
	out := reportWriter(st, g)
	if !(out == st.Stdout && st.stdoutTTY) {
		return out, func() (string, error) { return "", nil }
	}
	var buf bytes.Buffer
	return &buf, func() (string, error) {
		if _, err := out.Write(buf.Bytes()); err == nil {
			return "", nil
		}
		_, done := reportFile(g, reportPath, buf.Bytes()) // the terminal went
		return done()
	}
}

// reportFile writes the text report to path (after text, when given).
func reportFile(g *output.Guard, path string, text []byte) (io.Writer, func() (string, error)) {
	rf, err := output.CreateReport(path, g)
	if err != nil {
		return io.Discard, func() (string, error) { return "", err }
	}
	if _, err := rf.Write(text); err != nil {
		return io.Discard, func() (string, error) { return "", fmt.Errorf("the report %s: %w", path, err) }
	}
	return rf, func() (string, error) {
		if err := rf.Close(); err != nil {
			return "", err
		}
		return rf.Path, nil
	}
}

// noEndReason is why a run will not end by itself.
const noEndReason = "no operationcount, --duration or maxexecutiontime"

// runsUntilStopped reports whether the run will not end by itself: a run
// phase with no operation count and no time limit, and no --find-max
// search, demo, --sweep or --at stop step to end it. Only q (its own
// screen's or an attached one's) or a signal ends it.
func runsUntilStopped(o *options, cfg *engine.Config) bool {
	if cfg.Command != "run" || cfg.OperationCount > 0 || cfg.MaxExecutionTime > 0 || o.FindMax.spec != nil || o.Demo != nil {
		return false
	}
	return !slices.ContainsFunc(o.Steps, func(s steps.Step) bool { return s.Action == steps.Stop })
}

// joinNotes is the screen's opening notes, one after the other.
func joinNotes(note, more string) string {
	if note == "" {
		return more
	}
	return note + " · " + more
}
