package cli

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// The help is written from the tables: every flag load, run and demo
// parse (flagDefs) and every command (commands) is in it, so that a flag
// added without a line of help fails here.
func TestHelpListsEveryFlagAndCommand(t *testing.T) {
	t.Parallel()
	help := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitOK || errb.Len() > 0 {
			t.Fatalf("benchtop %s: exit %d, stderr %q", strings.Join(args, " "), code, errb.String())
		}
		return out.String()
	}
	shows := func(text, word string) bool {
		return regexp.MustCompile(`(^|[\s,\[(|])` + regexp.QuoteMeta(word) + `([\s,\])|=]|$)`).MatchString(text)
	}
	all := help("help")
	for _, args := range [][]string{{"help", "run"}, {"run", "--help"}, {"load", "-h"}, {"help", "demo"}, {"--help"}} {
		text := help(args...)
		for name := range flagDefs {
			if _, ok := flagHelp[name]; !ok {
				t.Errorf("flag %s is parsed but has no help (flagHelp)", flagShown(name))
			}
			if !shows(text, flagShown(name)) {
				t.Errorf("benchtop %s does not list %s", strings.Join(args, " "), flagShown(name))
			}
		}
	}
	for name := range flagHelp {
		if _, ok := flagDefs[name]; !ok {
			t.Errorf("flagHelp has %s, which no command parses", flagShown(name))
		}
	}
	var errb bytes.Buffer
	run([]string{"nosuchcommand"}, &bytes.Buffer{}, &errb)
	for _, c := range commands()[1:] {
		if !shows(all, "benchtop "+c.name) && !strings.Contains(all, "benchtop "+c.name+" ") {
			t.Errorf("benchtop help does not list the command %s", c.name)
		}
		if out := help("help", c.name); !strings.Contains(out, "benchtop "+c.name) {
			t.Errorf("benchtop help %s:\n%s", c.name, out)
		}
		if !strings.Contains(errb.String(), c.name) {
			t.Errorf("the unknown-command message does not list %s: %q", c.name, errb.String())
		}
	}
	for _, c := range []string{"agent", "report", "verdict", "attach"} {
		if out := help(c, "--help"); !strings.Contains(out, "benchtop "+c) {
			t.Errorf("benchtop %s --help:\n%s", c, out)
		}
	}
	// The commands that parse their own flags: each is in their help.
	for cmd, flags := range map[string][]string{"agent": agentFlags, "report": reportFlags, "verdict": verdictFlags} {
		text := help("help", cmd)
		for _, f := range flags {
			if !shows(text, f) {
				t.Errorf("benchtop help %s does not list %s", cmd, f)
			}
		}
	}
	for _, f := range []string{"--duration", "--find-max", "--threshold", "--metrics"} {
		if !shows(help("help", "run"), f) {
			t.Errorf("benchtop help run does not list %s", f)
		}
	}
}

// A mistyped command, adapter or flag names the closest one (as a
// mistyped property does); each is one line, exit status 2.
func TestDidYouMean(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"rnu"}, `unknown command "rnu", did you mean run?`},
		{[]string{"laod", "memory"}, `unknown command "laod", did you mean load?`},
		{[]string{"help", "rnu"}, `unknown command "rnu", did you mean run?`},
		{[]string{"run", "mongo"}, `database "mongo": unknown adapter, did you mean mongodb?`},
		{[]string{"load", "postgress"}, `database "postgress": unknown adapter, did you mean postgres?`},
		{[]string{"run", "memory", "-db", "mysq"}, `-db "mysq": unknown adapter, did you mean mysql?`},
		{[]string{"run", "memory", "--durration", "5s"}, `unknown flag "--durration", did you mean --duration? (see benchtop help run)`},
		{[]string{"run", "memory", "-thread", "4"}, `unknown flag "-thread", did you mean -threads?`},
		{[]string{"run", "memory", "--find-max-tme", "1m"}, `did you mean --find-max-time?`},
		{[]string{"run", "memory", "--zzzzzz"}, `unknown flag "--zzzzzz" (see benchtop help run)`},
		{[]string{"agent", "--listn", ":0"}, `agent: unknown flag "--listn", did you mean --listen? (allowed: --listen,`},
		{[]string{"report", "--hdrlog", "x"}, `report: unknown flag "--hdrlog", did you mean --hdr-log?`},
		{[]string{"verdict", "--jsn", "x"}, `verdict: unknown flag "--jsn", did you mean --json? (allowed: --json)`},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != exitUsage || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("benchtop %s: exit %d, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, errb.String(), c.want)
		}
	}
}
