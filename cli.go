package main

import (
	"fmt"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/steps"
	"benchtop/themes"
)

// usageError is bad input: printed as one line, exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{fmt.Sprintf(format, a...)} }

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
	Steps      []steps.Step
	NoArgs     bool
	Args       []string // as given, for report headers (masked there)
	HTML       string   // html report: report_cmd.go
	// --duration and --threshold (thresholds.go).
	Duration   time.Duration
	Thresholds []string
	Screen     screenFlags // [screen] --log, --serve-ssh, --ssh-*-keys
	// --baseline files as given, and the run they hold (baseline.go).
	BaselineFiles []string
	Baseline      *baselineRun
}

// flagValues are what the flags gave before the properties are assembled.
type flagValues struct {
	fileProps, cliProps map[string]string
	threads, target     string
	sweep, step         string
}

// parseArgs turns the command line into options and validated properties.
// It reads -P files but touches no database.
func parseArgs(args []string) (*cliOptions, error) {
	o, rest, err := parseCommand(args)
	if o != nil {
		o.Args = args
	}
	if err != nil || o.Command == "help" || o.Command == "list" || o.Command == "version" {
		return o, err
	}
	fv, err := parseFlags(o, rest)
	if err != nil || o.Command == "help" {
		return o, err
	}
	if err := o.Screen.check(); err != nil { // [screen]
		return nil, err
	}
	if o.Baseline, err = loadBaseline(o.BaselineFiles); err != nil { // baseline.go
		return nil, err
	}
	if err := assembleProps(o, fv); err != nil {
		return nil, err
	}
	return o, nil
}

// runFlag sets --duration or --threshold (thresholds.go).
func runFlag(name string) func(*cliOptions, *flagValues, string) error {
	return func(o *cliOptions, _ *flagValues, v string) error { return parseRunFlag(o, name, v) }
}

// screenFlag sets one of the live screen's flags (cli_screen.go).
func screenFlag(name string) func(*cliOptions, *flagValues, string) error {
	return func(o *cliOptions, _ *flagValues, v string) error {
		_, err := o.Screen.parse(name, func() (string, error) { return v, nil })
		return err
	}
}

// parseCommand reads the subcommand and the database; it returns the
// flags that follow.
func parseCommand(args []string) (*cliOptions, []string, error) {
	o := &cliOptions{Command: "run", DB: "memory", Props: map[string]string{}}
	if len(args) == 0 {
		o.NoArgs = true
		return o, nil, nil
	}
	switch args[0] {
	case "load", "run":
		o.Command = args[0]
		args = args[1:]
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			o.DB = args[0]
			args = args[1:]
		}
	case "demo":
		o.Command = "demo"
		args = args[1:]
	case "help", "-h", "--help", "-help":
		o.Command = "help"
	case "list", "adapters":
		o.Command = "list"
	case "version", "--version", "-version":
		o.Command = "version"
	default:
		// Flags without a subcommand: run on memory.
		if !strings.HasPrefix(args[0], "-") {
			return nil, nil, usagef("unknown command %q (allowed: load, run, demo, list, help)", args[0])
		}
	}
	if _, ok := adapters.Lookup(o.DB); !ok {
		return nil, nil, usagef("database %q: unknown adapter (known: %s)", o.DB, strings.Join(adapters.Names(), ", "))
	}
	return o, args, nil
}

// flagDef is one flag: what its value is (for messages; "" for a flag
// that takes none) and what it sets.
type flagDef struct {
	value string
	set   func(o *cliOptions, fv *flagValues, v string) error
}

var flagDefs map[string]flagDef

