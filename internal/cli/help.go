package cli

// The help, written from the tables: the commands (root.go) and, for
// each flag of load, run and demo (flags.go), its group, its argument and
// one line (flagHelp). A flag parsed but not in flagHelp fails
// TestHelpListsEveryFlagAndCommand; so does a command missing from the
// help.

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"benchtop/adapters"
)

// flagGroups are the help's groups of flags, in order.
var flagGroups = []struct{ id, title string }{
	{"run", "Run control"},
	{"outputs", "Outputs"},
	{"live", "Live changes"},
	{"findmax", "Find-max (the capacity search: docs/find-max.md)"},
	{"fleet", "Fleet (run or load from many client machines, each running benchtop agent)"},
	{"metrics", "Metrics (Prometheus: docs/metrics.md)"},
	{"screen", "Screen (the live screen and its viewers)"},
}

// flagDoc is one flag in the help: its group, its argument as shown
// ("" for none) and what it does.
type flagDoc struct {
	group, arg, text string
}

// flagHelp is every flag of load, run and demo; the YCSB ones (and -db)
// are shown with one dash, as ./bin/ycsb takes them, the others with two
// (each takes either).
var flagHelp = map[string]flagDoc{
	"P":         {"run", "FILE", "property file (repeatable; later files win)"},
	"p":         {"run", "key=value", "property (repeatable; later wins; beats -P)"},
	"threads":   {"run", "N", "client threads (threadcount); in a fleet, per agent"},
	"target":    {"run", "N", "total target ops/s (0 = unlimited)"},
	"db":        {"run", "NAME", "the adapter, as YCSB's -db (same as the DATABASE argument)"},
	"duration":  {"run", "D", "run for D (e.g. 60s, 10m) with no operation limit"},
	"threshold": {"run", "EXPR", "pass/fail, e.g. 'READ.p99<10ms' (repeatable); crossed: exit status 99"},
	"headless":  {"run", "", "plain output even on a terminal"},
	"s":         {"run", "", "status line every interval on stderr"},
	"h":         {"run", "", "this help"},
	"help":      {"run", "", ""},

	"json":       {"outputs", "FILE", "JSON summary (segments, operations, phases); - is standard output"},
	"timeseries": {"outputs", "FILE", "CSV, one row per interval"},
	"hdr-log":    {"outputs", "FILE", "HdrHistogram interval log"},
	"html":       {"outputs", "FILE", "the report to hand over: one self-contained HTML page"},
	"baseline": {"outputs", "FILE", "an earlier run to compare with: its --json summary, and again its\n" +
		"--timeseries CSV or --hdr-log for its throughput per interval"},
	"log": {"outputs", "FILE", "library logging (never on the terminal; discarded without it)"},

	"at": {"live", "OFFSET:key=value", "scheduled live change: threads, partitions, target, pause, resume,\n" +
		"mark, stop; e.g. --at 5s:threads=16 --at 10s:partitions=8"},
	"sweep": {"live", "key=v1,v2,...", "a staircase of --at steps, one segment per value (threads,\npartitions, target)"},
	"step":  {"live", "D", "time per sweep value (default 10s; at least 5 status intervals)"},

	"find-max":           {"findmax", "EXPR", "find the highest rate that meets EXPR, e.g. 'READ.p99<10ms' (repeatable)"},
	"find-max-time":      {"findmax", "D", "the search's budget (default 10m)"},
	"find-max-min":       {"findmax", "R", "the floor: ops/s (500) or a share of the unlimited rate (2%)"},
	"find-max-precision": {"findmax", "P", "the bracket's relative width that ends the search (default 5%)"},
	"find-max-over":      {"findmax", "threads=N1,N2,...", "one search per thread count, the best of all the answer"},

	"agents":      {"fleet", "HOST:PORT,...", "the agents (or NAME=HOST:PORT)"},
	"agents-file": {"fleet", "FILE", "the agents, one a line (# comments)"},
	"ssh":         {"fleet", "[USER@]HOST,...", "start benchtop agent --stdio on each host through OpenSSH"},
	"ssh-copy":    {"fleet", "", "copy this binary to the --ssh hosts first"},
	"ssh-config":  {"fleet", "FILE", "the ssh client's configuration file (ssh -F)"},
	"ssh-remote":  {"fleet", "PATH", "benchtop's path on the --ssh hosts"},
	"token-file":  {"fleet", "FILE", "the agents' shared token (or BENCHTOP_TOKEN)"},
	"token":       {"fleet", "", "refused: a token on the command line is visible to every user"},
	"tls-ca":      {"fleet", "FILE", "the CA that signed the agents' certificates (TLS agents)"},

	"metrics":        {"metrics", "ADDR", "serve the live figures at http://ADDR/metrics (e.g. :9464)"},
	"metrics-push":   {"metrics", "URL", "push them every interval with Prometheus remote write"},
	"metrics-linger": {"metrics", "D", "keep /metrics up after the run for two scrapes, at most D (30s)"},
	"metrics-run":    {"metrics", "NAME", "the run label (default: made from the run)"},
	"metrics-go":     {"metrics", "", "the Go runtime's and the process's series too"},

	"theme":               {"screen", "NAME", "dark, light, high-contrast, colorblind"},
	"serve-ssh":           {"screen", "ADDR", "SSH viewers of the live screen at ADDR (e.g. 127.0.0.1:2222)"},
	"ssh-authorized-keys": {"screen", "FILE", "keys whose SSH sessions may also control the run"},
	"ssh-viewer-keys":     {"screen", "FILE", "only these keys may watch (default: anyone who reaches ADDR)"},
}

