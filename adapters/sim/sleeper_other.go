//go:build !linux

package sim

// sleeper naps off Linux (no eventfd and ppoll there): waits are then as
// precise as the Go runtime's timers.
type sleeper struct{ nap napper }

func newSleeper() sleeper       { return sleeper{nap: newNapper()} }
func (s sleeper) release()      {}
func (s sleeper) sleep(d int64) { s.nap.sleep(d) }
func (s sleeper) interrupt()    { s.nap.interrupt() }
