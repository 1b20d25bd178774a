package findmax

import (
	"errors"
	"sync"

	"benchtop/engine"
)

// controls makes the search's controller calls from a goroutine of its
// own: the search decides in the sampler's snapshot hook, which must not
// wait for a controller (a fleet's sends to its agents).
type controls struct {
	ch   chan func(engine.Controller) error
	done chan struct{}

	mu  sync.Mutex
	err error
}

// controlQueue bounds the calls waiting: a search asks for two at most
// per interval.
const controlQueue = 16

func newControls() *controls {
	return &controls{ch: make(chan func(engine.Controller) error, controlQueue), done: make(chan struct{})}
}

// start runs the calls on ctl until close.
func (c *controls) start(ctl engine.Controller) {
	go func() {
		defer close(c.done)
		for f := range c.ch {
			if err := f(ctl); err != nil {
				c.fail(err)
			}
		}
	}()
}

// do queues a call.
func (c *controls) do(f func(engine.Controller) error) {
	select {
	case c.ch <- f:
	default:
		c.fail(errors.New("find-max: the controller fell behind"))
	}
}

func (c *controls) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
}

// failed is the first error a call returned, nil when none did.
func (c *controls) failed() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// close ends the goroutine once the calls queued are made; started says
// whether start ran.
func (c *controls) close(started bool) {
	close(c.ch)
	if started {
		<-c.done
	}
}

func setThreads(n int) func(engine.Controller) error {
	return func(c engine.Controller) error { return c.SetThreads(n) }
}

func setTarget(r float64) func(engine.Controller) error {
	return func(c engine.Controller) error { return c.SetTarget(r) }
}

func newSegment(c engine.Controller) error { c.NewSegment(); return nil }

func stop(c engine.Controller) error { c.Stop(); return nil }

// sync waits until the calls queued so far are made (for tests, which
// step a search interval by interval).
func (c *controls) sync() {
	ch := make(chan struct{})
	c.do(func(engine.Controller) error { close(ch); return nil })
	<-ch
}