// ycsbFlags are shown with one dash.
var ycsbFlags = []string{"P", "p", "threads", "target", "s", "db", "h"}

// flagShown is a flag as the help and the messages write it.
func flagShown(name string) string {
	if slices.Contains(ycsbFlags, name) {
		return "-" + name
	}
	return "--" + name
}

// writeUsage writes benchtop help: the title, one line per command, the
// adapters, the run commands' flags and the keys.
func writeUsage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nUsage:\n", usageTitle)
	for _, c := range commands() {
		if !c.hidden {
			fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("  benchtop %-33s%s", c.synopsis, c.summary), " "))
		}
	}
	fmt.Fprintf(w, "\nAdapters (DATABASE): %s\n", strings.Join(adapters.Names(), ", "))
	fmt.Fprint(w, "\nFlags of load, run and demo (each with - or --; benchtop help COMMAND for one command):\n")
	writeFlags(w)
	fmt.Fprint(w, "\n"+usageKeys)
}

// writeFlags writes the flags of load, run and demo, by group.
func writeFlags(w io.Writer) {
	for _, g := range flagGroups {
		var names []string
		for name, d := range flagHelp {
			if d.group == g.id && d.text != "" {
				names = append(names, name)
			}
		}
		slices.SortFunc(names, func(a, b string) int { return flagOrder(a) - flagOrder(b) })
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, name := range names {
			d := flagHelp[name]
			left := "  " + flagShown(name)
			if name == "h" {
				left += ", --help"
			}
			if d.arg != "" {
				left += " " + d.arg
			}
			lines := strings.Split(d.text, "\n")
			if len(left) > 22 {
				fmt.Fprintln(w, left)
				left = ""
			}
			for i, l := range lines {
				if i > 0 {
					left = ""
				}
				fmt.Fprintf(w, "%-24s%s\n", left, l)
			}
		}
	}
}

// flagOrder keeps the order the flags are written in flagHelp's groups
// as people read them: the most used first.
func flagOrder(name string) int {
	order := []string{"P", "p", "threads", "target", "db", "duration", "threshold", "headless", "s", "h",
		"json", "timeseries", "hdr-log", "html", "baseline", "log",
		"at", "sweep", "step",
		"find-max", "find-max-time", "find-max-min", "find-max-precision", "find-max-over",
		"agents", "agents-file", "ssh", "ssh-copy", "ssh-config", "ssh-remote", "token-file", "token", "tls-ca",
		"metrics", "metrics-push", "metrics-linger", "metrics-run", "metrics-go",
		"theme", "serve-ssh", "ssh-authorized-keys", "ssh-viewer-keys"}
	if i := slices.Index(order, name); i >= 0 {
		return i
	}
	return len(order)
}

