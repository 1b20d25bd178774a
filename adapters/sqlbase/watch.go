package sqlbase

import (
	"context"
	"errors"
	"net"
	"runtime"
	"sync/atomic"
	"time"
)

// Watcher ends a connection's exchange with the server when the context
// of its operations ends, by putting the socket's deadline in the past.
// It is armed once per context, not once per operation: the engine hands
// every operation of a phase the same context, and a context.AfterFunc per
// operation (an allocation, and a lock on that context shared by every
// worker) was 3.6 % of the postgres adapter's client CPU. A Watcher
// belongs to one connection; its methods are called by the connection's
// one user at a time.
type Watcher struct {
	nc    net.Conn
	done  <-chan struct{} // the armed context's
	stop  func() bool
	fired atomic.Bool // the armed context ended and the deadline is set
}

// NewWatcher watches for nc.
func NewWatcher(nc net.Conn) *Watcher { return &Watcher{nc: nc} }

// longAgo is a deadline in the past: every pending read and write fails.
var longAgo = time.Unix(1, 0)

// Arm makes ctx the context whose end interrupts the connection, unless
// it is already (contexts are told apart by their Done channel). It
// returns ctx's error when ctx has ended already.
func (w *Watcher) Arm(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	done := ctx.Done()
	if done == w.done {
		return nil
	}
	w.disarm()
	if done == nil {
		return nil
	}
	w.done = done
	w.stop = context.AfterFunc(ctx, func() {
		_ = w.nc.SetDeadline(longAgo)
		w.fired.Store(true)
	})
	return nil
}

// disarm forgets the armed context; if it ended (an earlier phase's), the
// deadline it set is cleared once its function has run.
func (w *Watcher) disarm() {
	if w.stop != nil && !w.stop() {
		for !w.fired.Load() {
			runtime.Gosched()
		}
		_ = w.nc.SetDeadline(time.Time{})
	}
	w.fired.Store(false)
	w.done, w.stop = nil, nil
}

// Interrupted says, after an operation, whether the armed context ended:
// the exchange may have been cut, so the connection is no longer in a
// known state.
func (w *Watcher) Interrupted() bool {
	select {
	case <-w.done: // a nil channel (nothing armed) is never ready
		return true
	default:
		return false
	}
}

// After is an operation's error as the connection's user reports it: when
// the armed context ended, its error joined to the one the cut exchange
// gave, and bad set (the connection is in no known state).
func (w *Watcher) After(ctx context.Context, err error, bad *bool) error {
	if err == nil || !w.Interrupted() {
		return err
	}
	*bad = true
	return errors.Join(ctx.Err(), err)
}

// Stop disarms the watcher (the connection is being closed).
func (w *Watcher) Stop() {
	if w.stop != nil {
		w.stop()
	}
	w.done, w.stop = nil, nil
}
