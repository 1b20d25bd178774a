package redis

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// The lean client (redis.client=benchtop, the default) carries the
// key-value operations of the run phase (Read, Scan, Update, Insert,
// Delete): one command (or one MULTI/EXEC, or one pipeline), one write
// system call and, most often, one read of the reply (the write made from
// inside the reply's wait: see connReader), on a connection that belongs
// to the calling goroutine for the operation. go-redis v9, kept for batched loads and
// streams, costs about 1-2 µs of client CPU more per operation on this
// path: a pool health check that is one more system call per command (a
// non-blocking MSG_PEEK recvfrom, unconditional in v9.23), its hooks and
// bookkeeping, and a map or a []any per reply: 12-13 allocations per
// one-field read or update against 1 and 0 here (BenchmarkRead1Field and
// the others in bench_test.go; docs/performance.md). rueidis with
// auto-pipelining off costs the same CPU as this client on that path
// (scripts/redis-clients), with 4 allocations per read; this one was
// kept so that the adapter does not carry a second Redis library.

var (
	errPoolClosed  = errors.New("redis: client closed")
	errPoolTimeout = errors.New("redis: no free connection in time")
)

// leanConn is one connection and its buffers.
type leanConn struct {
	nc  net.Conn
	cr  *connReader
	rd  *respReader
	wb  cmdBuf
	bad bool      // an I/O or protocol error: closed when put back
	dl  time.Time // the deadline set on nc
}

// deadlineSlack is how much earlier than the timeout a connection's
// deadline may fall: a deadline is set again only when the one in force
// is nearer than timeout - deadlineSlack, so that a busy connection sets
// one every 10 ms rather than one per operation (SetDeadline moves two of
// the runtime's timers, under the descriptor's lock). An operation is then
// cut off between timeout - 10 ms and timeout after it began.
const deadlineSlack = 10 * time.Millisecond

// leanPool hands out connections, at most size of them open at once.
type leanPool struct {
	cfg    Config
	idle   chan *leanConn
	slots  chan struct{} // one token per open connection
	closed atomic.Bool
	mu     sync.Mutex   // Close against put
	dials  atomic.Int64 // connections opened, for the tests
}

const leanReadBuffer = 8 << 10

func newLeanPool(cfg Config) *leanPool {
	return &leanPool{cfg: cfg, idle: make(chan *leanConn, cfg.PoolSize), slots: make(chan struct{}, cfg.PoolSize)}
}

// get returns an idle connection, or opens one while fewer than the pool
// size are open, or waits for one (at most the timeout).
func (p *leanPool) get(ctx context.Context) (*leanConn, error) {
	select {
	case c := <-p.idle:
		return c, nil
	default:
	}
	if p.closed.Load() {
		return nil, errPoolClosed
	}
	select {
	case c := <-p.idle:
		return c, nil
	case p.slots <- struct{}{}:
		c, err := p.dial(ctx)
		if err != nil {
			<-p.slots
			return nil, err
		}
		return c, nil
	default:
	}
	t := time.NewTimer(p.cfg.Timeout)
	defer t.Stop()
	select {
	case c := <-p.idle:
		return c, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errPoolTimeout
	}
}

// put returns c to the pool, or closes it when it is broken or the pool is.
func (p *leanPool) put(c *leanConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c.bad || p.closed.Load() {
		c.nc.Close()
		<-p.slots
		return
	}
	p.idle <- c // never blocks: at most cap(slots) connections exist
}

// Close closes the idle connections; those in use close when put back.
func (p *leanPool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed.Swap(true) {
		return
	}
	for {
		select {
		case c := <-p.idle:
			c.nc.Close()
			<-p.slots
		default:
			return
		}
	}
}

// dial connects, authenticates and selects the database.
func (p *leanPool) dial(ctx context.Context) (*leanConn, error) {
	p.dials.Add(1)
	d := net.Dialer{Timeout: p.cfg.Timeout}
	nc, err := d.DialContext(ctx, "tcp", p.cfg.Addr)
	if err != nil {
		return nil, err
	}
	c := &leanConn{nc: nc, cr: newConnReader(nc)}
	c.rd = newRespReader(c.cr, leanReadBuffer)
	b := c.wb[:0]
	n := 0
	if p.cfg.Password != "" {
		if p.cfg.Username != "" {
			b = b.cmd(3).str("AUTH").str(p.cfg.Username).str(p.cfg.Password)
		} else {
			b = b.cmd(2).str("AUTH").str(p.cfg.Password)
		}
		n++
	}
	if p.cfg.DB != 0 {
		b = b.cmd(2).str("SELECT").str(fmt.Sprint(p.cfg.DB))
		n++
	}
	c.wb = b
	if n > 0 {
		err := c.send(ctx, p.cfg.Timeout)
		for i := 0; i < n && err == nil; i++ {
			_, err = c.rd.expect('+')
		}
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("connection setup (AUTH/SELECT): %w", err)
		}
	}
	return c, nil
}

// send writes the commands in c.wb, after setting the connection's
// deadline for this operation (the context's, if sooner than timeout).
// With nothing left unread, the write is handed to the reply's first read
// (see connReader), so that c.wb must not change until the reply is read.
func (c *leanConn) send(ctx context.Context, timeout time.Duration) error {
	now := time.Now()
	dl := now.Add(timeout)
	d, ok := ctx.Deadline()
	switch {
	case ok && d.Before(dl):
		dl = d
	case c.dl.Sub(now) >= timeout-min(deadlineSlack, timeout/2) && (c.dl.Sub(now) <= timeout):
		dl = c.dl // the one in force will do
	}
	if !dl.Equal(c.dl) {
		if err := c.nc.SetDeadline(dl); err != nil {
			return err
		}
		c.dl = dl
	}
	if c.rd.rd.Buffered() == 0 && c.cr.deferWrite(c.wb) {
		return nil
	}
	_, err := c.nc.Write(c.wb)
	return err
}

// do runs one operation: build writes its commands into the buffer, read
// parses the replies. A server error reply leaves the connection usable;
// any other error closes it.
func (p *leanPool) do(ctx context.Context, build func(cmdBuf) cmdBuf, read func(*respReader) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c, err := p.get(ctx)
	if err != nil {
		return err
	}
	c.wb = build(c.wb[:0])
	if err = c.send(ctx, p.cfg.Timeout); err == nil {
		err = read(c.rd)
	}
	if _, ok := err.(serverError); err != nil && !ok {
		c.bad = true
	}
	if cap(c.wb) > 64<<10 {
		c.wb = nil // a large record's buffer is not kept
	}
	p.put(c)
	return err
}
