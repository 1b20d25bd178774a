package cli

// benchtop attach: a running live screen taken up again from another
// terminal (tui/attach), as tmux attach does; the main case is a run
// whose own terminal was lost (hangup.go).

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"benchtop/internal/output"
	"benchtop/tui/attach"
)

const attachUsage = `Usage:
  benchtop attach --list     this user's runs on this machine
  benchtop attach [ID]       take up run ID's live screen (the only run, without ID)

Every run on the live screen can be attached to, by the user who started
it: the attached terminal gets the same run's screen and every key; d
detaches it (the run goes on), q stops the run as on its own screen. A
run whose terminal was lost (a dropped SSH session) goes on without it
until it ends, or until an attached terminal quits it, or SIGTERM.`

// attachCommand is `benchtop attach`: exit status 0 after a detach, the
// run's own exit status when it ended while attached, 1 when the run
// could not be reached, 2 for bad input (an unknown ID).
func attachCommand(st *State, args []string) int {
	list, id := false, 0
	for _, a := range args {
		switch {
		case a == "--list" || a == "-list" || a == "-l":
			list = true
		case a == "--help" || a == "-h" || a == "-help":
			fmt.Fprintln(st.Stdout, attachUsage)
			return exitOK
		case !strings.HasPrefix(a, "-") && id == 0:
			n, err := strconv.Atoi(a)
			if err != nil || n <= 0 {
				return st.fail(exitUsage, usagef("attach: %q: expected a run's ID (benchtop attach --list shows them)", a))
			}
			id = n
		default:
			return st.fail(exitUsage, usagef("attach: unexpected argument %q (benchtop attach [--list | ID])", a))
		}
	}
	if list && id != 0 {
		return st.fail(exitUsage, usagef("attach: --list takes no ID"))
	}
	dir, err := attach.Dir()
	if err != nil {
		return st.fail(exitFailure, fmt.Errorf("attach: %w", err))
	}
	runs, err := attach.List(dir)
	if err != nil {
		return st.fail(exitFailure, fmt.Errorf("attach: %w", err))
	}
	if list {
		writeRuns(st.Stdout, runs)
		return exitOK
	}
	if id == 0 {
		switch len(runs) {
		case 0:
			return st.fail(exitFailure, errors.New("attach: no run of yours on this machine to attach to"))
		case 1:
			id = runs[0].ID
		default:
			writeRuns(st.Stderr, runs)
			return st.fail(exitUsage, usagef("attach: %d runs: say which (benchtop attach ID)", len(runs)))
		}
	}
	f, ok1 := st.Stdin.(*os.File)
	g, ok2 := st.Stdout.(*os.File)
	if !ok1 || !ok2 || !st.Terminal {
		return st.fail(exitUsage, usagef("attach: needs a terminal (standard input and output); benchtop attach --list works anywhere"))
	}
	end, err := attach.Attach(st.ctx(), dir, id, f, g)
	switch {
	case errors.Is(err, attach.ErrNoRun):
		return st.fail(exitUsage, usagef("attach: no run %d of yours on this machine (benchtop attach --list)", id))
	case err != nil && st.signalled() != nil:
		return st.signalStatus()
	case err != nil:
		return st.fail(exitFailure, fmt.Errorf("attach: %s", output.OneLine(err)))
	}
	for _, l := range end.Lines {
		fmt.Fprintln(st.Stderr, l)
	}
	st.tell("%s", end.Message)
	if end.Reason == "ended" {
		return end.Status
	}
	return exitOK
}

// writeRuns lists runs, one a line under a header.
func writeRuns(w io.Writer, runs []attach.RunInfo) {
	if len(runs) == 0 {
		fmt.Fprintln(w, "no run of yours on this machine")
		return
	}
	writeRunsAt(w, runs, time.Now())
}

// writeRunsAt is writeRuns at the time now (the RUNNING column: how long
// each run has run).
func writeRunsAt(w io.Writer, runs []attach.RunInfo, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTARTED\tRUNNING\tSTATE\tRUN\tREPORT")
	for _, r := range runs {
		state := r.State
		if r.Attached > 0 {
			state += fmt.Sprintf(", %d attached", r.Attached)
		}
		report := r.Report
		if report == "" {
			report = "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s %s %s\t%s\n", r.ID, r.Started.Local().Format(time.DateTime), ranFor(now.Sub(r.Started)), state,
			r.Command, r.Adapter, r.Workload, report)
	}
	tw.Flush()
}

// ranFor is how long a run has run, to the second: 45s, 12m03s, 2h05m09s.
func ranFor(d time.Duration) string {
	d = max(d, 0).Round(time.Second)
	h, m, sec := int(d/time.Hour), int(d%time.Hour/time.Minute), int(d%time.Minute/time.Second)
	switch {
	case h > 0:
		return fmt.Sprintf("%dh%02dm%02ds", h, m, sec)
	case m > 0:
		return fmt.Sprintf("%dm%02ds", m, sec)
	}
	return fmt.Sprintf("%ds", sec)
}
