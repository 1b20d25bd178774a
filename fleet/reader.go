package fleet

import (
	"io"
	"time"

	"benchtop/engine"
)

// errEOF is a stream closed by the peer.
var errEOF = io.EOF

// inMsg is one message from an agent's reader goroutine to the merge
// loop.
type inMsg struct {
	a     *agent
	iv    *Interval
	phase engine.Phase // a PhaseStart's
	at    time.Time    // a PhaseStart's, the agent's clock
	done  *Done
	err   error
}

// reader decodes one agent's messages (histograms included, so that the
// decoding spreads over goroutines) and hands them to the merge loop.
func (c *Coordinator) reader(a *agent) {
	for {
		env, err := a.conn.Recv()
		if err != nil {
			c.inbox <- inMsg{a: a, err: err}
			return
		}
		var m inMsg
		switch env.Type {
		case TypeInterval:
			iv, err := decodeInterval(env.Body)
			m = inMsg{a: a, iv: iv, err: err}
		case TypePhase:
			var p PhaseStart
			err = decode(env, TypePhase, &p)
			m = inMsg{a: a, phase: p.Phase, at: p.At, err: err}
		case TypeDone:
			var d Done
			err = decode(env, TypeDone, &d)
			m = inMsg{a: a, done: &d, err: err}
		default:
			err = decode(env, TypeInterval, nil) // a Refuse or a stray message
			m = inMsg{a: a, err: err}
		}
		c.inbox <- m
		if m.err != nil || m.done != nil {
			return
		}
	}
}
