package engine

import (
	"context"
	"fmt"
	"time"

	"benchtop/adapters"
	"benchtop/workload"
)

// Controller is the set of live controls the TUI and scheduled steps call.
// Every method returns at once; the effect shows within one interval.
type Controller interface {
	SetThreads(n int) error
	SetTarget(opsPerSec float64) error
	SetPartitions(n int) error
	Pause()
	Resume()
	Mark(label string)
	// NewSegment starts a new segment with nothing changed.
	NewSegment()
	// Stop ends the run; the final snapshot follows.
	Stop()
}

// ValidateThreads checks a thread count (1 to MaxThreads). It and
// ValidateTarget and ValidatePartitions are the ranges every Controller
// takes, the Runner and a fleet's coordinator alike; their errors name the
// control, the value and the range.
func ValidateThreads(n int) error {
	if n < 1 || n > MaxThreads {
		return fmt.Errorf("threads: %d is out of range (1 to %d)", n, MaxThreads)
	}
	return nil
}

// ValidateTarget checks a total target rate in ops/s (0 = unlimited).
func ValidateTarget(opsPerSec float64) error {
	if opsPerSec < 0 || opsPerSec > 1e12 || opsPerSec != opsPerSec {
		return fmt.Errorf("target: %v is out of range (0 = unlimited, up to 1e12)", opsPerSec)
	}
	return nil
}

// ValidatePartitions checks a partition count.
func ValidatePartitions(n int) error {
	if n < 1 || n > MaxPartitions {
		return fmt.Errorf("partitions: %d is out of range (1 to %d)", n, MaxPartitions)
	}
	return nil
}

// FormatTarget renders a target rate: "unlimited" or the number.
func FormatTarget(t float64) string {
	if t <= 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%.0f", t)
}

var _ Controller = (*Runner)(nil)

// Interrupt ends the run like Stop, and marks the results as interrupted
// (a signal, not the planned end or the user's quit).
func (r *Runner) Interrupt() {
	r.interrupted.Store(true)
	r.Stop()
}

// Stop ends the run: workers finish their current operation, the final
// snapshot is published and Run returns.
func (r *Runner) Stop() {
	r.stopOnce.Do(func() { close(r.stopCh) })
	r.mu.Lock()
	r.stopped = true
	ph := r.cur
	r.mu.Unlock()
	if ph != nil {
		ph.stop()
	}
}

// event makes a timed event. Caller holds r.mu.
func (r *Runner) event(kind, from, to, text string) Event {
	return Event{At: time.Since(r.start), Kind: kind, From: from, To: to, Text: text}
}

// change applies a new set of Controls, recorded as e: the running phase
// gets a copy (and starts a new segment); without one, the event waits
// for the next phase. Caller holds r.mu.
func (r *Runner) change(ctl Controls, e Event) {
	r.ctl = ctl
	if r.cur != nil {
		r.cur.apply(ctl, e)
	} else {
		r.pending = append(r.pending, e)
	}
}

// note records an event that changes nothing. Caller holds r.mu.
func (r *Runner) note(e Event) {
	if r.cur != nil {
		r.cur.note(e)
	} else {
		r.pending = append(r.pending, e)
	}
}

// SetThreads changes the number of worker goroutines (1 to MaxThreads).
func (r *Runner) SetThreads(n int) error {
	if err := ValidateThreads(n); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n == r.ctl.Threads {
		return nil
	}
	ctl := r.ctl
	ctl.Threads = n
	r.change(ctl, r.event("threads", fmt.Sprint(r.ctl.Threads), fmt.Sprint(n), fmt.Sprintf("threads %d→%d", r.ctl.Threads, n)))
	return nil
}

// SetTarget changes the total target rate in ops/s (0 = unlimited).
func (r *Runner) SetTarget(opsPerSec float64) error {
	if err := ValidateTarget(opsPerSec); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if opsPerSec == r.ctl.Target {
		return nil
	}
	ctl := r.ctl
	ctl.Target = opsPerSec
	from, to := FormatTarget(r.ctl.Target), FormatTarget(opsPerSec)
	r.change(ctl, r.event("target", from, to, fmt.Sprintf("target %s→%s", from, to)))
	return nil
}

