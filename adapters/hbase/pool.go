package hbase

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"benchtop/adapters/hbase/thrift2"
)

// A Thrift client is one connection carrying one call at a time, so the
// adapter keeps a pool of them. With no limit (hbase.thrift.poolsize=0) a
// caller that finds no idle connection dials one: one connection per
// concurrent worker, as YCSB keeps one table handle per thread. With a
// limit, callers wait for a connection, and that wait is part of the
// operation's latency, never hidden from it.

// conn is one connection to the gateway.
type conn struct {
	nc       net.Conn
	client   *thrift2.THBaseServiceClient
	lastUsed time.Time
}

// pool hands out connections, most recently used first (so that spare
// ones age out).
type pool struct {
	cfg   Config
	sem   chan struct{} // nil when unbounded
	dials chan struct{} // dials in flight, at most maxDials
	mu    sync.Mutex
	idle  []*conn
	open  int // connections in existence, idle or in use
	shut  bool
}

// maxDials is how many connections the pool dials at once. A burst of
// workers that all find no idle connection (1024 at a run's start) would
// otherwise send 1024 SYNs to one listening socket, whose accept queue
// (the gateway's Java default: 50) drops those it cannot hold; their
// retries come 1 s and 3 s later, and a loaded gateway left dials to time
// out (hbase.thrift.connecttimeout, 5 s) in CI. Dials past the limit wait
// for a slot, inside the operation's latency as the dial itself is.
const maxDials = 32

func newPool(cfg Config) *pool {
	p := &pool{cfg: cfg, dials: make(chan struct{}, maxDials)}
	if cfg.PoolSize > 0 {
		p.sem = make(chan struct{}, cfg.PoolSize)
	}
	return p
}

var errClosed = errors.New("hbase: adapter closed")

// get returns a connection, dialling one if none is idle.
func (p *pool) get(ctx context.Context) (*conn, error) {
	if p.sem != nil {
		select {
		case p.sem <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for one of %d connections: %w", p.cfg.PoolSize, ctx.Err())
		}
	}
	now := time.Now()
	p.mu.Lock()
	if p.shut {
		p.mu.Unlock()
		p.release()
		return nil, errClosed
	}
	for len(p.idle) > 0 {
		c := p.idle[len(p.idle)-1]
		p.idle = p.idle[:len(p.idle)-1]
		if now.Sub(c.lastUsed) < p.cfg.MaxIdle {
			p.mu.Unlock()
			return c, nil
		}
		// The gateway drops connections idle for a while
		// (hbase.thrift.server.socket.read.timeout, 60 s): don't try.
		p.open--
		c.nc.Close()
	}
	p.open++
	p.mu.Unlock()
	c, err := p.dial(ctx)
	if err != nil {
		p.mu.Lock()
		p.open--
		p.mu.Unlock()
		p.release()
		return nil, err
	}
	return c, nil
}

// dial dials a connection once a dial slot is free.
func (p *pool) dial(ctx context.Context) (*conn, error) {
	select {
	case p.dials <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting to dial %s: %w", p.cfg.Addr, ctx.Err())
	}
	defer func() { <-p.dials }()
	return dial(ctx, p.cfg)
}

// put returns c to the pool, or closes it when it is not known to be
// clean (a call failed mid-way, or was interrupted).
func (p *pool) put(c *conn, healthy bool) {
	p.mu.Lock()
	if healthy && !p.shut {
		c.lastUsed = time.Now()
		p.idle = append(p.idle, c)
	} else {
		p.open--
		c.nc.Close()
	}
	p.mu.Unlock()
	p.release()
}

func (p *pool) release() {
	if p.sem != nil {
		<-p.sem
	}
}

// close closes the idle connections; connections in use are closed when
// they are put back.
func (p *pool) close() {
	p.mu.Lock()
	p.shut = true
	for _, c := range p.idle {
		c.nc.Close()
		p.open--
	}
	p.idle = nil
	p.mu.Unlock()
}

// stats reports connections open and idle, for tests.
func (p *pool) stats() (open, idle int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.open, len(p.idle)
}

// dial connects to the gateway and wraps the connection in the configured
// Thrift transport and protocol.
func dial(ctx context.Context, cfg Config) (*conn, error) {
	d := net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return nil, err // a *net.OpError, which names the address
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
	}
	tconf := &thrift.TConfiguration{}
	var t thrift.TTransport = &netTransport{nc}
	if cfg.Framed {
		t = thrift.NewTFramedTransportConf(t, tconf)
	} else {
		t = thrift.NewTBufferedTransport(t, 16<<10)
	}
	var in, out thrift.TProtocol
	if cfg.Compact {
		in, out = thrift.NewTCompactProtocolConf(t, tconf), thrift.NewTCompactProtocolConf(t, tconf)
	} else {
		in, out = thrift.NewTBinaryProtocolConf(t, tconf), thrift.NewTBinaryProtocolConf(t, tconf)
	}
	return &conn{nc: nc, client: thrift2.NewTHBaseServiceClient(thrift.NewTStandardClient(in, out))}, nil
}

// netTransport is a thrift.TTransport on a net.Conn that leaves the
// connection's deadline alone. thrift.TSocket sets a fresh deadline on
// every read, which would override the one the adapter sets per call from
// the operation's context.
type netTransport struct{ net.Conn }

func (t *netTransport) Open() error                  { return nil }
func (t *netTransport) IsOpen() bool                 { return true }
func (t *netTransport) Flush(context.Context) error  { return nil }
func (t *netTransport) RemainingBytes() (num uint64) { return ^uint64(0) }

// longAgo is a deadline in the past: it interrupts blocked I/O at once.
var longAgo = time.Unix(1, 0)

// call runs fn on a pooled connection under a deadline: the context's, or
// hbase.thrift.timeout from now if that comes first. Cancelling the
// context interrupts the call. The connection goes back to the pool only
// when the call ended cleanly: with a result, or with an exception the
// gateway sent in full (TIOError, TIllegalArgument).
func (db *DB) call(ctx context.Context, fn func(ctx context.Context, c *thrift2.THBaseServiceClient) error) error {
	return db.callWithin(ctx, db.cfg.Timeout, fn)
}

// callWithin is call with limit in place of hbase.thrift.timeout: the
// table's creation waits longer than an operation (createTableWait).
func (db *DB) callWithin(ctx context.Context, limit time.Duration, fn func(ctx context.Context, c *thrift2.THBaseServiceClient) error) error {
	c, err := db.pool.get(ctx)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(limit)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.nc.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { c.nc.SetDeadline(longAgo) })
	err = fn(ctx, c.client)
	interrupted := !stop()
	db.pool.put(c, !interrupted && (err == nil || isServerException(err)))
	if interrupted && ctx.Err() != nil {
		if err == nil {
			return nil // the call completed just as the context ended
		}
		return fmt.Errorf("%w (%v)", ctx.Err(), err)
	}
	return err
}
