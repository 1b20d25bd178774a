package tui

import (
	"fmt"
	"math"
	"strconv"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"benchtop/engine"
	"benchtop/tui/format"
)

// This file is where a key or a prompt command becomes a call of the
// engine's Controller (opts.Control): update.go decides which control a
// key asks for, the setters here check it, record the value asked for
// (pending, model.go) so that the header shows it at once, and return the
// call as a command; controlDone shows how it ended.

// Limits of the live controls: the engine's.
const (
	MaxThreads    = engine.MaxThreads
	MaxPartitions = engine.MaxPartitions
)

// stopTimeout is how long q waits for the final snapshot.
const stopTimeout = 5 * time.Second

type (
	// controlMsg is the end of a controller call.
	controlMsg struct {
		what   string
		notice string // shown on success, if any
		err    error
	}
	// stopTimeoutMsg: the final snapshot did not come in time after q.
	stopTimeoutMsg struct{}
)

// control runs a controller call in its own goroutine, so that Update never
// waits for the engine.
func control(what, notice string, f func() error) tea.Cmd {
	return func() tea.Msg {
		return controlMsg{what: what, notice: notice, err: f()}
	}
}

// controlDone shows how a controller call ended: a refusal gives up the
// value asked for and says why; a success shows its notice, if any.
func (m *Model) controlDone(msg controlMsg) tea.Cmd {
	if msg.err != nil {
		switch msg.what {
		case "threads":
			m.threads = pending[int]{}
		case "partitions":
			m.partitions = pending[int]{}
		case "target":
			m.target = pending[float64]{}
		}
		return m.setNotice(msg.what + ": " + msg.err.Error())
	}
	if msg.notice != "" {
		return m.setNotice(msg.notice)
	}
	return nil
}

func clamp(n, lo, hi int) int { return min(max(n, lo), hi) }

func (m *Model) setThreads(n int) tea.Cmd {
	cur := m.curThreads()
	n = clamp(n, 1, MaxThreads)
	if n == cur {
		return m.setNotice(fmt.Sprintf("threads already at %d (limits 1..%d)", cur, MaxThreads))
	}
	m.threads.ask(n)
	m.rebuild()
	ctl := m.opts.Control
	return control("threads", "", func() error { return ctl.SetThreads(n) })
}

func (m *Model) setPartitions(n int) tea.Cmd {
	if !m.opts.Info.CanRepartition {
		return m.setNotice("partitions: this adapter cannot repartition (" + m.opts.Info.Adapter + ")")
	}
	cur := m.curPartitions()
	n = clamp(n, 1, MaxPartitions)
	if n == cur {
		return m.setNotice(fmt.Sprintf("partitions already at %d (limits 1..%d)", cur, MaxPartitions))
	}
	m.partitions.ask(n)
	m.rebuild()
	ctl := m.opts.Control
	return control("partitions", "", func() error { return ctl.SetPartitions(n) })
}

// stepTarget multiplies the target by f. From unlimited, t starts at the
// rate achieved in the last interval (what the run does now, held), and T
// at f times that rate.
func (m *Model) stepTarget(f float64) tea.Cmd {
	base := m.curTarget()
	if base <= 0 {
		if s := m.last(); s != nil {
			base = s.Total.Interval.Rate
		}
		if base <= 0 {
			return m.setNotice("target: no rate measured yet to start from")
		}
		if f > 1 {
			f = 1
		}
	}
	return m.setTarget(math.Max(1, math.Round(base*f)))
}

func (m *Model) setTarget(t float64) tea.Cmd {
	if m.last() != nil && t == m.curTarget() {
		return m.setNotice("target already " + format.Target(t))
	}
	m.target.ask(t)
	m.rebuild()
	ctl := m.opts.Control
	return control("target", "target → "+format.Target(t), func() error { return ctl.SetTarget(t) })
}

// togglePause pauses a running run and resumes a paused one.
func (m *Model) togglePause() tea.Cmd {
	ctl := m.opts.Control
	p := !m.curPaused()
	m.paused.ask(p)
	m.rebuild()
	if p {
		return control("pause", "paused · space to resume", func() error { ctl.Pause(); return nil })
	}
	return control("resume", "resumed", func() error { ctl.Resume(); return nil })
}

// nextMarkLabel is the label of a mark given none: "mark 1", "mark 2"...
func (m *Model) nextMarkLabel() string {
	m.marks++
	return "mark " + strconv.Itoa(m.marks)
}

// mark puts a mark labelled label on the run (a ▲ on the time axis and a
// new segment) and shows notice once it is placed.
func (m *Model) mark(label, notice string) tea.Cmd {
	ctl := m.opts.Control
	return control("mark", notice, func() error { ctl.Mark(label); return nil })
}

func (m *Model) newSegment() tea.Cmd {
	ctl := m.opts.Control
	return control("segment", "new segment", func() error { ctl.NewSegment(); return nil })
}

// stopRun stops the run and quits once its final snapshot has come
// (closedMsg), or after stopTimeout.
func (m *Model) stopRun() tea.Cmd {
	m.stopping = true
	m.rebuild()
	ctl := m.opts.Control
	return tea.Batch(
		control("stop", "", func() error { ctl.Stop(); return nil }),
		tea.Tick(stopTimeout, func(time.Time) tea.Msg { return stopTimeoutMsg{} }),
	)
}