func init() {
	str := func(p func(*cliOptions) *string) func(*cliOptions, *flagValues, string) error {
		return func(o *cliOptions, _ *flagValues, v string) error { *p(o) = v; return nil }
	}
	flagDefs = map[string]flagDef{
		"P":          {"a property file", setPropertyFile},
		"p":          {"key=value", setProperty},
		"threads":    {fmt.Sprintf("a whole number from 1 to %d", engine.MaxThreads), func(_ *cliOptions, fv *flagValues, v string) error { fv.threads = v; return nil }},
		"target":     {"a number of ops/s >= 0, 0 = unlimited", func(_ *cliOptions, fv *flagValues, v string) error { fv.target = v; return nil }},
		"s":          {"", func(o *cliOptions, _ *flagValues, _ string) error { o.Status = true; return nil }},
		"headless":   {"", func(o *cliOptions, _ *flagValues, _ string) error { o.Headless = true; return nil }},
		"json":       {"a file name", str(func(o *cliOptions) *string { return &o.JSON })},
		"timeseries": {"a file name", str(func(o *cliOptions) *string { return &o.TimeSeries })},
		"hdr-log":    {"a file name", str(func(o *cliOptions) *string { return &o.HDRLog })},
		"theme":      {"a theme name", setTheme},
		"at":         {"OFFSET:key=value", setAt},
		"sweep":      {"key=v1,v2,...", func(_ *cliOptions, fv *flagValues, v string) error { fv.sweep = v; return nil }},
		"step":       {"a duration", func(_ *cliOptions, fv *flagValues, v string) error { fv.step = v; return nil }},
		"db":         {"an adapter name", setDB},
		"html":       {"a file name", str(func(o *cliOptions) *string { return &o.HTML })}, // html report
		"baseline": {"a JSON summary (--json), and again its --timeseries CSV or --hdr-log if you like", func(o *cliOptions, _ *flagValues, v string) error {
			o.BaselineFiles = append(o.BaselineFiles, v) // read once all flags are in (baseline.go)
			return nil
		}},
		"duration":  {"a duration, e.g. 60s", runFlag("duration")}, // thresholds.go
		"threshold": {"an expression, e.g. READ.p99<10ms", runFlag("threshold")},
		// [screen] the live screen's own flags (cli_screen.go).
		"log":                 {"a file name", screenFlag("log")},
		"serve-ssh":           {"HOST:PORT", screenFlag("serve-ssh")},
		"ssh-authorized-keys": {"a file name", screenFlag("ssh-authorized-keys")},
		"ssh-viewer-keys":     {"a file name", screenFlag("ssh-viewer-keys")},
		"h":                   {"", func(o *cliOptions, _ *flagValues, _ string) error { o.Command = "help"; return nil }},
	}
	flagDefs["help"] = flagDefs["h"]
}

// parseFlags reads the flags (-name value, -name=value, also with --).
func parseFlags(o *cliOptions, args []string) (*flagValues, error) {
	fv := &flagValues{fileProps: map[string]string{}, cliProps: map[string]string{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" {
			return nil, usagef("unexpected argument %q (flags come after: benchtop load|run DATABASE [flags])", a)
		}
		name := strings.TrimLeft(a, "-")
		shown := a // as typed, for messages
		val, hasVal := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, val, hasVal = k, v, true
			shown = a[:len(a)-len(v)-1]
		}
		def, ok := flagDefs[name]
		if !ok {
			return nil, usagef("unknown flag %q (see benchtop help)", a)
		}
		switch {
		case def.value == "" && hasVal:
			return nil, usagef("flag %s takes no value (got %q)", shown, val)
		case def.value != "" && !hasVal:
			if i+1 >= len(args) {
				return nil, usagef("flag %s needs a value", shown)
			}
			i++
			val = args[i]
		}
		if def.value != "" && strings.TrimSpace(val) == "" {
			return nil, usagef("%s %q: empty value (expected %s)", shown, val, def.value)
		}
		if err := def.set(o, fv, val); err != nil {
			return nil, err
		}
		if o.Command == "help" {
			return fv, nil
		}
	}
	return fv, nil
}

func setPropertyFile(o *cliOptions, fv *flagValues, path string) error {
	p, err := readPropertyFile(path)
	if err != nil {
		return err
	}
	for k, v := range p {
		fv.fileProps[k] = v
	}
	o.Workload = baseName(path)
	return nil
}

func setProperty(_ *cliOptions, fv *flagValues, kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return usagef("-p %q: expected key=value", kv)
	}
	fv.cliProps[strings.TrimSpace(k)] = v
	return nil
}

func setTheme(o *cliOptions, _ *flagValues, v string) error {
	if _, ok := themes.Get(v); !ok {
		return usagef("--theme %q: unknown theme (allowed: %s)", v, strings.Join(themes.Names(), ", "))
	}
	o.Theme = v
	return nil
}

func setAt(o *cliOptions, _ *flagValues, v string) error {
	st, err := steps.ParseAt(v)
	if err != nil {
		return usagef("%v", err)
	}
	o.Steps = append(o.Steps, st)
	return nil
}

func setDB(o *cliOptions, _ *flagValues, v string) error {
	if _, ok := adapters.Lookup(v); !ok {
		return usagef("-db %q: unknown adapter (known: %s)", v, strings.Join(adapters.Names(), ", "))
	}
	o.DB = v
	return nil
}
