package prompt

import (
	"strings"
	"testing"
	"time"
)

var lim = Limits{MaxThreads: 4096, MaxPartitions: 1024, CanRepartition: true, Adapter: "memory",
	MinWindow: 10 * time.Second, MaxWindow: time.Hour, Themes: []string{"dark", "light"}}

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Command
	}{
		{"threads 64", Command{Verb: "threads", N: 64}},
		{"  thr   8 ", Command{Verb: "threads", N: 8}},
		{"threads 4096", Command{Verb: "threads", N: 4096}},
		{"target 120k", Command{Verb: "target", Rate: 120000}},
		{"segment 3", Command{Verb: "segment", N: 3}},
		{"seg", Command{Verb: "segment"}},
		{"target 1.5M", Command{Verb: "target", Rate: 1500000}},
		{"target 2500", Command{Verb: "target", Rate: 2500}},
		{"target 0", Command{Verb: "target"}},
		{"target unlimited", Command{Verb: "target"}},
		{"ta ∞", Command{Verb: "target"}},
		{"partitions 16", Command{Verb: "partitions", N: 16}},
		{"mark before compaction", Command{Verb: "mark", Text: "before compaction"}},
		{"mark", Command{Verb: "mark"}},
		{"window 15m", Command{Verb: "window", Window: 15 * time.Minute}},
		{"w 30s", Command{Verb: "window", Window: 30 * time.Second}},
		{"theme Light", Command{Verb: "theme", Text: "light"}},
	}
	for _, c := range cases {
		got, err := Parse(c.in, lim)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if got != c.want {
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}

// The messages name the command, the value and what is allowed, with the
// command line's limits.
func TestParseErrors(t *testing.T) {
	cases := []struct {
		in   string
		lim  Limits
		want string
	}{
		{"threads 0", lim, `threads "0": expected a whole number from 1 to 4096`},
		{"threads 4097", lim, `threads "4097": expected a whole number from 1 to 4096`},
		{"threads lots", lim, `threads "lots": expected a whole number from 1 to 4096`},
		{"threads", lim, `threads "": expected a whole number from 1 to 4096`},
		{"partitions 1025", lim, `partitions "1025": expected a whole number from 1 to 1024`},
		{"partitions 4", Limits{MaxPartitions: 1024, Adapter: "mongodb"}, "partitions: this adapter cannot repartition (mongodb)"},
		{"target -5", lim, `target "-5": expected ops/s >= 0 (0 = unlimited), e.g. 120k or 1.5M`},
		{"target 12x", lim, `target "12x": expected ops/s >= 0`},
		{"window 2h", lim, `window "2h": expected a duration from 10s to 60m, e.g. 15m`},
		{"window 1s", lim, `window "1s": expected a duration from 10s to 60m`},
		{"theme pink", lim, `theme "pink": unknown theme (allowed: dark, light)`},
		{"segment x", lim, `segment "x": expected a segment number from 1 (none: the latest)`},
		{"fly 3", lim, `unknown command "fly" (allowed: threads, target, partitions, mark, window, theme, segment)`},
		{"t 5", lim, `unknown command "t"`}, // threads or target: ambiguous
		{"", lim, "type a command"},
	}
	for _, c := range cases {
		_, err := Parse(c.in, c.lim)
		if err == nil {
			t.Errorf("Parse(%q) accepted", c.in)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %q, want it to start %q", c.in, err, c.want)
		}
	}
}

func TestReadOnlyAllowsOnlyTheView(t *testing.T) {
	ro := lim
	ro.ReadOnly = true
	for _, in := range []string{"threads 8", "target 10k", "partitions 2", "mark x"} {
		if _, err := Parse(in, ro); err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Errorf("read-only Parse(%q) = %v, want a read-only refusal", in, err)
		}
	}
	if c, err := Parse("window 15m", ro); err != nil || c.Window != 15*time.Minute {
		t.Errorf("read-only window: %+v %v", c, err)
	}
}
