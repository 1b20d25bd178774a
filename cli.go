package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/themes"
)

// usageError is bad input: printed as one line, exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

// step is one scheduled live change (--at, --sweep).
type step struct {
	At    time.Duration
	Key   string // threads, partitions, target, pause, resume, mark, stop
	Value string
}

// cliOptions is the parsed command line.
type cliOptions struct {
	Command    string // load, run, demo, help, list, version
	DB         string
	Props      map[string]string
	Workload   string // label, from the last -P file
	Headless   bool
	Status     bool
	JSON       string
	TimeSeries string
	HDRLog     string
	Theme      string
	Steps      []step
	Sweep      *sweep
	NoArgs     bool
	Warnings   []string
}

type sweep struct {
	Key    string
	Values []string
	Step   time.Duration
}

// atKeys are the keys --at accepts.
var atKeys = map[string]bool{"threads": true, "partitions": true, "target": true, "pause": true, "resume": true, "mark": true, "stop": true}

// parseArgs turns the command line into options and validated properties.
// It reads -P files but touches no database.
func parseArgs(args []string) (*cliOptions, error) {
	o := &cliOptions{Props: map[string]string{}}
	if len(args) == 0 {
		o.NoArgs = true
		o.Command = "run"
		o.DB = "memory"
	} else {
		switch args[0] {
		case "load", "run":
			o.Command = args[0]
			args = args[1:]
			if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
				o.DB = args[0]
				args = args[1:]
			} else {
				o.DB = "memory"
			}
		case "demo":
			o.Command = "demo"
			o.DB = "memory"
			args = args[1:]
		case "help", "-h", "--help", "-help":
			o.Command = "help"
			return o, nil
		case "list", "adapters":
			o.Command = "list"
			return o, nil
		case "version", "--version", "-version":
			o.Command = "version"
			return o, nil
		default:
			if strings.HasPrefix(args[0], "-") {
				// Flags without a subcommand: run on memory.
				o.Command = "run"
				o.DB = "memory"
			} else {
				return nil, usagef("unknown command %q (allowed: load, run, demo, list, help)", args[0])
			}
		}
	}
	if _, ok := adapters.Lookup(o.DB); !ok {
		return nil, usagef("database %q: unknown adapter (known: %s)", o.DB, strings.Join(adapters.Names(), ", "))
	}

	fileProps := map[string]string{}
	cliProps := map[string]string{}
	var threads, target string
	var sweepSpec, stepSpec string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return nil, usagef("unexpected argument %q (flags come after: benchtop load|run DATABASE [flags])", a)
		}
		name := strings.TrimLeft(a, "-")
		val, hasVal := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, val, hasVal = k, v, true
		}
		need := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", usagef("flag -%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		switch name {
		case "P":
			path, err := need()
			if err != nil {
				return nil, err
			}
			p, err := engine.LoadPropertiesFile(path)
			if err != nil {
				return nil, usagef("-P %s: cannot read the property file: %v", path, unwrapPathErr(err))
			}
			for k, v := range p {
				fileProps[k] = v
			}
			o.Workload = filepath.Base(path)
		case "p":
			kv, err := need()
			if err != nil {
				return nil, err
			}
			k, v, ok := strings.Cut(kv, "=")
			if !ok || strings.TrimSpace(k) == "" {
				return nil, usagef("-p %q: expected key=value", kv)
			}
			cliProps[strings.TrimSpace(k)] = v
		case "threads":
			v, err := need()
			if err != nil {
				return nil, err
			}
			threads = v
		case "target":
			v, err := need()
			if err != nil {
				return nil, err
			}
			target = v
		case "s":
			o.Status = true
		case "headless":
			o.Headless = true
		case "json":
			v, err := need()
			if err != nil {
				return nil, err
			}
			o.JSON = v
		case "timeseries":
			v, err := need()
			if err != nil {
				return nil, err
			}
			o.TimeSeries = v
		case "hdr-log":
			v, err := need()
			if err != nil {
				return nil, err
			}
			o.HDRLog = v
		case "theme":
			v, err := need()
			if err != nil {
				return nil, err
			}
			if _, ok := themes.Get(v); !ok {
				return nil, usagef("--theme %q: unknown theme (allowed: %s)", v, strings.Join(themes.Names(), ", "))
			}
			o.Theme = v
		case "at":
			v, err := need()
			if err != nil {
				return nil, err
			}
			st, err := parseAt(v)
			if err != nil {
				return nil, err
			}
			o.Steps = append(o.Steps, st)
		case "sweep":
			v, err := need()
			if err != nil {
				return nil, err
			}
			sweepSpec = v
		case "step":
			v, err := need()
			if err != nil {
				return nil, err
			}
			stepSpec = v
		case "db":
			v, err := need()
			if err != nil {
				return nil, err
			}
			if _, ok := adapters.Lookup(v); !ok {
				return nil, usagef("-db %q: unknown adapter (known: %s)", v, strings.Join(adapters.Names(), ", "))
			}
			o.DB = v
		case "h", "help":
			o.Command = "help"
			return o, nil
		default:
			return nil, usagef("unknown flag %q (see benchtop help)", a)
		}
	}

	// Properties: -P files in order, then -p (later wins, -p beats -P),
	// then -threads/-target/-s.
	props := map[string]string{}
	if o.NoArgs || o.Command == "demo" || (o.Workload == "" && len(fileProps) == 0) {
		for k, v := range defaultWorkloadA() {
			props[k] = v
		}
		if o.Workload == "" {
			o.Workload = "workloada"
		}
	}
	for k, v := range fileProps {
		props[k] = v
	}
	for k, v := range cliProps {
		props[k] = v
	}
	if threads != "" {
		n, err := strconv.Atoi(strings.TrimSpace(threads))
		if err != nil || n < 1 || n > engine.MaxThreads {
			return nil, usagef("-threads %q: expected a whole number from 1 to %d", threads, engine.MaxThreads)
		}
		props["threadcount"] = strconv.Itoa(n)
	}
	if target != "" {
		f, err := strconv.ParseFloat(strings.TrimSpace(target), 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, usagef("-target %q: expected a number of ops/s >= 0 (0 = unlimited)", target)
		}
		props["target"] = strings.TrimSpace(target)
	}
	if sweepSpec != "" || stepSpec != "" {
		sw, err := parseSweep(sweepSpec, stepSpec)
		if err != nil {
			return nil, err
		}
		o.Sweep = sw
		for i, v := range sw.Values {
			o.Steps = append(o.Steps, step{At: time.Duration(i) * sw.Step, Key: sw.Key, Value: v})
		}
		o.Steps = append(o.Steps, step{At: time.Duration(len(sw.Values)) * sw.Step, Key: "stop"})
		if _, ok := props["operationcount"]; !ok || o.Command == "run" {
			props["operationcount"] = "0"
		}
	}
	sort.SliceStable(o.Steps, func(i, j int) bool { return o.Steps[i].At < o.Steps[j].At })
	for _, st := range o.Steps {
		if st.Key == "partitions" {
			if _, ok := props["partitions"]; !ok {
				props["partitions"] = "1"
			}
		}
	}
	o.Props = props
	return o, nil
}

