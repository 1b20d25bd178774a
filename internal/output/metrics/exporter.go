package metrics

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"benchtop/engine"
	"benchtop/engine/measure"
)

// Config is what an Exporter serves and where.
type Config struct {
	// Addr is --metrics ADDR (host:port; "" serves nothing).
	Addr string
	// Push is --metrics-push URL, a remote-write endpoint ("" pushes
	// nothing).
	Push string
	// Run is the value of the run label on every series.
	Run string
	// Go adds the Go runtime's and the process's own collectors
	// (--metrics-go).
	Go bool
	// Fleet: a fleet's coordinator, whose families fed by agents carry an
	// agent label.
	Fleet bool
	// benchtop_info's labels: the build's version, the adapter, the
	// workload, and the command line with its secrets masked (only its
	// hash is shown).
	Version, Adapter, Workload, CommandLine string
}

// FinalWait bounds how long the end of a run waits for the queued
// intervals and the final one to be pushed.
const FinalWait = 10 * time.Second

// Exporter serves and pushes a run's series. Its methods Interval,
// AgentInterval and Snapshot are the run's hooks (internal/cli's
// hooks.go); New listens at once, Start serves and starts pushing, Finish
// pushes the last figures, Linger and Close end it.
type Exporter struct {
	once sync.Once
	cfg  Config
	reg  *prometheus.Registry
	st   *state
	ep   *endpoint // nil without --metrics
	push *pusher   // nil without --metrics-push
}

// New registers benchtop's collector in a registry of its own (not the
// global one: no Go runtime series unless cfg.Go), opens cfg.Addr and
// checks cfg.Push. Its errors name the flag and the value.
func New(cfg Config) (*Exporter, error) {
	e := &Exporter{cfg: cfg, reg: prometheus.NewRegistry(), st: newState()}
	if cfg.Push != "" {
		p, err := newPusher(cfg.Push)
		if err != nil {
			return nil, fmt.Errorf("--metrics-push %s: %v", e.pushShown(), err)
		}
		e.push = p
	}
	sum := sha256.Sum256([]byte(cfg.CommandLine))
	c := &collector{d: newDescs(cfg.Fleet), st: e.st, fleet: cfg.Fleet, push: e.push,
		info: [4]string{cfg.Version, cfg.Adapter, cfg.Workload, hex.EncodeToString(sum[:6])}}
	r := prometheus.WrapRegistererWith(prometheus.Labels{"run": cfg.Run}, e.reg)
	if err := r.Register(c); err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	if cfg.Go {
		if err := r.Register(collectors.NewGoCollector()); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
		if err := r.Register(collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})); err != nil {
			return nil, fmt.Errorf("metrics: %w", err)
		}
	}
	if cfg.Addr != "" {
		ep, err := listen(cfg.Addr, e.reg)
		if err != nil {
			return nil, fmt.Errorf("--metrics %s: %v", cfg.Addr, err)
		}
		e.ep = ep
	}
	return e, nil
}

func (e *Exporter) pushShown() string {
	if e.push != nil {
		return e.push.shown
	}
	return maskedURL(e.cfg.Push)
}

// Gatherer is the exporter's registry, for tests and tools.
func (e *Exporter) Gatherer() prometheus.Gatherer { return e.reg }

// URL is where the endpoint serves its metrics ("" without --metrics).
func (e *Exporter) URL() string {
	if e.ep == nil {
		return ""
	}
	return "http://" + e.ep.addr() + "/metrics"
}

// Start serves the endpoint and starts the pusher.
func (e *Exporter) Start() {
	if e.ep != nil {
		e.ep.serve()
	}
	if e.push != nil {
		e.push.start()
	}
}

// Interval folds one interval's measurements (the run's own, or a
// fleet's merged ones). It matches engine.Options.OnInterval.
func (e *Exporter) Interval(ph engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	e.st.interval("", ph, names, start, end, set)
}

// AgentInterval folds a fleet agent's own interval into its series
// (agent="NAME").
func (e *Exporter) AgentInterval(agent string, ph engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	e.st.interval(agent, ph, names, start, end, set)
}

// Snapshot takes the snapshot's gauges and queues the interval's push.
// While pushes fail it adds a warning to the snapshot, so that the
// screen and the -s status lines show it: it must run before the hooks
// that draw the snapshot, and before the snapshot is published.
func (e *Exporter) Snapshot(s *engine.Snapshot) {
	e.st.snapshot(s)
	if e.push == nil {
		return
	}
	if fams, err := e.reg.Gather(); err == nil {
		e.push.enqueue(fams, s.Time)
	}
	if w := e.push.warning(); w != "" {
		s.Warnings = append(slices.Clip(s.Warnings), w)
	}
}

// Finish takes the run's closing figures (what was lost, a stream's rows;
// nil when not known), pushes the series as they stand now and waits up
// to FinalWait for every queued interval to go. It returns the push's
// account, one line ("" without --metrics-push).
func (e *Exporter) Finish(lost *int64) string {
	e.st.lostRows(lost)
	if e.push == nil {
		return ""
	}
	if fams, err := e.reg.Gather(); err == nil {
		e.push.enqueue(fams, time.Now())
	}
	e.push.finish(FinalWait)
	return e.push.summary()
}

// Served is how many scrapes the endpoint has answered so far (0 without
// one): Linger's count starts from it.
func (e *Exporter) Served() int64 {
	if e.ep == nil {
		return 0
	}
	return e.ep.scrapes.Load()
}

// Linger keeps the endpoint up after the run until it answered two
// scrapes more than served (so that the last interval is scraped whatever
// the scrape interval's phase), d passed, or stop is closed. served is
// Served read before the user was told the endpoint lingers: a scrape
// answered between that line and this call counts.
func (e *Exporter) Linger(served int64, d time.Duration, stop <-chan struct{}) {
	if e.ep == nil || d <= 0 {
		return
	}
	e.ep.linger(served+2, d, stop)
}

// Close stops the endpoint.
func (e *Exporter) Close() {
	e.once.Do(func() {
		if e.ep != nil {
			e.ep.close()
		}
		if e.push != nil {
			e.push.cancel()
		}
	})
}

// LostOf is the workload's closing count of what was lost in results
// (workload.Final.Lost: nil when the workload counts none, or cannot
// judge it here, as one member of a shared stream).
func LostOf(results []*engine.PhaseResult) *int64 {
	if len(results) == 0 || results[len(results)-1].Closing == nil {
		return nil
	}
	return results[len(results)-1].Closing.Lost
}
