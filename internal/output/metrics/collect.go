package metrics

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"

	"benchtop/engine/measure"
)

// agentStates are the states a fleet agent can be in (fleet's); each
// agent has one series per state, 1 for the one it is in.
var agentStates = []string{"connecting", "running", "late", "lost", "done"}

// collector is the state as a prometheus.Collector: every scrape and
// every push builds the series anew from it (const metrics), so that a
// scrape costs what the series count costs and nothing per operation.
type collector struct {
	d     *descs
	st    *state
	fleet bool
	info  [4]string // version, adapter, workload, command_hash
	push  *pusher   // nil without --metrics-push
}

// Describe sends every descriptor.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range c.d.all() {
		ch <- d
	}
}

// Collect sends the series of the state as it is now.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	d := c.d
	ch <- prometheus.MustNewConstMetric(d.info, prometheus.GaugeValue, 1, c.info[:]...)
	if c.push != nil {
		ok, failed, dropped := c.push.counts()
		ch <- prometheus.MustNewConstMetric(d.pushes, prometheus.CounterValue, float64(ok), "success")
		ch <- prometheus.MustNewConstMetric(d.pushes, prometheus.CounterValue, float64(failed), "failure")
		ch <- prometheus.MustNewConstMetric(d.dropped, prometheus.CounterValue, float64(dropped))
	}
	st := c.st
	st.mu.Lock()
	defer st.mu.Unlock()
	c.collectOps(ch)
	for k, n := range st.integrity {
		ch <- prometheus.MustNewConstMetric(d.integrity, prometheus.CounterValue, float64(n), c.labels(k.agent, string(k.phase))...)
	}
	for k, f := range st.exact {
		qs := map[float64]float64{}
		if f.values != nil {
			for i, q := range quantiles {
				qs[q.q] = f.values[i]
			}
		}
		ch <- prometheus.MustNewConstSummary(d.intervalLatency, f.n, f.sum, qs, c.labels(k.agent, k.op, k.measure)...)
	}
	for agent, l := range st.last {
		ch <- prometheus.MustNewConstMetric(d.throughput, prometheus.GaugeValue, l.ok, c.labels(agent, "success")...)
		ch <- prometheus.MustNewConstMetric(d.throughput, prometheus.GaugeValue, l.failed, c.labels(agent, "failure")...)
	}
	if st.live != nil {
		c.collectLive(ch)
	}
	if st.lost >= 0 {
		ch <- prometheus.MustNewConstMetric(d.streamLost, prometheus.CounterValue, float64(st.lost))
	}
}

// collectOps sends the cumulative counters and histograms. Caller holds
// the state's lock.
func (c *collector) collectOps(ch chan<- prometheus.Metric) {
	d := c.d
	for k, o := range c.st.ops {
		ph := string(k.phase)
		ch <- prometheus.MustNewConstMetric(d.operations, prometheus.CounterValue, float64(o.ok), c.labels(k.agent, ph, k.op, "success")...)
		ch <- prometheus.MustNewConstMetric(d.operations, prometheus.CounterValue, float64(o.failed), c.labels(k.agent, ph, k.op, "failure")...)
		for kind, n := range o.errs {
			ch <- prometheus.MustNewConstMetric(d.errors, prometheus.CounterValue, float64(n), c.labels(k.agent, ph, k.op, kind)...)
		}
		for v, h := range o.lat {
			if h == nil {
				continue
			}
			desc := d.latency
			if v == measure.Failed || v == measure.FailedIntended {
				desc = d.failedLatency
			}
			ch <- prometheus.MustNewConstHistogram(desc, h.n, h.sum, h.cumulative(), c.labels(k.agent, ph, k.op, measureName(v))...)
		}
	}
}

// collectLive sends the latest Snapshot's gauges. Caller holds the
// state's lock.
func (c *collector) collectLive(ch chan<- prometheus.Metric) {
	d, l := c.d, c.st.live
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
	}
	// The run's own figures, or a fleet's merged ones (agent "").
	gauge(d.threads, float64(l.threads), c.labels("")...)
	gauge(d.partitions, float64(l.partitions), c.labels("")...)
	if l.target > 0 {
		gauge(d.target, l.target, c.labels("")...)
	}
	if l.cpu >= 0 {
		gauge(d.cpu, l.cpu, c.labels("")...)
	}
	if l.nic {
		gauge(d.network, l.rx, c.labels("", "rx")...)
		gauge(d.network, l.tx, c.labels("", "tx")...)
	}
	for _, a := range l.agents {
		gauge(d.threads, float64(a.Threads), a.Name)
		gauge(d.partitions, float64(a.Partitions), a.Name)
		if a.Target > 0 {
			gauge(d.target, a.Target, a.Name)
		}
		if a.CPU >= 0 {
			gauge(d.cpu, a.CPU/100, a.Name)
		}
		gauge(d.network, a.RxBytesPerSec, "rx", a.Name)
		gauge(d.network, a.TxBytesPerSec, "tx", a.Name)
		for _, s := range agentStates {
			gauge(d.agentState, b2f(a.State == s), a.Name, s)
		}
	}
	gauge(d.phase, 1, string(l.phase))
	gauge(d.segment, float64(l.segment))
	if l.progress >= 0 {
		gauge(d.progress, l.progress)
	}
	gauge(d.paused, b2f(l.paused))
	gauge(d.warnings, float64(l.warnings))
	for _, f := range l.figures {
		if !math.IsNaN(f.Value) {
			gauge(d.workloadFigure, f.Value, f.Name, f.Unit)
		}
	}
	if v := l.stream; v != nil {
		gauge(d.streamRate, v.ProducedRate, "produced")
		gauge(d.streamRate, v.ConsumedRate, "consumed")
		gauge(d.streamBytes, v.ProducedMBps*1e6, "produced")
		gauge(d.streamBytes, v.ConsumedMBps*1e6, "consumed")
		ch <- prometheus.MustNewConstMetric(d.streamRows, prometheus.CounterValue, float64(v.Produced), "produced")
		ch <- prometheus.MustNewConstMetric(d.streamRows, prometheus.CounterValue, float64(v.Consumed), "consumed")
		gauge(d.streamLag, float64(v.Lag))
		gauge(d.streamLagSeconds, v.LagSeconds)
		ch <- prometheus.MustNewConstMetric(d.streamDuplicated, prometheus.CounterValue, float64(v.Duplicated))
		ch <- prometheus.MustNewConstMetric(d.streamOutOfOrder, prometheus.CounterValue, float64(v.OutOfOrder))
		ch <- prometheus.MustNewConstMetric(d.streamUnknown, prometheus.CounterValue, float64(v.Unknown))
		if e := v.E2E; e.Count > 0 {
			for _, q := range []struct {
				label string
				v     float64
			}{{"p50", e.P50.Seconds()}, {"p95", e.P95.Seconds()}, {"p99", e.P99.Seconds()}, {"max", e.Max.Seconds()}} {
				gauge(d.streamE2E, q.v, q.label)
			}
		}
	}
}

// labels are the label values of a family fed per agent: values, then
// the agent in a fleet (agent "" is the merged series).
func (c *collector) labels(agent string, values ...string) []string {
	if c.fleet {
		return append(values, agent)
	}
	return values
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
