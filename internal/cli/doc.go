// Package cli is benchtop's command line: main (the repository's root)
// catches the signals, links in the adapters and workloads and calls
// Main, which finds the command, runs it and returns the exit status.
// Every command takes one State (state.go): the command line, the
// standard streams, whether the live screen may open, the signals and the
// exit status they give. Every file a run writes is internal/output's.
//
// Where things live:
//
//   - root.go: Main, the table of subcommands (name, help line, handler)
//     and the small ones (help, version, list); a run's command line is
//     parsed there and handed to run.go or fleet.go.
//   - state.go: State; signals.go: SIGINT, SIGTERM and SIGQUIT as the
//     run's lifecycle, SIGHUP handed to hangup.go, where a run goes on
//     without its terminal; exit.go: the exit statuses; errors.go: usage
//     errors.
//   - files.go: every file a run reads and writes, checked together
//     before the database (internal/output's Guard).
//   - parse.go: a run's command line (command, database, flags) into
//     options (options.go), in one pass over the flags of flags.go; the
//     coordinator's flags are in fleetflags.go, the live screen's in
//     screenflags.go; props.go assembles the properties and words their
//     errors; thresholds.go is --duration and --threshold; usage.go the
//     help's text.
//   - run.go: a run on this machine: open the adapter, build, run, write
//     the report, decide the exit status.
//   - fleet.go: a fleet's coordinator (run|load --agents ...); agent.go:
//     benchtop agent.
//   - hooks.go: what a run writes and calls back (steps' player, exports,
//     YCSB's HDR files, status lines), made in one place for both.
//   - screen.go: the live screen, its SSH viewers, library logging and
//     the baseline as the screen draws it.
//   - report.go: benchtop report, saved exports rendered as HTML.
//   - attach.go: benchtop attach, a run's live screen taken up again
//     (tui/attach).
//   - runmeta.go: the command line with its secrets masked, for the
//     run's metadata.
//
// The files depend on each other one way: root.go on the commands, the
// commands on parse.go, hooks.go and state.go, those on options.go and
// errors.go.
package cli
