package cli

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/internal/infile"
	"benchtop/internal/output"
	"benchtop/results/marks"
	"benchtop/results/steps"
)

// readPropertyFile reads one -P file. Its errors are usage errors naming
// the file (and the line, from the parser).
func readPropertyFile(path string) (map[string]string, error) {
	f, err := infile.Open(path) // a FIFO with no writer is refused, not waited on
	if err != nil {
		return nil, usagef("-P %s: cannot read the property file: %v", path, output.PathCause(err))
	}
	defer f.Close()
	p, err := adapters.ParseProperties(f)
	if err != nil {
		// A directory reads as "is a directory".
		return nil, usagef("-P %s: cannot read the property file: %v", path, output.PathCause(err))
	}
	return p, nil
}

func baseName(path string) string { return filepath.Base(path) }

// assembleProps builds the run's properties: -P files in order, then -p
// (later wins, -p beats -P), then -threads/-target and the steps'.
func assembleProps(o *options, fv *flagValues) error {
	props := map[string]string{}
	if o.NoArgs || o.Command == "demo" || (o.Workload == "" && len(fv.fileProps) == 0) {
		for k, v := range defaultWorkloadA() {
			props[k] = v
		}
		if o.Workload == "" {
			o.Workload = "workloada"
		}
	}
	for k, v := range fv.fileProps {
		props[k] = v
	}
	for k, v := range fv.cliProps {
		props[k] = v
	}
	if fv.threads != "" {
		n, err := strconv.Atoi(strings.TrimSpace(fv.threads))
		if err != nil || n < 1 || n > engine.MaxThreads {
			return usagef("-threads %q: expected a whole number from 1 to %d", fv.threads, engine.MaxThreads)
		}
		props["threadcount"] = strconv.Itoa(n)
	}
	if fv.target != "" {
		f, err := strconv.ParseFloat(strings.TrimSpace(fv.target), 64)
		if err != nil || f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return usagef("-target %q: expected a number of ops/s >= 0 (0 = unlimited)", fv.target)
		}
		props["target"] = strings.TrimSpace(fv.target)
	}
	durationProps(o.Duration, props) // --duration (thresholds.go)
	if fv.sweep != "" || fv.step != "" {
		sw, note, err := steps.ParseSweep(fv.sweep, fv.step, minSweepStep(props))
		if err != nil {
			return usagef("%v", err)
		}
		if note != "" {
			o.Notes = append(o.Notes, note)
		}
		o.Steps = append(o.Steps, sw...)
		if _, ok := props["operationcount"]; !ok || o.Command == "run" {
			props["operationcount"] = "0"
		}
	}
	if o.Command == "demo" {
		if err := demoScenario(o, fv, props); err != nil {
			return err
		}
		o.Steps = append(o.Steps, o.Demo.Plan()...)
	}
	steps.Sort(o.Steps)
	if _, ok := props["partitions"]; !ok && steps.Uses(o.Steps, steps.Partitions) {
		props["partitions"] = "1"
	}
	o.Props = props
	return nil
}

// minSweepStep is the shortest --step whose segments can be judged best
// or knee: the interval after the change (the transition), MinIntervals
// steady intervals, and one interval more since a change falls anywhere
// between two ticks. A bad status.interval is left to the configuration,
// which refuses it.
func minSweepStep(props map[string]string) time.Duration {
	iv := adapters.NewReader(adapters.Properties(props)).Seconds("status.interval", time.Second, 100*time.Millisecond, 10*time.Second)
	return time.Duration(marks.MinIntervals+2) * iv
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

// applyModeDefaults sets what depends on the mode, once it is known:
// demo's and the no-argument run's time limit headless, and the run's
// label.
func applyModeDefaults(o *options, interactive bool) {
	if o.Command == "demo" {
		o.Command = "run"
		o.Workload = "demo (workload A)"
		if _, ok := o.Props["maxexecutiontime"]; !ok && !interactive {
			o.Props["maxexecutiontime"] = "75"
		}
	} else if o.NoArgs && !interactive {
		// Headless with no arguments: a short run that ends by itself.
		o.Props["maxexecutiontime"] = "10"
	}
	if w := strings.TrimSpace(o.Props["workload"]); w != "" && !strings.HasSuffix(w, "CoreWorkload") && w != "core" && (o.NoArgs || o.Workload == "workloada") {
		// -p workload=stream without a -P file: name the run after it.
		o.Workload = w
	}
	o.Props["benchtop.workloadname"] = o.Workload
}

// describeConfigErr names the flag or property, the value and what is
// allowed, in one line.
func describeConfigErr(err error) string {
	var ce *adapters.ConfigError
	if errors.As(err, &ce) {
		key := ce.Key
		switch key {
		case "threadcount":
			key = "-threads / threadcount"
		case "target":
			key = "-target / target"
		}
		return fmt.Sprintf("%s: %q is not allowed (allowed: %s)", key, ce.Shown(), ce.Allowed)
	}
	return output.OneLine(err)
}
