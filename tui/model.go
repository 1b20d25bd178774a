package tui

import (
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/lipgloss"

	"benchtop/engine"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/components/errpanel"
	"benchtop/tui/components/header"
	"benchtop/tui/components/hostpanel"
	"benchtop/tui/components/latency"
	"benchtop/tui/components/opstable"
	"benchtop/tui/components/partitions"
	"benchtop/tui/components/prompt"
	"benchtop/tui/components/search"
	"benchtop/tui/components/segments"
	"benchtop/tui/components/throughput"
	"benchtop/tui/history"
	"benchtop/tui/keys"
)

// Model is the root model: it owns the components, the history they draw
// from and the program context they share, reads snapshots and turns keys
// into controller calls. This file holds its state and the values read
// from it; update.go changes it, layout.go draws it.
type Model struct {
	ctx     *common.Context
	opts    Options
	keys    keys.KeyMap
	help    help.Model
	hist    *history.History
	themeNo int

	header     header.Model
	throughput throughput.Model
	latency    latency.Model
	ops        opstable.Model
	host       hostpanel.Model
	segments   segments.Model
	search     search.Model // --find-max's panel, in the segments view
	parts      partitions.Model
	errs       errpanel.Model

	view     viewID
	showHelp bool
	prompt   prompt.Model

	// demoStep counts the steps of opts.Demo reached so far.
	demoStep int

	notice     string
	noticeID   int
	noticeLife time.Duration // how long a notice stays: noticeFor

	threads, partitions pending[int]
	target              pending[float64]
	paused              pending[bool]
	marks               int

	closed   bool // the snapshot channel is closed: the run is over
	stopping bool // q was pressed
	quitting bool
	detached bool // d left an attached terminal

	frame string // the whole screen, rebuilt when something changes
}

// The views `tab` cycles through.
type viewID int

const (
	viewMain viewID = iota
	viewSegments
	viewPartitions // the stream workload only
	numViews
)

func (v viewID) String() string {
	switch v {
	case viewSegments:
		return "segments"
	case viewPartitions:
		return "partitions"
	}
	return "main"
}

// nextView is the view after v; the partitions view exists only while a
// stream runs.
func (m *Model) nextView(v viewID) viewID {
	n := (v + 1) % numViews
	if n == viewPartitions && m.hist.Stream == nil {
		n = viewMain
	}
	return n
}

// pending is a control value asked for and not yet seen in a snapshot. It
// is given up after a few snapshots so that a refused change does not stick.
type pending[T comparable] struct {
	want T
	set  bool
	left int
}

func (p *pending[T]) ask(v T) { p.want, p.set, p.left = v, true, 3 }

// seen updates p with the value a snapshot reports.
func (p *pending[T]) seen(v T) {
	if !p.set {
		return
	}
	p.left--
	if v == p.want || p.left <= 0 {
		*p = pending[T]{}
	}
}

func wantInt(p pending[int]) int {
	if p.set {
		return p.want
	}
	return 0
}

// stylesFor builds the styles of t for renderer r (nil: standard output).
func stylesFor(r *lipgloss.Renderer, t themes.Theme) themes.Styles {
	if r == nil {
		return themes.NewStyles(t)
	}
	return themes.NewStylesWithRenderer(r, t)
}

func (m *Model) last() *engine.Snapshot { return m.hist.Last }

// The cur* values are what the run is taken to be at: the value asked for
// while it is pending, else the last snapshot's.

func (m *Model) curThreads() int {
	if m.threads.set {
		return m.threads.want
	}
	if s := m.last(); s != nil {
		return s.Threads
	}
	return 1
}

func (m *Model) curPartitions() int {
	if m.partitions.set {
		return m.partitions.want
	}
	if s := m.last(); s != nil {
		return s.Partitions
	}
	return 1
}

func (m *Model) curTarget() float64 {
	if m.target.set {
		return m.target.want
	}
	if s := m.last(); s != nil {
		return s.Target
	}
	return 0
}

func (m *Model) curPaused() bool {
	if m.paused.set {
		return m.paused.want
	}
	if s := m.last(); s != nil {
		return s.Paused
	}
	return false
}

// viewers is how many SSH viewers watch, -1 when nobody serves them.
func (m *Model) viewers() int {
	if m.opts.Viewers == nil {
		return -1
	}
	return m.opts.Viewers()
}
