package cassandra

import (
	"context"
	"net"
	"sync/atomic"
	"time"
)

// quietDialer dials the native port and wraps each connection in a
// quietConn.
type quietDialer struct {
	d       net.Dialer
	timeout time.Duration // the write deadline's horizon
}

func (q *quietDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := q.d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &quietConn{Conn: c, timeout: q.timeout}, nil
}

// quietConn spares the runtime's timers the deadlines gocql sets around
// every request: it sets a read deadline before each frame it reads and
// clears it after the frame's header, and a write deadline before each
// request it writes (three timer updates per operation, a tenth of the
// client's CPU per operation here). Reads get none: each request has a
// timer of its own (cassandra.readtimeoutmillis) that fails it, too many
// such timeouts close the connection (which ends a stuck read), and TCP
// keep-alives find a dead peer. Writes keep a deadline, moved forward
// only when less than half of the timeout is left: a write to a peer
// that stopped reading still fails within the timeout.
type quietConn struct {
	net.Conn
	timeout time.Duration
	until   atomic.Int64 // the write deadline applied, in Unix ns
}

// SetWriteDeadline applies a deadline of now + timeout when the one
// applied is less than half the timeout away.
func (q *quietConn) SetWriteDeadline(time.Time) error {
	if q.timeout <= 0 {
		return nil
	}
	now := time.Now()
	if q.until.Load()-now.UnixNano() > int64(q.timeout/2) {
		return nil
	}
	t := now.Add(q.timeout)
	q.until.Store(t.UnixNano())
	return q.Conn.SetWriteDeadline(t)
}

// SetReadDeadline is not applied (see quietConn).
func (q *quietConn) SetReadDeadline(time.Time) error { return nil }

// SetDeadline is SetWriteDeadline's rule for writes; reads get none.
func (q *quietConn) SetDeadline(t time.Time) error { return q.SetWriteDeadline(t) }
