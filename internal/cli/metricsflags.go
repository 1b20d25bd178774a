package cli

// The flags of the live metrics (metrics.go), kept apart as the screen's
// are: flags.go hands these names to metricsFlags.set.

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"benchtop/adapters"
)

// metricsFlagNames are the metrics' flags; metricsFlagValues say what
// their values are ("" for a flag that takes none).
var (
	metricsFlagNames  = []string{"metrics", "metrics-push", "metrics-linger", "metrics-run", "metrics-go"}
	metricsFlagValues = map[string]string{"metrics": "HOST:PORT, e.g. 127.0.0.1:9464 or :9464",
		"metrics-push": "a remote-write URL, e.g. http://127.0.0.1:9090/api/v1/write", "metrics-linger": "a duration, e.g. 30s",
		"metrics-run": "a label value, e.g. sizing-64-threads", "metrics-go": ""}
)

// defaultLinger is how long the endpoint waits at most, after the run,
// for two scrapes: two of Prometheus's usual 15 s scrape intervals.
const defaultLinger = 30 * time.Second

// maxLinger bounds --metrics-linger.
const maxLinger = time.Hour

// metricsFlags are --metrics, --metrics-push, --metrics-linger,
// --metrics-run and --metrics-go.
type metricsFlags struct {
	Addr      string        // serve /metrics here, "" = no endpoint
	Push      string        // remote-write URL, "" = no push
	Linger    time.Duration // the endpoint's time after the run, at most
	LingerSet bool
	Run       string // the run label, "" = made from the run
	Go        bool   // the Go runtime's and process's series too
}

// set takes one flag's value.
func (f *metricsFlags) set(name, v string) error {
	switch name {
	case "metrics":
		host, port, err := net.SplitHostPort(v)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
			return usagef("--metrics %q: expected HOST:PORT, e.g. 127.0.0.1:9464, or :9464 for every interface", v)
		}
		if host != "" && net.ParseIP(host) == nil && host != "localhost" {
			return usagef("--metrics %q: host %q is not an IP address (allowed: an IP address, localhost, or none for every interface)", v, host)
		}
		f.Addr = v
	case "metrics-push":
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--metrics-push %q: expected an http:// or https:// URL of a remote-write receiver, e.g. http://127.0.0.1:9090/api/v1/write", adapters.MaskURL(v))
		}
		f.Push = v
	case "metrics-linger":
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d < 0 || d > maxLinger {
			return usagef("--metrics-linger %q: expected a duration from 0s to 1h, e.g. 30s", v)
		}
		f.Linger, f.LingerSet = d, true
	case "metrics-run":
		if len(v) > 128 || strings.IndexFunc(v, unicode.IsControl) >= 0 {
			return usagef("--metrics-run %q: expected a label value of at most 128 characters, no control characters", v)
		}
		f.Run = v
	case "metrics-go":
		f.Go = true
	}
	return nil
}

// enabled: the run serves or pushes metrics.
func (f *metricsFlags) enabled() bool { return f.Addr != "" || f.Push != "" }

// check is what only holds for the whole command line.
func (f *metricsFlags) check() error {
	switch {
	case f.LingerSet && f.Addr == "":
		return usagef("--metrics-linger goes with --metrics ADDR (the endpoint it keeps up)")
	case !f.enabled() && (f.Run != "" || f.Go):
		which := "--metrics-run"
		if f.Run == "" {
			which = "--metrics-go"
		}
		return usagef("%s goes with --metrics ADDR or --metrics-push URL", which)
	}
	if !f.LingerSet {
		f.Linger = defaultLinger
	}
	return nil
}
