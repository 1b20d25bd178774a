//go:build !linux

package engine

// sleeper naps off Linux (no eventfd and ppoll there).
type sleeper struct{ nap napper }

func newSleeper() sleeper       { return sleeper{nap: newNapper()} }
func (s sleeper) init()         {}
func (s sleeper) release()      {}
func (s sleeper) sleep(d int64) { s.nap.sleep(d) }
func (s sleeper) interrupt()    { s.nap.interrupt() }
