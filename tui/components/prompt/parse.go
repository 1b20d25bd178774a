// Package prompt is the `:` command line of the live screen: exact values
// typed while the run goes on (threads 64, target 120k, partitions 16,
// mark before compaction, window 15m), and a segment's exact figures
// with their confidence intervals (segment 3), checked as they are typed against
// the same limits, with the same messages, as the command line.
package prompt

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Command is one parsed prompt line.
type Command struct {
	Verb   string        // threads, target, partitions, mark, window, theme, segment
	N      int           // threads, partitions; segment (0: the latest)
	Rate   float64       // target ops/s, 0 = unlimited
	Text   string        // mark label, theme name
	Window time.Duration // window
}

// Limits are what the prompt checks values against.
type Limits struct {
	MaxThreads, MaxPartitions int
	// CanRepartition is false for adapters that cannot change partitions.
	CanRepartition bool
	Adapter        string
	// MinWindow and MaxWindow bound the chart window.
	MinWindow, MaxWindow time.Duration
	// Themes are the theme names allowed.
	Themes []string
	// ReadOnly allows only the commands that change the view.
	ReadOnly bool
}

// Verbs are the commands, in the order the hint lists them.
var Verbs = []string{"threads", "target", "partitions", "mark", "window", "theme", "segment"}

// viewVerbs change only what this screen shows: allowed read-only.
var viewVerbs = map[string]bool{"window": true, "theme": true, "segment": true}

// Hint is the line shown beside an empty prompt.
func Hint(readOnly bool) string {
	if readOnly {
		return "window 1m..60m · theme NAME · enter applies, esc cancels"
	}
	return "threads N · target N[k|M] · partitions N · mark TEXT · window 15m · enter applies, esc cancels"
}

// Parse reads one prompt line. Its errors are one line naming the command,
// the value and what is allowed, as the command line's are.
func Parse(line string, lim Limits) (Command, error) {
	line = strings.TrimSpace(line)
	verb, arg, _ := strings.Cut(line, " ")
	verb = strings.ToLower(verb)
	arg = strings.TrimSpace(arg)
	if verb == "" {
		return Command{}, fmt.Errorf("type a command (%s)", strings.Join(Verbs, ", "))
	}
	full, err := complete(verb)
	if err != nil {
		return Command{}, err
	}
	verb = full
	if lim.ReadOnly && !viewVerbs[verb] {
		return Command{}, fmt.Errorf("%s: this viewer is read-only (allowed: window, theme, segment)", verb)
	}
	c := Command{Verb: verb}
	switch verb {
	case "threads":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > lim.MaxThreads {
			return c, fmt.Errorf("threads %q: expected a whole number from 1 to %d", arg, lim.MaxThreads)
		}
		c.N = n
	case "partitions":
		if !lim.CanRepartition {
			return c, fmt.Errorf("partitions: this adapter cannot repartition (%s)", lim.Adapter)
		}
		n, err := strconv.Atoi(arg)
		if err != nil || n < 1 || n > lim.MaxPartitions {
			return c, fmt.Errorf("partitions %q: expected a whole number from 1 to %d", arg, lim.MaxPartitions)
		}
		c.N = n
	case "target":
		r, err := ParseRate(arg)
		if err != nil {
			return c, fmt.Errorf("target %q: expected ops/s >= 0 (0 = unlimited), e.g. 120k or 1.5M", arg)
		}
		c.Rate = r
	case "mark":
		c.Text = arg
	case "window":
		d, err := time.ParseDuration(arg)
		if err != nil || d < lim.MinWindow || d > lim.MaxWindow {
			return c, fmt.Errorf("window %q: expected a duration from %s to %s, e.g. 15m", arg, short(lim.MinWindow), short(lim.MaxWindow))
		}
		c.Window = d
	case "segment":
		// The segment's exact figures with their 95 % intervals: N, or
		// the latest without one.
		if arg != "" {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return c, fmt.Errorf("segment %q: expected a segment number from 1 (none: the latest)", arg)
			}
			c.N = n
		}
	case "theme":
		for _, t := range lim.Themes {
			if strings.EqualFold(t, arg) {
				c.Text = t
				return c, nil
			}
		}
		return c, fmt.Errorf("theme %q: unknown theme (allowed: %s)", arg, strings.Join(lim.Themes, ", "))
	}
	return c, nil
}

// complete expands an unambiguous prefix of a verb ("thr" → threads).
func complete(verb string) (string, error) {
	var found []string
	for _, v := range Verbs {
		if v == verb {
			return v, nil
		}
		if strings.HasPrefix(v, verb) {
			found = append(found, v)
		}
	}
	if len(found) == 1 {
		return found[0], nil
	}
	return "", fmt.Errorf("unknown command %q (allowed: %s)", verb, strings.Join(Verbs, ", "))
}

// ParseRate reads a rate: 120000, 120k, 1.5M, 2e5, 0, "unlimited", "∞".
func ParseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "unlimited", "∞", "inf", "none":
		return 0, nil
	}
	mul := 1.0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'k', 'K':
			mul, s = 1e3, s[:n-1]
		case 'm', 'M':
			mul, s = 1e6, s[:n-1]
		case 'g', 'G':
			mul, s = 1e9, s[:n-1]
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("bad rate %q", s)
	}
	return math.Round(f * mul), nil
}

func short(d time.Duration) string {
	if d%time.Minute == 0 {
		return strconv.Itoa(int(d/time.Minute)) + "m"
	}
	return d.String()
}
