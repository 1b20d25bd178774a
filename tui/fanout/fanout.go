// Package fanout hands one stream of snapshots to many screens: the local
// live screen and every SSH viewer. One goroutine reads the runner's
// channel; each subscriber has a bounded channel that drops its oldest
// snapshot when the subscriber falls behind, so that a slow or frozen
// viewer never slows the run, the local screen or another viewer. A late
// subscriber gets the run so far (a bounded replay) to draw its charts.
package fanout

import (
	"sync"
	"sync/atomic"

	"benchtop/engine"
)

// ReplayCap bounds the snapshots kept for late subscribers: an hour of
// one-second intervals, the longest chart window.
const ReplayCap = 3600

// Broadcaster fans the snapshots of one channel out to subscribers.
type Broadcaster struct {
	mu     sync.Mutex
	subs   map[*Sub]struct{}
	replay []*engine.Snapshot // oldest first, at most ReplayCap
	closed bool
	done   chan struct{}
}

// Sub is one subscriber.
type Sub struct {
	b       *Broadcaster
	ch      chan *engine.Snapshot
	dropped atomic.Int64
	once    sync.Once
	// mu orders sends against Close, so that a send never hits a closed
	// channel.
	mu     sync.Mutex
	closed bool
}

// New starts reading src; the subscribers' channels are closed once src
// is.
func New(src <-chan *engine.Snapshot) *Broadcaster {
	b := &Broadcaster{subs: map[*Sub]struct{}{}, done: make(chan struct{})}
	go b.run(src)
	return b
}

func (b *Broadcaster) run(src <-chan *engine.Snapshot) {
	defer close(b.done)
	for s := range src {
		b.mu.Lock()
		if s.Phase != "" && len(b.replay) > 0 && s.Elapsed < b.replay[len(b.replay)-1].Elapsed {
			b.replay = b.replay[:0] // a new phase restarted the clock
		}
		if len(b.replay) == ReplayCap {
			copy(b.replay, b.replay[1:])
			b.replay = b.replay[:ReplayCap-1]
		}
		b.replay = append(b.replay, s)
		subs := make([]*Sub, 0, len(b.subs))
		for sub := range b.subs {
			subs = append(subs, sub)
		}
		b.mu.Unlock()
		for _, sub := range subs {
			sub.send(s)
		}
	}
	b.mu.Lock()
	b.closed = true
	subs := b.subs
	b.subs = map[*Sub]struct{}{}
	b.mu.Unlock()
	for sub := range subs {
		sub.close()
	}
}

// Done is closed once the source is drained and every subscriber closed.
func (b *Broadcaster) Done() <-chan struct{} { return b.done }

// Subscribe adds a subscriber whose channel holds up to depth snapshots
// (at least 1), and returns it with the snapshots so far, oldest first.
// After the source closed, the channel is closed at once.
func (b *Broadcaster) Subscribe(depth int) (*Sub, []*engine.Snapshot) {
	sub := &Sub{b: b, ch: make(chan *engine.Snapshot, max(1, depth))}
	b.mu.Lock()
	defer b.mu.Unlock()
	backlog := append([]*engine.Snapshot(nil), b.replay...)
	if b.closed {
		sub.close()
		return sub, backlog
	}
	b.subs[sub] = struct{}{}
	return sub, backlog
}

// Count is the number of subscribers.
func (b *Broadcaster) Count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs)
}

// C delivers the snapshots; it is closed after the last one, or by Close.
func (s *Sub) C() <-chan *engine.Snapshot { return s.ch }

// Dropped is how many snapshots this subscriber lost by falling behind.
func (s *Sub) Dropped() int64 { return s.dropped.Load() }

// Close unsubscribes; the channel is closed.
func (s *Sub) Close() {
	s.b.mu.Lock()
	delete(s.b.subs, s)
	s.b.mu.Unlock()
	s.close()
}

func (s *Sub) close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.ch)
		s.mu.Unlock()
	})
}

// send delivers snap without ever blocking: when the channel is full, the
// oldest snapshot in it makes room.
func (s *Sub) send(snap *engine.Snapshot) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	for {
		select {
		case s.ch <- snap:
			return
		default:
		}
		select {
		case <-s.ch:
			s.dropped.Add(1)
		default:
		}
	}
}
