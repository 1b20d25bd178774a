package steps

import (
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"benchtop/engine"
)

// Failure is a step the controller refused, or whose change failed later
// (a repartitioning that the database could not make).
type Failure struct {
	Step Step
	Err  error
}

// String is one line: "2s partitions=8: <cause>".
func (f Failure) String() string {
	return f.Step.String() + ": " + strings.Join(strings.Fields(f.Err.Error()), " ")
}

// Player applies steps at their offsets from the start of one phase. Wire
// OnPhase into engine.Options.OnPhase and OnSnapshot into OnSnapshot, Bind
// the Runner once it exists, and Close when the run is over.
type Player struct {
	steps  []Step
	phase  engine.Phase
	onFail func(Failure)

	mu       sync.Mutex
	ctl      engine.Controller
	started  bool
	closed   bool
	failures []Failure
	// pending are applied partition steps whose change has not shown in
	// a snapshot yet: SetPartitions works in the background.
	pending []Step

	quit chan struct{}
	done chan struct{}
}

// NewPlayer returns a player for steps, whose clock starts when phase
// starts. onFail, if not nil, is called with each failed step as it
// fails (from the player's or the sampler's goroutine).
func NewPlayer(list []Step, phase engine.Phase, onFail func(Failure)) *Player {
	s := append([]Step(nil), list...)
	Sort(s)
	return &Player{steps: s, phase: phase, onFail: onFail, quit: make(chan struct{}), done: make(chan struct{})}
}

// Bind sets the controller the steps act on. Call it before the phase
// starts.
func (p *Player) Bind(c engine.Controller) {
	p.mu.Lock()
	p.ctl = c
	p.mu.Unlock()
}

// OnPhase starts the clock when the player's phase starts (once). It
// matches engine.Options.OnPhase and returns at once.
func (p *Player) OnPhase(ph engine.Phase) {
	t0 := time.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if ph != p.phase || p.started || p.closed || len(p.steps) == 0 || p.ctl == nil {
		return
	}
	p.started = true
	go p.play(t0, p.ctl)
}

// play applies the steps in order, each at t0 plus its offset.
func (p *Player) play(t0 time.Time, ctl engine.Controller) {
	defer close(p.done)
	for _, st := range p.steps {
		if d := time.Until(t0.Add(st.At)); d > 0 {
			t := time.NewTimer(d)
			select {
			case <-p.quit:
				t.Stop()
				return
			case <-t.C:
			}
		}
		select {
		case <-p.quit:
			return
		default:
		}
		p.apply(ctl, st)
	}
}

func (p *Player) apply(ctl engine.Controller, st Step) {
	var err error
	switch st.Action {
	case Threads:
		err = ctl.SetThreads(st.N)
	case Partitions:
		// Recorded before the call: the change can show in a snapshot
		// before SetPartitions returns.
		p.mu.Lock()
		p.pending = append(p.pending, st)
		p.mu.Unlock()
		if err = ctl.SetPartitions(st.N); err != nil {
			p.settle(st.N)
		}
	case Target:
		err = ctl.SetTarget(st.Rate)
	case Pause:
		ctl.Pause()
	case Resume:
		ctl.Resume()
	case Mark:
		label := st.Label
		if label == "" {
			label = "mark"
		}
		ctl.Mark(label)
	case Stop:
		ctl.Stop()
	}
	if err != nil {
		p.fail(st, err)
	}
}

// settle takes the oldest pending partition step to n off the list.
func (p *Player) settle(n int) (Step, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, st := range p.pending {
		if st.N == n {
			p.pending = append(p.pending[:i], p.pending[i+1:]...)
			return st, true
		}
	}
	return Step{}, false
}

func (p *Player) fail(st Step, err error) {
	f := Failure{Step: st, Err: err}
	p.mu.Lock()
	p.failures = append(p.failures, f)
	p.mu.Unlock()
	if p.onFail != nil {
		p.onFail(f)
	}
}

// OnSnapshot watches the events for the outcome of partition steps: the
// engine reports a failed repartitioning as an "error" event "partitions
// A→B failed: cause". It matches engine.Options.OnSnapshot.
func (p *Player) OnSnapshot(s *engine.Snapshot) {
	for _, e := range s.Events {
		switch {
		case e.Kind == "partitions":
			if n, err := strconv.Atoi(e.To); err == nil {
				p.settle(n)
			}
		case e.Kind == "error" && strings.HasPrefix(e.Text, "partitions "):
			n, cause := parsePartitionFailure(e.Text)
			if st, ok := p.settle(n); ok {
				p.fail(st, errors.New(cause))
			}
		}
	}
}

// parsePartitionFailure reads "partitions 1→8 failed: cause".
func parsePartitionFailure(text string) (int, string) {
	head, cause, ok := strings.Cut(text, " failed: ")
	if !ok {
		return 0, text
	}
	_, to, _ := strings.Cut(head, "→")
	n, err := strconv.Atoi(strings.TrimSpace(to))
	if err != nil {
		return 0, cause
	}
	return n, cause
}

// Close stops the clock: no step is applied after Close returns.
func (p *Player) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	started := p.started
	p.mu.Unlock()
	close(p.quit)
	if started {
		<-p.done
	}
}

// Failures returns the steps that failed so far, in the order they failed.
func (p *Player) Failures() []Failure {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Failure(nil), p.failures...)
}
