package cli

import (
	"fmt"
	"strings"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/results/steps"
	"benchtop/themes"
)

// flagDef is one flag of a run: what its value is (for messages; "" for
// a flag that takes none) and what it sets. The coordinator's flags
// (fleet) read as they always have: a value may be empty, a flag that
// takes none ignores one given with =, and a missing value is told as
// "flag --NAME needs a value".
type flagDef struct {
	value string
	set   func(o *options, fv *flagValues, v string) error
	fleet bool
}

// flagDefs are every flag of load, run and demo, read in one pass.
var flagDefs map[string]flagDef

func init() {
	str := func(p func(*options) *string) func(*options, *flagValues, string) error {
		return func(o *options, _ *flagValues, v string) error { *p(o) = v; return nil }
	}
	flagDefs = map[string]flagDef{
		"P":          {value: "a property file", set: setPropertyFile},
		"p":          {value: "key=value", set: setProperty},
		"threads":    {value: fmt.Sprintf("a whole number from 1 to %d", engine.MaxThreads), set: func(_ *options, fv *flagValues, v string) error { fv.threads = v; return nil }},
		"target":     {value: "a number of ops/s >= 0, 0 = unlimited", set: func(_ *options, fv *flagValues, v string) error { fv.target = v; return nil }},
		"s":          {set: func(o *options, _ *flagValues, _ string) error { o.Status = true; return nil }},
		"headless":   {set: func(o *options, _ *flagValues, _ string) error { o.Headless = true; return nil }},
		"json":       {value: "a file name", set: str(func(o *options) *string { return &o.Exports.JSON })},
		"timeseries": {value: "a file name", set: str(func(o *options) *string { return &o.Exports.TimeSeries })},
		"hdr-log":    {value: "a file name", set: str(func(o *options) *string { return &o.Exports.HDRLog })},
		"html":       {value: "a file name", set: str(func(o *options) *string { return &o.Exports.HTML })},
		"theme":      {value: "a theme name", set: setTheme},
		"at":         {value: "OFFSET:key=value", set: setAt},
		"sweep":      {value: "key=v1,v2,...", set: func(_ *options, fv *flagValues, v string) error { fv.sweep = v; return nil }},
		"step":       {value: "a duration", set: func(_ *options, fv *flagValues, v string) error { fv.step = v; return nil }},
		"db":         {value: "an adapter name", set: setDB},
		"baseline": {value: "a JSON summary (--json), and again its --timeseries CSV or --hdr-log if you like", set: func(o *options, _ *flagValues, v string) error {
			o.BaselineFiles = append(o.BaselineFiles, v) // read once all flags are in
			return nil
		}},
		"duration": {value: "a duration, e.g. 60s", set: func(o *options, _ *flagValues, v string) (err error) {
			o.Duration, err = parseDuration(v)
			return err
		}},
		"threshold": {value: "an expression, e.g. READ.p99<10ms", set: func(o *options, _ *flagValues, v string) error {
			if err := checkThreshold(v); err != nil {
				return err
			}
			o.Thresholds = append(o.Thresholds, v)
			return nil
		}},
		"h": {set: func(o *options, _ *flagValues, _ string) error { o.Command = "help"; return nil }},
	}
	flagDefs["help"] = flagDefs["h"]
	for _, name := range screenFlagNames { // the live screen's (screenflags.go)
		flagDefs[name] = flagDef{value: screenFlagValues[name], set: func(o *options, _ *flagValues, v string) error { return o.Screen.set(name, v) }}
	}
	for _, name := range metricsFlagNames { // the live metrics' (metricsflags.go)
		flagDefs[name] = flagDef{value: metricsFlagValues[name], set: func(o *options, _ *flagValues, v string) error { return o.Metrics.set(name, v) }}
	}
	for name, value := range findMaxFlagNames { // the capacity search's (findmax.go)
		flagDefs[name] = flagDef{value: value, set: func(o *options, _ *flagValues, v string) error { return o.FindMax.set(name, v) }}
	}
	for name, takes := range fleetFlagNames { // the coordinator's (fleetflags.go)
		def := flagDef{set: func(o *options, _ *flagValues, v string) error { return o.Fleet.set(name, v) }, fleet: true}
		if takes {
			def.value = "a value"
		}
		flagDefs[name] = def
	}
}

// parseFlags reads the flags (-name value, -name=value, also with --).
func parseFlags(o *options, args []string) (*flagValues, error) {
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
			return nil, unknownFlag(o, a, name)
		}
		switch {
		case def.value == "" && hasVal && !def.fleet:
			return nil, usagef("flag %s takes no value (got %q)", shown, val)
		case def.value != "" && !hasVal:
			if i+1 >= len(args) {
				if def.fleet {
					shown = "--" + name
				}
				return nil, usagef("flag %s needs a value", shown)
			}
			i++
			val = args[i]
		}
		if def.value != "" && strings.TrimSpace(val) == "" && !def.fleet {
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

func setPropertyFile(o *options, fv *flagValues, path string) error {
	p, err := readPropertyFile(path)
	if err != nil {
		return err
	}
	for k, v := range p {
		fv.fileProps[k] = v
	}
	o.Workload = baseName(path)
	o.PropertyFiles = append(o.PropertyFiles, path)
	return nil
}

func setProperty(_ *options, fv *flagValues, kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	if !ok || strings.TrimSpace(k) == "" {
		return usagef("-p %q: expected key=value", kv)
	}
	fv.cliProps[strings.TrimSpace(k)] = v
	return nil
}

func setTheme(o *options, _ *flagValues, v string) error {
	if _, ok := themes.Get(v); !ok {
		return usagef("--theme %q: unknown theme (allowed: %s)", v, strings.Join(themes.Names(), ", "))
	}
	o.Theme = v
	return nil
}

func setAt(o *options, _ *flagValues, v string) error {
	st, err := steps.ParseAt(v)
	if err != nil {
		return usagef("%v", err)
	}
	o.Steps = append(o.Steps, st)
	return nil
}

func setDB(o *options, _ *flagValues, v string) error {
	if _, ok := adapters.Lookup(v); !ok {
		return usagef("-db %q: unknown adapter%s (known: %s)", v, didYouMean(v, adapters.Names(), ident), strings.Join(adapters.Names(), ", "))
	}
	o.DB = v
	return nil
}
