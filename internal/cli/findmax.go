package cli

// --find-max and its flags: the capacity search (results/findmax) of a
// run, its refusals, and the exit status its outcome gives.

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"benchtop/engine"
	"benchtop/results/findmax"
	"benchtop/results/steps"
)

// findMaxFlags are --find-max (repeatable), --find-max-time,
// --find-max-min, --find-max-precision and --find-max-over as given, and
// the search's spec once they are checked.
type findMaxFlags struct {
	exprs                   []string
	budget, floor, prec, on string
	spec                    *findmax.Spec
}

// findMaxFlagNames are the flags, each taking a value.
var findMaxFlagNames = map[string]string{
	"find-max":           "an expression, e.g. READ.p99<10ms",
	"find-max-time":      "a duration, e.g. 10m",
	"find-max-min":       "ops/s or a share of the unlimited rate, e.g. 500 or 2%",
	"find-max-precision": "a relative width, e.g. 5%",
	"find-max-over":      "threads=N1,N2,...",
}

// set records one flag's value.
func (f *findMaxFlags) set(name, v string) error {
	switch name {
	case "find-max":
		if _, err := findmax.ParseCondition(v); err != nil {
			return usagef("%v", err)
		}
		f.exprs = append(f.exprs, v)
	case "find-max-time":
		f.budget = v
	case "find-max-min":
		f.floor = v
	case "find-max-precision":
		f.prec = v
	case "find-max-over":
		f.on = v
	}
	return nil
}

// enabled reports whether a search was asked for.
func (f *findMaxFlags) enabled() bool { return len(f.exprs) > 0 }

// check builds the spec and refuses what cannot go with a search, before
// anything is opened; then it makes the run one the search ends itself:
// no operation or time limit, the first thread count of --find-max-over.
func (f *findMaxFlags) check(o *options, fv *flagValues) error {
	if !f.enabled() {
		for name, v := range map[string]string{"--find-max-time": f.budget, "--find-max-min": f.floor, "--find-max-precision": f.prec, "--find-max-over": f.on} {
			if v != "" {
				return usagef("%s %q given without --find-max EXPR (the conditions of the search)", name, v)
			}
		}
		return nil
	}
	spec := findmax.NewSpec(nil)
	for _, e := range f.exprs {
		c, _ := findmax.ParseCondition(e) // checked when given
		spec.Conditions = append(spec.Conditions, c)
	}
	if err := f.refuse(o, fv, spec); err != nil {
		return err
	}
	if f.budget != "" {
		d, err := steps.ParseOffset(f.budget)
		if err != nil || d < findmax.MinBudget {
			return usagef("--find-max-time %q: expected a duration of at least %s, e.g. 10m", f.budget, findmax.MinBudget)
		}
		spec.Budget = d
	}
	if f.floor != "" {
		abs, share, err := findmax.ParseFloor(f.floor)
		if err != nil {
			return usagef("%v", err)
		}
		spec.Floor, spec.FloorShare = abs, share
	}
	if f.prec != "" {
		p, err := findmax.ParsePrecision(f.prec)
		if err != nil {
			return usagef("%v", err)
		}
		spec.Precision = p
	}
	if f.on != "" {
		ts, err := findmax.ParseOver(f.on)
		if err != nil {
			return usagef("%v", err)
		}
		if fv.threads != "" {
			return usagef("-threads %q: not with --find-max-over %q (the search sets the threads itself)", fv.threads, f.on)
		}
		spec.Threads = ts
		o.Props["threadcount"] = strconv.Itoa(ts[0])
	}
	// The search ends the run: no operation limit, no time limit.
	o.Props["operationcount"] = "0"
	delete(o.Props, "maxexecutiontime")
	f.spec = &spec
	return nil
}

