package cli

// benchtop verdict: the verdict of a shared stream's rows across the
// processes of one consumer group, from their JSON summaries' ledgers:
// the [STREAM-FLEET] lines and exit status a fleet's coordinator gives
// its agents' ledgers (internal/output/verdict.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"benchtop/internal/output"
	"benchtop/workload"
)

const verdictUsage = `usage: benchtop verdict A.json B.json ... [--json VERDICT.json]
merges the stream ledgers of the processes of one consumer group (each run's --json) into one verdict`

// verdictArgs is the parsed command line of `benchtop verdict`.
type verdictArgs struct {
	jsons []string
	out   string
}

func parseVerdictArgs(args []string) (*verdictArgs, error) {
	a := &verdictArgs{}
	for i := 0; i < len(args); i++ {
		arg := args[i]
		if !strings.HasPrefix(arg, "-") || arg == "-" {
			a.jsons = append(a.jsons, arg)
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(arg, "-"), "=")
		switch name {
		case "json":
			if !hasVal {
				if i+1 >= len(args) {
					return nil, usagef("verdict: flag --json needs a value")
				}
				i++
				val = args[i]
			}
			a.out = val
		case "h", "help":
			return nil, errCommandHelp
		default:
			return nil, subFlagError("verdict", arg, name, verdictFlags) // help.go
		}
	}
	if len(a.jsons) == 0 {
		return nil, usagef("verdict: expected the JSON summaries (--json) of the group's processes, got none\n%s", verdictUsage)
	}
	if a.out != "" {
		// A regular file of its own, none of the summaries read (by file
		// identity: internal/output's Guard).
		g := output.NewGuard()
		for _, in := range a.jsons {
			g.Input("verdict's input", in)
		}
		if err := g.Output("--json", a.out); err != nil {
			return nil, usagef("verdict: %v", err)
		}
	}
	return a, nil
}

// verdictCommand is `benchtop verdict`: exit 0 when every row was
// delivered exactly once and in order and no process found a problem, 1
// otherwise, 2 for bad input (a file that is not a ledger, one process's
// ledger twice).
func verdictCommand(st *State, args []string) int {
	a, err := parseVerdictArgs(args)
	if errors.Is(err, errCommandHelp) {
		fmt.Fprintln(st.Stdout, verdictUsage)
		return exitOK
	}
	if err != nil {
		return st.fail(exitUsage, err)
	}
	var members []*output.Member
	var group *workload.Group
	seen := map[[2]uint64]string{}
	for _, path := range a.jsons {
		m, g, err := output.ReadMember(path)
		if err != nil {
			st.tell("verdict: %s", output.OneLine(err))
			return exitUsage
		}
		if group != nil && g != group {
			st.tell("verdict: %s holds another workload's ledger than %s: give the summaries of one group", path, members[0].Path)
			return exitUsage
		}
		group = g
		id := [2]uint64{uint64(m.Origin), uint64(m.Run)}
		if first, dup := seen[id]; dup {
			st.tell("verdict: %s holds the same process's ledger as %s (origin %d, run %d): give each process's summary once", path, first, m.Origin, m.Run)
			return exitUsage
		}
		seen[id] = path
		members = append(members, m)
	}
	ledgers := make([]json.RawMessage, len(members))
	doc := &output.VerdictDoc{}
	for i, m := range members {
		ledgers[i] = m.Ledger
		doc.Members = append(doc.Members, output.VerdictMember{Path: m.Path, Origin: m.Origin, Run: m.Run, Verdict: m.Verdict})
	}
	v, err := group.Merge(ledgers, 0)
	if err != nil {
		st.tell("verdict: %s", output.OneLine(err))
		return exitUsage
	}
	text := st.Stdout
	if output.IsStdout(a.out) {
		text = st.Stderr // --json - | jq: the JSON alone on stdout
	}
	v.WriteText(text)
	doc.Verdict = v
	doc.Notes = v.Notes()
	for _, m := range members {
		for _, p := range m.Problems {
			doc.Problems = append(doc.Problems, m.Path+": "+p)
		}
	}
	doc.Problems = append(doc.Problems, v.Problems()...)
	for _, n := range doc.Notes {
		st.tell("%s", n)
	}
	for _, p := range doc.Problems {
		st.tell("%s", p)
	}
	if a.out != "" {
		if err := output.WriteFile(a.out, st.Stdout, doc.Write); err != nil {
			st.tell("verdict: --json %s: %s", a.out, output.OneLine(output.PathCause(err)))
			return exitFailure
		}
		if !output.IsStdout(a.out) {
			st.tell("wrote %s", a.out)
		}
	}
	if len(doc.Problems) > 0 {
		st.tell("verdict: FAILED: %d problems across %d processes' ledgers", len(doc.Problems), len(members))
		return exitFailure
	}
	return exitOK
}
