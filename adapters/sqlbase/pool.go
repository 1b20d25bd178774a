package sqlbase

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
)

// ErrClosed is returned by Get after Close.
var ErrClosed = errors.New("the adapter is closed")

// Pool holds a SQL adapter's connections: one per worker at a time, opened
// when no idle one is there and kept idle afterwards, so that the pool
// follows the number of threads (at start, Warm opens threadcount of
// them; a live + opens more as the new workers ask). The server's own
// limit (max_connections) is the only one: past it, the connection
// attempt fails with the server's word, counted as an unavailable error.
//
// A hand-written channel of idle connections rather than pgxpool or
// database/sql: both adapters keep per-connection prepared statements of
// their own on a driver-level connection, which neither pool hands out
// without a cost per operation (a checkout object, a reset, a stale
// check), and a channel is the whole of what is needed.
type Pool[C any] struct {
	idle   chan C
	dial   func(ctx context.Context) (C, error)
	shut   func(C)
	closed atomic.Bool
	open   atomic.Int64
}

// MaxIdle is the most idle connections a pool keeps (one per worker: the
// engine's thread limit).
const MaxIdle = 4096

// NewPool makes a pool that opens connections with dial and closes them
// with shut.
func NewPool[C any](dial func(ctx context.Context) (C, error), shut func(C)) *Pool[C] {
	return &Pool[C]{idle: make(chan C, MaxIdle), dial: dial, shut: shut}
}

// Get returns an idle connection, or a new one.
func (p *Pool[C]) Get(ctx context.Context) (C, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	var zero C
	if p.closed.Load() {
		return zero, ErrClosed
	}
	c, err := p.dial(ctx)
	if err != nil {
		return zero, err
	}
	p.open.Add(1)
	return c, nil
}

// Put gives a connection back; a bad one (broken, or in an unknown state)
// is closed.
func (p *Pool[C]) Put(c C, bad bool) {
	if bad || p.closed.Load() {
		p.discard(c)
		return
	}
	select {
	case p.idle <- c:
	default:
		p.discard(c)
		return
	}
	if p.closed.Load() {
		p.drain() // Close ran while we put it back
	}
}

func (p *Pool[C]) discard(c C) {
	p.open.Add(-1)
	p.shut(c)
}

func (p *Pool[C]) drain() {
	for {
		select {
		case c := <-p.idle:
			p.discard(c)
		default:
			return
		}
	}
}

// Open is the number of connections open now.
func (p *Pool[C]) Open() int { return int(p.open.Load()) }

// Warm opens n connections (at most 8 at a time) and leaves them idle. The
// first failure is returned, after every attempt has ended.
func (p *Pool[C]) Warm(ctx context.Context, n int) error {
	n = min(n, MaxIdle)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	sem := make(chan struct{}, 8)
	conns := make([]C, 0, n)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed {
			<-sem
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := p.Get(ctx)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
				}
				return
			}
			conns = append(conns, c)
		})
	}
	wg.Wait()
	for _, c := range conns {
		p.Put(c, false)
	}
	return first
}

// Close closes the idle connections, and each busy one when it comes back.
func (p *Pool[C]) Close() {
	p.closed.Store(true)
	p.drain()
}
