package engine

import (
	"io"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
)

// cleanups measures each worker's cleanup, as YCSB measures each client
// thread's DB.cleanup() under [CLEANUP]: from the moment the worker knows
// it must stop (its last operation returned) until it is gone, including
// its workload worker's Close when it has one. benchtop's workers share
// the adapter (closed once, after the run) and hold no connection of
// their own, so these times are short; they say how long the workers took
// to finish.
type cleanups struct {
	mu sync.Mutex
	h  *hdr.Histogram
}

// done measures one worker's cleanup from start (nanotime).
func (c *cleanups) done(start int64) {
	d := nanotime() - start
	c.mu.Lock()
	if c.h == nil {
		c.h = measure.NewHistogram()
	}
	if d < measure.Lowest {
		d = measure.Lowest
	}
	_ = c.h.RecordValue(min(d, measure.Highest))
	c.mu.Unlock()
}

// histogram returns a copy of the cleanups measured, nil when none.
func (c *cleanups) histogram() *hdr.Histogram {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.h == nil {
		return nil
	}
	out := measure.NewHistogram()
	measure.MergeHistogram(out, c.h)
	return out
}

// cleanupWorker is a worker's cleanup: the workload worker's Close, if it
// has one, measured.
func (p *pool) cleanupWorker(ws *wstate) {
	start := nanotime()
	if c, ok := ws.cw.(io.Closer); ok {
		_ = c.Close()
	}
	p.cleanups.done(start)
}
