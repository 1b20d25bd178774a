package cli

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"benchtop/adapters"
	"benchtop/engine"
)

// Main runs benchtop: args is the command line without the program's
// name, sigs the process's SIGINT and SIGTERM as caught from its start
// (nil: none). It returns the exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	st := newState(args, stdin, stdout, stderr, sigs) // first: signals count from here
	defer st.close()
	cmd, rest, err := route(args)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	if !cmd.isRun {
		st.signals.hangupStops() // a run survives its terminal (hangup.go); other commands stop
	}
	return cmd.run(st, rest)
}

// command is one subcommand: how it is typed, its line in the help and
// what runs it (with the arguments after its name).
type command struct {
	name     string
	aliases  []string
	synopsis string // its arguments, after "benchtop" in the help
	summary  string
	hidden   bool   // not in the help
	usage    string // its help when it has flags of its own ("": its line)
	run      func(st *State, args []string) int
	isRun    bool // a run: it goes on when its terminal is lost (SIGHUP)
}

// commands are benchtop's subcommands. The first is benchtop alone: the
// live screen on the memory store.
func commands() []command {
	return []command{
		{summary: "live screen: workload A on the embedded memory store", run: runAs(""), isRun: true},
		{name: "load", synopsis: "load DATABASE [flags]", summary: "YCSB load phase", run: runAs("load"), isRun: true},
		{name: "run", synopsis: "run  DATABASE [flags]", summary: "YCSB run phase (memory: loads first)", run: runAs("run"), isRun: true},
		{name: "attach", synopsis: "attach [--list | ID]", summary: "take up a running live screen again (after a lost terminal)", run: attachCommand, usage: attachUsage},
		{name: "agent", synopsis: "agent --listen ADDR | --stdio", summary: "a client machine of a fleet run (benchtop help agent)", run: agentCommand, usage: agentUsage},
		{name: "demo", synopsis: "demo [sim|memory] [flags]", summary: "a scripted scenario that plays by itself (on a model server by default)", run: runAs("demo"), isRun: true},
		{name: "report", synopsis: "report RUN.json -o REPORT.html", summary: "the HTML report of a run from its exports (benchtop help report)", run: reportCommand, usage: reportUsage},
		{name: "verdict", synopsis: "verdict A.json B.json ...", summary: "one verdict on a shared stream's rows from its consumer group's JSON summaries", run: verdictCommand, usage: verdictUsage},
		{name: "list", aliases: []string{"adapters"}, synopsis: "list", summary: "the adapters", run: listCommand},
		{name: "version", aliases: []string{"--version", "-version"}, synopsis: "version", summary: "benchtop's version (also --version)", run: versionCommand},
		{name: "help", aliases: []string{"-h", "--help", "-help"}, synopsis: "help [COMMAND]", summary: "this help, or one command's (also COMMAND --help)", run: helpCommand},
	}
}

// route finds the command of args and the arguments that follow its
// name. Flags without a command are a run on the memory store.
func route(args []string) (command, []string, error) {
	cmds := commands()
	if len(args) == 0 {
		return cmds[0], nil, nil
	}
	for _, c := range cmds[1:] {
		if args[0] == c.name || slices.Contains(c.aliases, args[0]) {
			return c, args[1:], nil
		}
	}
	if strings.HasPrefix(args[0], "-") {
		return command{run: runAs("run"), isRun: true}, args, nil
	}
	return command{}, nil, unknownCommand(args[0]) // help.go
}

// runAs is the command that runs name: load, run, demo, or "" for
// benchtop alone.
func runAs(name string) func(*State, []string) int {
	return func(st *State, args []string) int { return runCommand(st, name, args) }
}

// runCommand reads a run's command line and, once the mode is known, runs
// it on this machine (run.go) or as a fleet's coordinator (fleet.go).
func runCommand(st *State, name string, args []string) int {
	o, err := parseRun(name, args, st.Args)
	if err != nil {
		return st.fail(exitUsage, err)
	}
	st.hideSecrets(o.Props)
	if o.Command == "help" {
		if c, ok := findCommand(name); ok {
			writeCommandHelp(st.Stdout, c) // help.go
		} else {
			writeUsage(st.Stdout) // benchtop --help
		}
		return exitOK
	}
	st.Interactive = !o.Headless && st.Terminal
	applyModeDefaults(o, st.Interactive)
	if o.Fleet.enabled() {
		return fleetRun(st, o)
	}
	return localRun(st, o)
}

func versionCommand(st *State, _ []string) int {
	fmt.Fprintln(st.Stdout, engine.Version()) // meta.go
	return exitOK
}

func listCommand(st *State, _ []string) int {
	for _, d := range adapters.Drivers() {
		fmt.Fprintf(st.Stdout, "%-10s %s\n", d.Name, d.Description)
	}
	return exitOK
}