// refuse says which flag or property cannot go with --find-max.
func (f *findMaxFlags) refuse(o *options, fv *flagValues, spec findmax.Spec) error {
	first := "--find-max " + strconv.Quote(f.exprs[0])
	switch {
	case o.Command != "run":
		return usagef("%s: only with benchtop run (a load phase has no rate to search)", first)
	case fv.target != "":
		return usagef("-target %q: not with %s (the search sets the target itself)", fv.target, first)
	case targetSet(o.Props):
		return usagef("target=%q: not with %s (the search sets the target itself; drop it from -p or the -P file)", o.Props["target"], first)
	case fv.sweep != "" || fv.step != "":
		return usagef("--sweep: not with %s (the search picks its own targets)", first)
	case len(o.Thresholds) > 0:
		return usagef("--threshold %q: not with %s (the search judges its conditions per probe; give them as --find-max)", o.Thresholds[0], first)
	case o.Duration > 0:
		return usagef("--duration: not with %s (the search ends the run itself; --find-max-time bounds it)", first)
	}
	for _, s := range o.Steps {
		if s.Action == steps.Target || s.Action == steps.Threads {
			return usagef("%s: not with %s (the search sets the target%s itself)", s.Source, first, map[bool]string{true: " and threads", false: ""}[f.on != ""])
		}
	}
	if spec.HasLatency() && strings.TrimSpace(o.Props["measurement.interval"]) == "op" {
		return usagef("measurement.interval=op: not with %s (latency is judged from the intended start, which op does not record)", first)
	}
	return nil
}

// targetSet reports whether the properties set a target rate.
func targetSet(props map[string]string) bool {
	v, ok := props["target"]
	if !ok {
		return false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	return err != nil || f != 0
}

// newSearch is the run's search (nil without --find-max); its lines go
// to stderr as they come when headless.
func newSearch(st *State, o *options) *findmax.Search {
	if o.FindMax.spec == nil {
		return nil
	}
	var tell func(string)
	if !st.Interactive {
		tell = func(line string) { st.tell("%s", line) }
	}
	spec := *o.FindMax.spec
	spec.StopOnThreads = !st.Interactive // the first probes' thread limit ends it (exit status 4)
	return findmax.New(spec, engine.PhaseRun, tell)
}

// localServer is the address of an adapter's server when it is on this
// host (a loopback address or localhost in its description), "" when it
// is not or cannot be told; the in-process adapters (sim, memory, null)
// have no server to share the host with.
func localServer(adapter, target string) string {
	switch adapter {
	case "sim", "memory", "null", "":
		return ""
	}
	hostport := target
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		hostport = u.Host
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || strings.EqualFold(host, "localhost") {
		return hostport
	}
	return ""
}

// reasonTexts are the report's reasons, one after another.
func reasonTexts(r *findmax.Report) string {
	var rs []string
	for _, x := range r.Reasons {
		rs = append(rs, x.Text)
	}
	return strings.Join(rs, "; ")
}

// findMaxStatus is the exit status of the search's outcome (exitOK
// without one), told on stderr: exitThresholds when no rate down to the
// floor meets the conditions, exitUntrusted for an answer that cannot be
// trusted (or none found in time). prior is the status the run has
// without the search: the line names the status the process ends with
// when prior outranks the search's. On the live screen the answer itself
// is said once the screen is down.
func findMaxStatus(st *State, r *findmax.Report, prior int) int {
	if r == nil {
		return exitOK
	}
	if st.Interactive {
		st.tell("find-max: %s", r.Answer)
	}
	switch r.Status() {
	case findmax.StatusNone:
		what := "no rate down to the floor meets the conditions"
		if r.UpperOpsSec <= 0 {
			what = "no operation succeeded even unlimited: there is no rate to find"
		}
		why := ""
		if len(r.Reasons) > 0 {
			why = "; but " + reasonTexts(r)
		}
		st.tell("find-max: %s%s (%s)", what, why, statusText(exitThresholds, prior))
		return exitThresholds
	case findmax.StatusUntrusted:
		why := "no answer within the search"
		if len(r.Reasons) > 0 {
			why = reasonTexts(r)
			if r.Outcome != findmax.Answer {
				why = "no answer within the search; " + why
			}
		}
		st.tell("find-max: the answer cannot be trusted: %s (%s)", why, statusText(exitUntrusted, prior))
		return exitUntrusted
	}
	return exitOK
}

// statusText is "exit status 99", or "exit status 1, before find-max's
// 99" when prior outranks code.
func statusText(code, prior int) string {
	if w := exitStatus(prior, code); w != code {
		return fmt.Sprintf("exit status %d, before find-max's %d", w, code)
	}
	return fmt.Sprintf("exit status %d", code)
}
