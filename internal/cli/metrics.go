package cli

// The live metrics of a run (--metrics, --metrics-push; internal/output/
// metrics): opened before the database is touched, fed by the run's
// hooks (hooks.go), pushed a last time and kept up a little after the
// report.

import (
	"strings"
	"sync"
	"time"

	"benchtop/engine"
	"benchtop/internal/output/metrics"
)

// startMetrics opens the endpoint and checks the push URL of o, and
// starts serving and pushing; nil when the run asks for neither. Its
// errors are bad input (an address in use, a URL refused).
func startMetrics(st *State, o *options, fleet bool) (*metrics.Exporter, error) {
	f := &o.Metrics
	if !f.enabled() {
		return nil, nil
	}
	v := engine.Version()
	version := v.Module
	if v.Revision != "" {
		version += "+" + v.Revision[:min(12, len(v.Revision))]
	}
	run := f.Run
	if run == "" {
		run = runLabel(o, time.Now())
	}
	mx, err := metrics.New(metrics.Config{Addr: f.Addr, Push: f.Push, Run: run, Go: f.Go, Fleet: fleet,
		Version: version, Adapter: o.DB, Workload: o.Workload, CommandLine: strings.Join(maskArgs(o.Args), " ")})
	if err != nil {
		return nil, usagef("%v", err)
	}
	mx.Start()
	if u := mx.URL(); u != "" {
		st.tell("metrics: serving %s (run=%q)", u, run)
	}
	return mx, nil
}

// runLabel is the run label when --metrics-run gives none: the adapter,
// the workload and the start, e.g. memory-workloada-20261201-104512.
func runLabel(o *options, at time.Time) string {
	parts := []string{o.DB}
	if o.Workload != "" {
		parts = append(parts, o.Workload)
	}
	return strings.Join(append(parts, at.Format("20060102-150405")), "-")
}

// endMetrics pushes the last figures (lost: a stream's lost rows, nil
// when not known), says how the push went, and keeps the endpoint up until
// it was scraped twice more (at most --metrics-linger; a signal ends
// it). A run stopped by a signal does not linger.
func endMetrics(st *State, o *options, mx *metrics.Exporter, lost *int64) {
	if mx == nil {
		return
	}
	if line := mx.Finish(lost); line != "" {
		st.tell("%s", line)
	}
	if u := mx.URL(); u != "" && o.Metrics.Linger > 0 && st.signalled() == nil {
		served := mx.Served() // before the line: a scraper that reads it may scrape at once
		st.tell("metrics: serving the final figures at %s until scraped twice more (at most %s; ctrl+c ends this)", u, o.Metrics.Linger)
		stop := make(chan struct{})
		var once sync.Once
		st.onSignal(func() { once.Do(func() { close(stop) }) })
		mx.Linger(served, o.Metrics.Linger, stop)
	}
	mx.Close()
}

// closeMetrics stops the endpoint and the pusher of a run that ends
// before it ran; nil-safe.
func closeMetrics(mx *metrics.Exporter) {
	if mx != nil {
		mx.Close()
	}
}
