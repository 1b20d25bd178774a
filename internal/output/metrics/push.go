package metrics

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/exp/api/remote"
	dto "github.com/prometheus/client_model/go"

	"benchtop/adapters"
)

// The pusher sends every interval's series with remote write 1.0
// (--metrics-push URL) from a goroutine of its own. The run's hooks only
// put the gathered series in its queue, which holds pushQueue intervals
// and drops its oldest when full: a slow or failing endpoint never slows
// the run. client_golang's exp remote API sends the requests (snappy,
// the 1.0 headers, retries with backoff); the message is our own
// WriteRequest (remotewrite.go).
const (
	pushQueue   = 120 // intervals held while the endpoint is slow or down: 2 minutes at 1 s
	pushTimeout = 5 * time.Second
)

// pushBackoff retries a request that failed on the network or with a
// 5xx twice, then counts it failed: the queue holds what comes meanwhile.
var pushBackoff = remote.BackoffConfig{Min: 100 * time.Millisecond, Max: time.Second, MaxRetries: 2}

type pushItem struct {
	fams []*dto.MetricFamily
	at   time.Time
}

type pusher struct {
	api    *remote.API
	shown  string // the URL as messages show it (password masked)
	secret string // the URL's password, kept out of messages
	ctx    context.Context
	cancel context.CancelFunc
	wake   chan struct{}
	done   chan struct{}

	mu      sync.Mutex
	queue   []pushItem
	busy    bool // a request is in flight
	ok      int64
	failed  int64
	dropped int64
	failing bool // the latest request failed
	lastErr string
	closed  bool
	started bool
}

// newPusher checks url and makes the pusher; start runs it.
func newPusher(rawURL string) (*pusher, error) {
	api, err := remote.NewAPI(rawURL, remote.WithAPIPath(""), remote.WithAPIBackoff(pushBackoff),
		remote.WithAPIHTTPClient(&http.Client{Timeout: pushTimeout}))
	if err != nil {
		return nil, err
	}
	p := &pusher{api: api, shown: adapters.MaskURL(rawURL), wake: make(chan struct{}, 1), done: make(chan struct{})}
	if u, err := url.Parse(rawURL); err == nil && u.User != nil {
		p.secret, _ = u.User.Password()
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p, nil
}

func (p *pusher) start() {
	p.mu.Lock()
	p.started = true
	p.mu.Unlock()
	go p.run()
}

// enqueue queues one interval's series, dropping the oldest when the
// queue is full. It never blocks on the network.
func (p *pusher) enqueue(fams []*dto.MetricFamily, at time.Time) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	if len(p.queue) >= pushQueue {
		p.queue = p.queue[1:]
		p.dropped++
	}
	p.queue = append(p.queue, pushItem{fams, at})
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *pusher) run() {
	defer close(p.done)
	for {
		p.mu.Lock()
		if len(p.queue) == 0 {
			p.busy = false
			closed := p.closed
			p.mu.Unlock()
			if closed {
				return
			}
			select {
			case <-p.wake:
			case <-p.ctx.Done():
				return
			}
			continue
		}
		it := p.queue[0]
		p.queue = p.queue[1:]
		p.busy = true
		p.mu.Unlock()
		err := p.send(it)
		p.mu.Lock()
		if err != nil {
			p.failed++
			p.failing = true
			p.lastErr = p.clean(err)
		} else {
			p.ok++
			p.failing = false
		}
		p.mu.Unlock()
	}
}

// send writes one interval.
func (p *pusher) send(it pushItem) error {
	req := &writeRequest{series: seriesOf(it.fams, it.at)}
	_, err := p.api.Write(p.ctx, remote.WriteV1MessageType, req)
	return err
}

// clean is err in one line, the URL's password masked.
func (p *pusher) clean(err error) string {
	s := strings.Join(strings.Fields(err.Error()), " ")
	if p.secret != "" {
		s = strings.ReplaceAll(s, p.secret, "****")
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// finish stops taking intervals and waits up to wait for the queue to be
// sent; what is left then is dropped and counted.
func (p *pusher) finish(wait time.Duration) {
	p.mu.Lock()
	p.closed = true
	started := p.started
	p.mu.Unlock()
	if !started {
		return
	}
	select {
	case p.wake <- struct{}{}:
	default:
	}
	select {
	case <-p.done:
	case <-time.After(wait):
		p.cancel()
		<-p.done
	}
	p.cancel()
	p.mu.Lock()
	p.dropped += int64(len(p.queue))
	p.queue = nil
	p.mu.Unlock()
}

// counts are the requests sent, failed (after retries) and the intervals
// dropped unsent.
func (p *pusher) counts() (ok, failed, dropped int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ok, p.failed, p.dropped
}

// warning is the line the screen and the status lines show while pushes
// fail ("" when the latest one went through and none was dropped since).
func (p *pusher) warning() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.failing {
		return ""
	}
	return fmt.Sprintf("metrics push failing: %d of %d pushes failed, %d intervals dropped; last: %s",
		p.failed, p.failed+p.ok, p.dropped, p.lastErr)
}

// summary is the push's account at the end, one line.
func (p *pusher) summary() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := fmt.Sprintf("metrics push to %s: %d intervals sent", p.shown, p.ok)
	if p.failed > 0 || p.dropped > 0 {
		s += fmt.Sprintf(", %d failed, %d dropped", p.failed, p.dropped)
		if p.lastErr != "" {
			s += "; last error: " + p.lastErr
		}
	}
	return s
}

// maskedURL is a URL as messages show it: its password masked.
func maskedURL(u string) string { return adapters.MaskURL(u) }
