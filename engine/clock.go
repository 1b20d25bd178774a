package engine

import (
	_ "unsafe" // for go:linkname
)

// nanotime is the runtime's monotonic clock in nanoseconds. time.Now reads
// both the wall and the monotonic clock; the hot path needs only the
// monotonic one, and reading one clock instead of two is a measurable
// share of an operation against the embedded store.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64
