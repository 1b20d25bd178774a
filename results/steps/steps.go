// Package steps holds the scripted live changes of a run: `--at
// OFFSET:key=value`, `--sweep key=v1,v2,... --step D` and the scenario of
// `benchtop demo`. Their values are parsed once, into typed Steps, when the
// command line is read; a Player applies them through an engine.Controller
// at their offsets from the start of a phase and collects the steps that
// failed, so that the run can report them instead of dropping them.
package steps

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"benchtop/engine"
)

// Action is what a step does.
type Action int

// The actions of a step.
const (
	Threads    Action = iota + 1 // SetThreads(N)
	Partitions                   // SetPartitions(N)
	Target                       // SetTarget(Rate)
	Pause
	Resume
	Mark // Mark(Label)
	Stop
)

var actionNames = map[Action]string{
	Threads: "threads", Partitions: "partitions", Target: "target",
	Pause: "pause", Resume: "resume", Mark: "mark", Stop: "stop",
}

var actionByName = map[string]Action{
	"threads": Threads, "partitions": Partitions, "target": Target,
	"pause": Pause, "resume": Resume, "mark": Mark, "stop": Stop,
}

func (a Action) String() string { return actionNames[a] }

// Step is one scheduled live change.
type Step struct {
	At     time.Duration // from the start of the phase
	Action Action
	N      int     // Threads, Partitions
	Rate   float64 // Target: ops/s, 0 = unlimited
	Label  string  // Mark
	// Source names where the step came from, for messages: `--at
	// "5s:threads=16"`, `--sweep "threads=1,2,4"` or `demo`.
	Source string
}

// String is the step as a person writes it: "5s threads=16", "20s mark=after".
func (s Step) String() string {
	v := ""
	switch s.Action {
	case Threads, Partitions:
		v = "=" + strconv.Itoa(s.N)
	case Target:
		v = "=" + strconv.FormatFloat(s.Rate, 'f', -1, 64)
	case Mark:
		if s.Label != "" {
			v = "=" + s.Label
		}
	}
	return s.At.String() + " " + s.Action.String() + v
}

// Sort orders steps by offset, keeping the given order for equal offsets.
func Sort(steps []Step) {
	slices.SortStableFunc(steps, func(a, b Step) int {
		switch {
		case a.At < b.At:
			return -1
		case a.At > b.At:
			return 1
		}
		return 0
	})
}

// Uses reports whether any step has action a.
func Uses(steps []Step, a Action) bool {
	return slices.ContainsFunc(steps, func(s Step) bool { return s.Action == a })
}

// ParseAt reads one --at OFFSET:key=value (or OFFSET:pause, OFFSET:resume,
// OFFSET:mark[=label], OFFSET:stop).
func ParseAt(v string) (Step, error) {
	// The offset may itself contain ':' (1:30), so split at the first ':'
	// that precedes a known key, else at the last one.
	i := strings.LastIndex(v, ":")
	for j := 0; j < len(v); j++ {
		if v[j] != ':' {
			continue
		}
		key, _, _ := strings.Cut(v[j+1:], "=")
		if _, ok := actionByName[strings.TrimSpace(key)]; ok {
			i = j
			break
		}
	}
	if i <= 0 {
		return Step{}, fmt.Errorf("--at %q: expected OFFSET:key=value, e.g. 5s:threads=16 (keys: threads, partitions, target, pause, resume, mark, stop)", v)
	}
	off, err := ParseOffset(v[:i])
	if err != nil {
		return Step{}, fmt.Errorf("--at %q: bad offset %q (allowed: a duration such as 5s or 1m30s, or seconds)", v, v[:i])
	}
	key, val, hasVal := strings.Cut(v[i+1:], "=")
	key = strings.TrimSpace(key)
	a, ok := actionByName[key]
	if !ok {
		return Step{}, fmt.Errorf("--at %q: unknown key %q (allowed: threads, partitions, target, pause, resume, mark, stop)", v, key)
	}
	st, err := value(a, val, hasVal)
	if err != nil {
		return Step{}, fmt.Errorf("--at %q: %w", v, err)
	}
	st.At = off
	st.Source = fmt.Sprintf("--at %q", v)
	return st, nil
}

