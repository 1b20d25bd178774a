package cassandra

import (
	"context"
	"net"
	"sync"
	"time"
)

// batchDialer dials the native port and wraps each connection in a
// batchConn.
type batchDialer struct {
	d       net.Dialer
	timeout time.Duration // a batch's write deadline
}

func (b *batchDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := b.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return newBatchConn(c, b.timeout), nil
}

// batchConn sends what the requests of many workers write in as few
// system calls as the network allows, without holding any of them back:
// gocql writes each request under a lock of its connection, one at a
// time, each its own write(2) (its own coalescing holds every request up
// to a fixed delay instead, 200 µs by default, which at one worker cut
// the rate by 3-4x here). Write copies the request into a buffer and
// returns; one goroutine per connection writes whatever has gathered,
// at once when idle, else right after its previous write: under load a
// write(2) carries the requests that came while the last one ran (the
// natural batching of Netty, which the Java driver uses). A failed write
// closes the connection, so that gocql's reader fails the requests in
// flight, and fails every later Write.
type batchConn struct {
	net.Conn
	timeout time.Duration

	mu      sync.Mutex
	pending []byte
	err     error
	wake    chan struct{} // capacity 1: the writer has something to write
	done    chan struct{} // closed by Close
	closed  bool
}

func newBatchConn(c net.Conn, timeout time.Duration) *batchConn {
	b := &batchConn{Conn: c, timeout: timeout, wake: make(chan struct{}, 1), done: make(chan struct{})}
	go b.writer()
	return b
}

// Write queues p for the writer goroutine.
func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	if b.err != nil {
		err := b.err
		b.mu.Unlock()
		return 0, err
	}
	was := len(b.pending)
	b.pending = append(b.pending, p...)
	b.mu.Unlock()
	if was == 0 {
		select {
		case b.wake <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// writer writes what gathered until the connection closes or fails.
func (b *batchConn) writer() {
	var out []byte
	var until time.Time
	for {
		select {
		case <-b.wake:
		case <-b.done:
			return
		}
		for {
			b.mu.Lock()
			out, b.pending = b.pending, out[:0]
			b.mu.Unlock()
			if len(out) == 0 {
				break
			}
			// A deadline for the write, moved forward only when less than
			// half of the timeout is left (a timer update costs).
			if now := time.Now(); b.timeout > 0 && until.Sub(now) < b.timeout/2 {
				until = now.Add(b.timeout)
				_ = b.Conn.SetWriteDeadline(until)
			}
			if _, err := b.Conn.Write(out); err != nil {
				b.mu.Lock()
				b.err = err
				b.mu.Unlock()
				_ = b.Conn.Close()
				return
			}
			if cap(out) > 1<<20 {
				out = nil // a burst's buffer is not kept
			}
		}
	}
}

// SetWriteDeadline is the writer's business: a write to a peer that
// stopped reading fails within the timeout.
func (b *batchConn) SetWriteDeadline(time.Time) error { return nil }

// SetReadDeadline is not applied: gocql sets one before and clears it
// after every frame it reads (two updates of the runtime's timers per
// response), while each request has a timer of its own
// (cassandra.readtimeoutmillis) that fails it, and too many such
// timeouts close the connection; TCP keep-alives find a dead peer.
func (b *batchConn) SetReadDeadline(time.Time) error { return nil }

// SetDeadline is SetReadDeadline and SetWriteDeadline: not applied.
func (b *batchConn) SetDeadline(time.Time) error { return nil }

// Close stops the writer and closes the connection.
func (b *batchConn) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	if b.err == nil {
		b.err = net.ErrClosed
	}
	b.mu.Unlock()
	close(b.done)
	return b.Conn.Close()
}
