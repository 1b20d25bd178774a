// Package output writes every file a run writes, and reads back the ones
// a later command takes (--baseline, benchtop report). It takes typed
// paths and names and returns plain errors that name the flag or property
// and the path; internal/cli decides which are bad input (exit status 2)
// and which are failures. results/report formats the figures, htmlreport
// draws the page; this package puts them into files.
//
// Where things live:
//
//   - paths.go: Paths, the export files asked for (--json, --timeseries,
//     --hdr-log, --html), checked before the database is touched.
//   - guard.go: Guard, the rules of every output: a regular file, never
//     through a link, never an input or another output (by file
//     identity), standard output ("-") for one of them.
//   - files.go: CheckWritable, and files written whole: into a temporary
//     file beside the final name, renamed at the end (WriteFile: or to
//     standard output, in place).
//   - exports.go: Exports, the run's hooks that stream the time series,
//     the HDR interval log and the page's recording, and Finish, which
//     puts every export under its name.
//   - summary.go: Summary, the JSON summary document: results/report's
//     summary, the workload's closing section under its key, and typed
//     members for failed steps, the baseline and a fleet.
//   - html.go: the live --html page, made from htmlreport's Recorder.
//   - ycsb.go: YCSB's exporter (exportfile) and HDR files
//     (hdrhistogram.fileoutput).
//   - status.go: YCSB's -s status lines.
//   - text.go: the text report's failed-step lines.
//   - fleet.go: a fleet's lines after the merged report and its members
//     of the JSON summary ("agents", "fleet").
//   - baseline.go: the --baseline reader, its JSON member and its
//     "# baseline:" line.
//   - read.go: ReadRun, a run's exports read back for benchtop report.
//   - save.go: the s key's report so far, saved into the current folder.
//   - reportfile.go: the text report of a run whose terminal was lost.
//   - errors.go: OneLine and PathCause, how every message reads an error.
package output