// value parses the value of one step.
func value(a Action, val string, hasVal bool) (Step, error) {
	st := Step{Action: a}
	switch a {
	case Threads:
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > engine.MaxThreads {
			return st, fmt.Errorf("threads=%q: expected a whole number from 1 to %d", val, engine.MaxThreads)
		}
		st.N = n
	case Partitions:
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > engine.MaxPartitions {
			return st, fmt.Errorf("partitions=%q: expected a whole number from 1 to %d", val, engine.MaxPartitions)
		}
		st.N = n
	case Target:
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return st, fmt.Errorf("target=%q: expected ops/s >= 0 (0 = unlimited)", val)
		}
		st.Rate = f
	case Mark:
		st.Label = val
	case Pause, Resume, Stop:
		if hasVal && val != "" {
			return st, fmt.Errorf("%s takes no value", a)
		}
	}
	return st, nil
}

// DefaultStep is the time per value of a sweep without --step.
const DefaultStep = 10 * time.Second

// ParseSweep reads --sweep key=v1,v2,... with --step DURATION (stepSpec
// may be empty: DefaultStep). It gives one step per value, DURATION
// apart from 0, then a stop after the last value's DURATION. A DURATION
// shorter than min (what a segment needs to be judged best or knee) is
// lengthened to min, and note says so ("" otherwise).
func ParseSweep(spec, stepSpec string, min time.Duration) (out []Step, note string, err error) {
	if spec == "" {
		//lint:ignore ST1005 the ellipsis is part of the flag's form, not punctuation
		return nil, "", fmt.Errorf("--step %q given without --sweep key=v1,v2,...", stepSpec)
	}
	key, vals, ok := strings.Cut(spec, "=")
	key = strings.TrimSpace(key)
	if !ok || vals == "" {
		return nil, "", fmt.Errorf("--sweep %q: expected key=v1,v2,... (keys: threads, partitions, target)", spec)
	}
	a := actionByName[key]
	if a != Threads && a != Partitions && a != Target {
		return nil, "", fmt.Errorf("--sweep %q: unknown key %q (allowed: threads, partitions, target)", spec, key)
	}
	every := DefaultStep
	if stepSpec != "" {
		d, err := ParseOffset(stepSpec)
		if err != nil || d < 100*time.Millisecond {
			return nil, "", fmt.Errorf("--step %q: expected a duration of at least 100ms, e.g. 10s", stepSpec)
		}
		every = d
	}
	if every < min {
		given := stepSpec
		if given == "" {
			given = DefaultStep.String()
		}
		note = fmt.Sprintf("--step %s is shorter than a segment needs to be judged best or knee (%s at this status.interval): each value runs %s",
			given, min, min)
		every = min
	}
	source := fmt.Sprintf("--sweep %q", spec)
	for i, v := range strings.Split(vals, ",") {
		st, err := value(a, strings.TrimSpace(v), true)
		if err != nil {
			return nil, "", fmt.Errorf("--sweep %q: %w", spec, err)
		}
		st.At = time.Duration(i) * every
		st.Source = source
		out = append(out, st)
	}
	out = append(out, Step{At: time.Duration(len(out)) * every, Action: Stop, Source: source})
	return out, note, nil
}

// ParseOffset reads "5s", "1m30s", "90" (seconds) or "1:30".
func ParseOffset(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("bad offset %q", s)
	if m, sec, ok := strings.Cut(s, ":"); ok && !strings.ContainsAny(s, "hmsu") {
		mi, err1 := strconv.Atoi(m)
		se, err2 := strconv.Atoi(sec)
		if err1 == nil && err2 == nil && mi >= 0 && se >= 0 && se < 60 {
			return time.Duration(mi)*time.Minute + time.Duration(se)*time.Second, nil
		}
		return 0, bad
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || math.IsNaN(f) || f > 1e9 {
			return 0, bad
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}
