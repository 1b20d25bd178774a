package cli

import (
	"testing"
	"time"
)

// wakeups watches how late this process is woken while a run goes on, to
// tell a result the machine spoiled from one the code got wrong: a
// goroutine sleeps wakeTick at a time and keeps its longest oversleep and
// their sum. A process the machine holds up (other processes on its
// cores, the busy loops of a load test) is held up whole: its run's
// ticks, steps, paced operations and the model server's replies are late
// with the watcher. One that has too little CPU for what it runs (ten
// runs under the race detector on two cores) is late all the time.
type wakeups struct {
	quit    chan struct{}
	done    chan struct{}
	worst   time.Duration // the longest oversleep
	worstAt time.Time     // when it ended
	late    time.Duration // the oversleeps added up
	wakes   int           // wake-ups
}

// wakeTick is the watcher's sleep: short enough to see a hold-up of a few
// ticks of a run, long enough to cost nothing.
const wakeTick = 5 * time.Millisecond

// watchWakeups starts watching; stop ends it.
func watchWakeups() *wakeups {
	w := &wakeups{quit: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		timer := time.NewTimer(wakeTick)
		defer timer.Stop()
		due := time.Now().Add(wakeTick)
		for {
			select {
			case <-w.quit:
				return
			case <-timer.C:
				// Now, not the time the channel holds: the timer's, not
				// when this goroutine ran again.
				by := time.Since(due)
				if by > w.worst {
					w.worst, w.worstAt = by, time.Now()
				}
				w.late += max(by, 0)
				w.wakes++
				due = time.Now().Add(wakeTick)
				timer.Reset(wakeTick)
			}
		}
	}()
	return w
}

// stop ends the watch; the figures are read after it.
func (w *wakeups) stop() {
	close(w.quit)
	<-w.done
}

// mean is the oversleep of a wake-up on average.
func (w *wakeups) mean() time.Duration {
	if w.wakes == 0 {
		return 0
	}
	return w.late / time.Duration(w.wakes)
}

// keptUp skips t unless the machine held this process up no more than
// margin at once, and woke it no later than wakeTick on average, while
// the run went on: what the run shows then is the machine's, not the
// code's (why names what the margin protects). Late by more than its
// own sleep on average, the process was short of CPU throughout: its
// client fell behind any schedule (a quiet machine: under 1 ms; two busy
// loops on its two cores: 1-2 ms).
func (w *wakeups) keptUp(t *testing.T, margin time.Duration, why string) {
	t.Helper()
	t.Logf("the machine held this process up %v at most (until %s), %v on average (%d wake-ups of %v watched)",
		w.worst.Round(time.Millisecond), w.worstAt.Format("15:04:05.000"), w.mean().Round(10*time.Microsecond), w.wakes, wakeTick)
	if w.worst > margin {
		t.Skipf("the machine held this process up %v at once during the run, more than the %v %s: not judged on a machine that does not keep up",
			w.worst.Round(time.Millisecond), margin, why)
	}
	if w.mean() > wakeTick {
		t.Skipf("the machine woke this process %v late on average during the run, more than the watcher's %v sleep: short of CPU, it could not keep the run's schedule",
			w.mean().Round(time.Millisecond), wakeTick)
	}
}