func unwrapPathErr(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// defaultWorkloadA is YCSB's workloada with a record count that makes the
// embedded store interesting, and no operation limit.
func defaultWorkloadA() map[string]string {
	return map[string]string{
		"workload":            "site.ycsb.workloads.CoreWorkload",
		"recordcount":         "100000",
		"operationcount":      "0",
		"readallfields":       "true",
		"readproportion":      "0.5",
		"updateproportion":    "0.5",
		"scanproportion":      "0",
		"insertproportion":    "0",
		"requestdistribution": "zipfian",
	}
}

// parseOffset reads "5s", "1m30s", "90" (seconds) or "1:30".
func parseOffset(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if m, sec, ok := strings.Cut(s, ":"); ok && !strings.ContainsAny(s, "hmsu") {
		mi, err1 := strconv.Atoi(m)
		se, err2 := strconv.Atoi(sec)
		if err1 == nil && err2 == nil && mi >= 0 && se >= 0 && se < 60 {
			return time.Duration(mi)*time.Minute + time.Duration(se)*time.Second, nil
		}
		return 0, fmt.Errorf("bad offset")
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || math.IsNaN(f) || f > 1e9 {
			return 0, fmt.Errorf("bad offset")
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad offset")
	}
	return d, nil
}

// parseAt reads one --at OFFSET:key=value (or OFFSET:pause, OFFSET:resume,
// OFFSET:mark[=label], OFFSET:stop).
func parseAt(v string) (step, error) {
	i := strings.LastIndex(v, ":")
	// The offset may itself contain ':' (1:30), so split at the ':' that
	// precedes a known key.
	for j := 0; j < len(v); j++ {
		if v[j] != ':' {
			continue
		}
		rest := v[j+1:]
		key, _, _ := strings.Cut(rest, "=")
		if atKeys[strings.TrimSpace(key)] {
			i = j
			break
		}
	}
	if i <= 0 {
		return step{}, usagef("--at %q: expected OFFSET:key=value, e.g. 5s:threads=16 (keys: threads, partitions, target, pause, resume, mark, stop)", v)
	}
	off, err := parseOffset(v[:i])
	if err != nil {
		return step{}, usagef("--at %q: bad offset %q (allowed: a duration such as 5s or 1m30s, or seconds)", v, v[:i])
	}
	key, val, hasVal := strings.Cut(v[i+1:], "=")
	key = strings.TrimSpace(key)
	if !atKeys[key] {
		return step{}, usagef("--at %q: unknown key %q (allowed: threads, partitions, target, pause, resume, mark, stop)", v, key)
	}
	if err := checkStepValue(key, val, hasVal); err != nil {
		return step{}, usagef("--at %q: %v", v, err)
	}
	return step{At: off, Key: key, Value: val}, nil
}

func checkStepValue(key, val string, hasVal bool) error {
	switch key {
	case "threads":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > engine.MaxThreads {
			return fmt.Errorf("threads=%q: expected a whole number from 1 to %d", val, engine.MaxThreads)
		}
	case "partitions":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 || n > engine.MaxPartitions {
			return fmt.Errorf("partitions=%q: expected a whole number from 1 to %d", val, engine.MaxPartitions)
		}
	case "target":
		f, err := strconv.ParseFloat(val, 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("target=%q: expected ops/s >= 0 (0 = unlimited)", val)
		}
	case "pause", "resume", "stop":
		if hasVal && val != "" {
			return fmt.Errorf("%s takes no value", key)
		}
	}
	return nil
}

// parseSweep reads --sweep key=v1,v2,... --step DURATION.
func parseSweep(spec, stepSpec string) (*sweep, error) {
	if spec == "" {
		return nil, usagef("--step %q given without --sweep key=v1,v2,...", stepSpec)
	}
	key, vals, ok := strings.Cut(spec, "=")
	key = strings.TrimSpace(key)
	if !ok || vals == "" {
		return nil, usagef("--sweep %q: expected key=v1,v2,... (keys: threads, partitions, target)", spec)
	}
	if key != "threads" && key != "partitions" && key != "target" {
		return nil, usagef("--sweep %q: unknown key %q (allowed: threads, partitions, target)", spec, key)
	}
	sw := &sweep{Key: key, Step: 10 * time.Second}
	for _, v := range strings.Split(vals, ",") {
		v = strings.TrimSpace(v)
		if err := checkStepValue(key, v, true); err != nil {
			return nil, usagef("--sweep %q: %v", spec, err)
		}
		sw.Values = append(sw.Values, v)
	}
	if stepSpec != "" {
		d, err := parseOffset(stepSpec)
		if err != nil || d < 100*time.Millisecond {
			return nil, usagef("--step %q: expected a duration of at least 100ms, e.g. 10s", stepSpec)
		}
		sw.Step = d
	}
	return sw, nil
}

const usageText = `benchtop — a live, interactive database benchmark for the terminal

Usage:
  benchtop                                  live screen: workload A on the embedded memory store
  benchtop load DATABASE [flags]            YCSB load phase
  benchtop run  DATABASE [flags]            YCSB run phase (memory: loads first)
  benchtop demo                             a scripted scenario that plays by itself
  benchtop list                             the adapters
  benchtop help

YCSB flags (as ./bin/ycsb takes them):
  -P FILE            property file (repeatable; later files win)
  -p key=value       property (repeatable; later wins; beats -P)
  -threads N         client threads (threadcount)
  -target N          total target ops/s (0 = unlimited)
  -s                 status line every interval on stderr

benchtop flags (also with --):
  --headless         plain output even on a terminal
  --json FILE        JSON summary (segments, operations, phases)
  --timeseries FILE  CSV, one row per interval
  --hdr-log FILE     HdrHistogram interval log
  --at OFFSET:key=value   scheduled live change: threads, partitions, target, pause, resume, mark, stop
                          e.g. --at 5s:threads=16 --at 10s:partitions=8
  --sweep key=v1,v2,...   a staircase of --at steps, one segment per value (threads, partitions, target)
  --step DURATION    time per sweep value (default 10s)
  --theme NAME       dark, light, high-contrast, colorblind

Many client machines (see the README):
  benchtop agent --listen ADDR [--token-file FILE] [--tls-cert F --tls-key F] | --stdio
  --agents H:P,...   run on these agents (-threads per agent; -target, operationcount split)
  --agents-file FILE one HOST:PORT (or NAME=HOST:PORT) a line
  --token-file FILE  the agents' shared token (or BENCHTOP_TOKEN)
  --tls-ca FILE      reach the agents over TLS, verified with this CA
  --ssh U@H,...      run "benchtop agent --stdio" on these hosts through ssh
  --ssh-copy         copy this binary to the hosts first; --ssh-config FILE, --ssh-remote PATH

Keys on the live screen: + - threads, > < threads x2 /2, ] [ partitions, } { x2 /2,
t T target +/-25 %, 0 unlimited, space pause, m mark, r new segment, tab view,
c theme, w chart window, s save report, ? help, q quit.
`
