package cli

import (
	"time"

	"benchtop/internal/output"
	"benchtop/results/steps"
)

// options are a run's command line, parsed (parse.go) by one pass over
// its flags (flags.go).
type options struct {
	Command  string // load, run, demo (run once the mode is known)
	DB       string
	Props    map[string]string
	Workload string // label, from the last -P file
	// PropertyFiles are the -P files, inputs no output may write over.
	PropertyFiles []string
	Headless      bool
	Status        bool         // -s
	Exports       output.Paths // --json, --timeseries, --hdr-log, --html
	Theme         string
	Steps         []steps.Step
	NoArgs        bool     // benchtop alone: the live screen on the memory store
	Args          []string // as given, for the run's metadata (masked there)
	// --duration and --threshold (thresholds.go).
	Duration   time.Duration
	Thresholds []string
	Screen     screenFlags // --log, --serve-ssh, --ssh-*-keys (screenflags.go)
	// --baseline files as given, and the run they hold.
	BaselineFiles []string
	Baseline      *output.Baseline
	Fleet         fleetFlags // --agents, --ssh, ... (fleetflags.go)
	// Notes are said on stderr before the run: what the command line was
	// taken to mean where it was changed (a --step lengthened).
	Notes []string
	// --metrics, --metrics-push, ... (metricsflags.go)
	Metrics metricsFlags
	// --find-max and its flags (findmax.go)
	FindMax findMaxFlags
	// Demo is the scenario of benchtop demo (demo.go), nil otherwise.
	Demo *steps.Demo
}

// flagValues are what the flags gave before the properties are assembled
// (props.go).
type flagValues struct {
	fileProps, cliProps map[string]string
	threads, target     string
	sweep, step         string
}
