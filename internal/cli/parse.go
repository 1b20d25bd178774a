package cli

import (
	"strings"

	"benchtop/adapters"
	"benchtop/internal/output"
)

// parseRun turns a run's command line into options and validated
// properties: command is load, run or demo ("" for benchtop alone), args
// what follows it, line the whole command line. It reads -P and
// --baseline files but touches no database. Its errors are bad input.
func parseRun(command string, args, line []string) (*options, error) {
	o := &options{Command: command, DB: "memory", Props: map[string]string{}, Args: line}
	switch command {
	case "":
		o.Command, o.NoArgs = "run", true
	case "load", "run":
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			o.DB, args = args[0], args[1:]
		}
	case "demo":
		var err error
		if args, err = demoAdapter(o, args); err != nil {
			return nil, err
		}
	}
	if _, ok := adapters.Lookup(o.DB); !ok {
		return nil, usagef("database %q: unknown adapter%s (known: %s)", o.DB, didYouMean(o.DB, adapters.Names(), ident), strings.Join(adapters.Names(), ", "))
	}
	fv, err := parseFlags(o, args)
	if err != nil || o.Command == "help" {
		return o, err
	}
	if err := o.Fleet.check(); err != nil {
		return nil, err
	}
	if err := o.Screen.check(); err != nil {
		return nil, err
	}
	if err := o.Metrics.check(); err != nil {
		return nil, err
	}
	if o.Baseline, err = output.ReadBaseline(o.BaselineFiles); err != nil {
		return nil, usagef("%v", err)
	}
	if err := assembleProps(o, fv); err != nil {
		return nil, err
	}
	if err := o.FindMax.check(o, fv); err != nil {
		return nil, err
	}
	return o, nil
}
