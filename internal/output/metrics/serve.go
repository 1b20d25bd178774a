package metrics

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// endpoint is the HTTP server of --metrics: /metrics in the Prometheus
// text format, or OpenMetrics when the scraper asks for it (Prometheus
// does), and a line at / saying where the metrics are.
type endpoint struct {
	ln      net.Listener
	srv     *http.Server
	scrapes atomic.Int64
	mu      sync.Mutex
	scraped chan struct{} // closed and replaced at every scrape
	done    chan struct{}
}

// listen opens addr now, so that an address in use is told before the
// run starts.
func listen(addr string, g prometheus.Gatherer) (*endpoint, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Err != nil {
			err = oe.Err
		}
		return nil, err
	}
	e := &endpoint{ln: ln, scraped: make(chan struct{}), done: make(chan struct{})}
	h := promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true, ErrorHandling: promhttp.ContinueOnError,
		// A scrape is tens of KB: compressing it would cost the client's
		// CPU more than it saves of its network.
		DisableCompression: true})
	mux := http.NewServeMux()
	mux.Handle("/metrics", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		e.scrapes.Add(1)
		e.mu.Lock()
		close(e.scraped)
		e.scraped = make(chan struct{})
		e.mu.Unlock()
	}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "benchtop: the run's metrics are at /metrics (docs/metrics.md)")
	})
	e.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	return e, nil
}

func (e *endpoint) serve() {
	go func() {
		defer close(e.done)
		_ = e.srv.Serve(e.ln)
	}()
}

// addr is the address listened on (the port chosen for :0).
func (e *endpoint) addr() string { return e.ln.Addr().String() }

// next is closed at the next scrape.
func (e *endpoint) next() <-chan struct{} {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.scraped
}

// linger keeps serving until the endpoint has answered scrapes in all
// (counted, not waited for one by one: two scrapes that came before the
// wait began count), at most for d, or until stop is closed.
func (e *endpoint) linger(scrapes int64, d time.Duration, stop <-chan struct{}) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		// The channel before the count: a scrape counts itself before it
		// closes the channel, so none falls between the two.
		next := e.next()
		if e.scrapes.Load() >= scrapes {
			return
		}
		select {
		case <-next:
		case <-t.C:
			return
		case <-stop:
			return
		}
	}
}

func (e *endpoint) close() {
	_ = e.srv.Close()
	<-e.done
}