// helpCommand is benchtop help [COMMAND]: the whole help, or a command's.
func helpCommand(st *State, args []string) int {
	if len(args) == 0 {
		writeUsage(st.Stdout)
		return exitOK
	}
	c, ok := findCommand(args[0])
	if !ok {
		return st.fail(exitUsage, unknownCommand(args[0]))
	}
	writeCommandHelp(st.Stdout, c)
	return exitOK
}

// writeCommandHelp writes one command's help: its line, and its flags.
func writeCommandHelp(w io.Writer, c command) {
	switch {
	case c.usage != "":
		fmt.Fprintln(w, c.usage)
	case c.isRun:
		fmt.Fprintf(w, "Usage:\n  benchtop %s\n\n%s.\n", c.synopsis, c.summary)
		fmt.Fprintf(w, "\nAdapters (DATABASE): %s\n", strings.Join(adapters.Names(), ", "))
		fmt.Fprint(w, "\nFlags (each with - or --):\n")
		writeFlags(w)
		fmt.Fprint(w, "\n"+usageKeys)
	default:
		fmt.Fprintf(w, "Usage:\n  benchtop %s\n\n%s.\n", c.synopsis, c.summary)
	}
}

// findCommand is the named command (or an alias of one).
func findCommand(name string) (command, bool) {
	for _, c := range commands()[1:] {
		if name == c.name || slices.Contains(c.aliases, name) {
			return c, true
		}
	}
	return command{}, false
}

// commandNames are the commands as typed, in the help's order.
func commandNames() []string {
	var names []string
	for _, c := range commands()[1:] {
		names = append(names, c.name)
	}
	return names
}

// unknownCommand is the error for a command that is none, with the
// closest one when one is close.
func unknownCommand(name string) error {
	return usagef("unknown command %q%s (allowed: %s; benchtop help)", name, didYouMean(name, commandNames(), ident),
		strings.Join(commandNames(), ", "))
}

// didYouMean is ", did you mean X?" for the name in known closest to
// name (adapters.Suggest, as for properties), shown by show; "" when none
// is close.
func didYouMean(name string, known []string, show func(string) string) string {
	if s := adapters.Suggest(name, known); s != "" {
		return ", did you mean " + show(s) + "?"
	}
	return ""
}

// unknownFlag is the error for a flag of load, run or demo that is none
// (a as typed, name without its dashes), with the closest one.
func unknownFlag(o *options, a, name string) error {
	var known []string
	for n, d := range flagHelp {
		if d.text != "" {
			known = append(known, n)
		}
	}
	cmd := "benchtop help"
	if o.Command != "" && !o.NoArgs {
		cmd += " " + o.Command
	}
	return usagef("unknown flag %q%s (see %s)", a, didYouMean(name, known, flagShown), cmd)
}

func ident(s string) string { return s }

// The flags of the commands that parse their own (agent, report,
// verdict), as their usage text and their unknown-flag message give
// them; TestHelpListsEveryFlagAndCommand checks the usage has each.
var (
	agentFlags   = []string{"--listen", "--stdio", "--once", "--idle-timeout", "--token-file", "--tls-cert", "--tls-key", "--auth-timeout", "--max-unauthenticated"}
	reportFlags  = []string{"-o", "--hdr-log", "--timeseries", "--png", "--compare"}
	verdictFlags = []string{"--json"}
)

// subFlagError is a command's unknown flag (a as typed, name without its
// dashes), with the closest of flags and the list.
func subFlagError(cmd, a, name string, flags []string) error {
	bare := make([]string, len(flags))
	for i, f := range flags {
		bare[i] = strings.TrimLeft(f, "-")
	}
	hint := ""
	if s := adapters.Suggest(name, bare); s != "" {
		hint = ", did you mean " + flags[slices.Index(bare, s)] + "?"
	}
	return usagef("%s: unknown flag %q%s (allowed: %s)", cmd, a, hint, strings.Join(flags, ", "))
}