// repartitioner is what SetPartitions drives: the workload when it owns
// the partitions (the stream), else the adapter.
type repartitioner interface {
	SetPartitions(ctx context.Context, n int) error
}

// SetPartitions asks the workload or the adapter to repartition (1 to
// MaxPartitions). It returns at once; the change is made in the background
// and takes effect, as an event, when done.
func (r *Runner) SetPartitions(n int) error {
	if err := ValidatePartitions(n); err != nil {
		return err
	}
	var rp repartitioner
	if wp, ok := r.wl.(workload.Partitioned); ok {
		rp = wp
	} else if ap, ok := r.db.(adapters.Repartitioner); ok {
		rp = ap
	} else {
		return ErrCannotRepartition
	}
	r.mu.Lock()
	if n == r.wantParts {
		r.mu.Unlock()
		return nil
	}
	from := r.wantParts
	r.wantParts = n
	asked := time.Now()
	r.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		err := rp.SetPartitions(ctx, n)
		took := time.Since(asked)
		r.mu.Lock()
		defer r.mu.Unlock()
		if err != nil {
			if ap, ok := rp.(adapters.Repartitioner); ok {
				r.ctl.Partitions = ap.Partitions()
			}
			r.wantParts = r.ctl.Partitions
			r.note(r.event("error", "", "", fmt.Sprintf("partitions %d→%d failed: %v", from, n, err)))
			return
		}
		if r.ctl.Partitions == n {
			return // followed already (followPartitions): one event
		}
		ctl := r.ctl
		ctl.Partitions = n
		text := fmt.Sprintf("partitions %d→%d", from, n)
		if took >= lateChange {
			// Said, so that the segment's start is not read as the ask's.
			text += fmt.Sprintf(" (asked at %s; the change took %s)", asked.Sub(r.start).Round(100*time.Millisecond), took.Round(100*time.Millisecond))
		}
		r.change(ctl, r.event("partitions", fmt.Sprint(from), fmt.Sprint(n), text))
	}()
	return nil
}

// lateChange is how long a partition change may take before its event
// says when it was asked.
const lateChange = time.Second

// followPartitions records a partition change the workload made on its
// own (workload.PartitionWatcher: another process grew a shared stream).
func (r *Runner) followPartitions(_, to int, why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if to == r.ctl.Partitions {
		return
	}
	from := r.ctl.Partitions
	r.wantParts = to
	ctl := r.ctl
	ctl.Partitions = to
	text := fmt.Sprintf("partitions %d→%d", from, to)
	if why != "" {
		text += " (" + why + ")"
	}
	r.change(ctl, r.event("partitions", fmt.Sprint(from), fmt.Sprint(to), text))
}

// partitionsLater records that a partition change took effect later than
// it was made (workload.PartitionWatcher): an event of kind "rebalance"
// whose To is the partition count.
func (r *Runner) partitionsLater(partitions int, what string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.note(r.event("rebalance", "", fmt.Sprint(partitions), what))
}

// Pause holds all workers after their current operation.
func (r *Runner) Pause() { r.setPaused(true, "pause", "paused") }

// Resume lets paused workers go on; the pacing schedule restarts from now.
func (r *Runner) Resume() { r.setPaused(false, "resume", "resumed") }

func (r *Runner) setPaused(v bool, kind, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ctl.Paused == v {
		return
	}
	ctl := r.ctl
	ctl.Paused = v
	r.change(ctl, r.event(kind, "", "", text))
}

// Mark records a labelled mark and starts a new segment.
func (r *Runner) Mark(label string) {
	if label == "" {
		label = "mark"
	}
	r.cut("mark", label)
}

// NewSegment starts a new segment with nothing changed.
func (r *Runner) NewSegment() { r.cut("segment", "new segment") }

func (r *Runner) cut(kind, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.change(r.ctl, r.event(kind, "", "", text))
}
