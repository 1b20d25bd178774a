package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/term"

	"benchtop/engine"
	"benchtop/results/report"
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

// This file is the way in: Run and NewSession, and newModel, which builds
// the root model (model.go) both of them run.

// Options is what Run needs.
type Options struct {
	Info engine.Info
	// Snapshots delivers one snapshot per interval; it is closed after the
	// final one (Done=true).
	Snapshots <-chan *engine.Snapshot
	Control   engine.Controller
	// Theme is a name from themes.Names; "" is the default.
	Theme string
	// SaveReport writes the report files now and returns where, shortly.
	SaveReport func() (string, error)
	// Interval is the snapshot interval (default 1s).
	Interval time.Duration

	// Backlog are snapshots from before Snapshots was subscribed to (an
	// SSH viewer joining mid-run), drawn first so that its charts show the
	// run so far.
	Backlog []*engine.Snapshot
	// Viewers, if set, tells how many SSH viewers watch; the header shows
	// it.
	Viewers func() int
	// Remote is an SSH session: q leaves the session and never stops the
	// run. ReadOnly allows only the view, theme, window and help keys.
	Remote, ReadOnly bool
	// Attached is a terminal attached to the run (benchtop attach): every
	// key works as on the run's own screen, and d detaches (the run goes
	// on).
	Attached bool
	// Hangup, closed when the terminal is lost (SIGHUP), makes Run let go
	// of the terminal without stopping the run: Run returns ErrHangup.
	Hangup <-chan struct{}
	// Renderer builds the styles (colour profile, background); nil is the
	// process's standard output. Each SSH session has its own.
	Renderer *lipgloss.Renderer
	// Notice is shown when the screen opens, e.g. who may watch.
	Notice string
	// Demo is the scripted scenario being played, for its captions, and
	// DemoEnd the end card's line on what it showed ("" for none).
	Demo    []DemoStep
	DemoEnd string
	// Baseline is an earlier run to draw beside this one (--baseline).
	Baseline *common.Baseline
}

// DemoStep is one step of a scripted scenario as the screen captions it:
// the step is taken as reached when an event of Kind with To arrives
// ("" matches any), or, for Kind "start", at once.
type DemoStep struct {
	Kind, To string
	Caption  string // e.g. "threads 2 → 8: more threads than cores"
}

// drainFor bounds how long Run waits for the engine to close the snapshot
// channel after stopping it.
const drainFor = 5 * time.Second

// ErrHangup is Run's error when the terminal was lost (opts.Hangup, or
// the terminal failing with EIO): the screen is gone and the run goes on;
// the caller keeps reading nothing from Snapshots.
var ErrHangup = errors.New("tui: the terminal was lost")

// Run shows the TUI on the terminal in the alternate screen until the user
// quits (q, ctrl+c) or ctx is cancelled; both stop the run through
// Control.Stop. Run consumes Snapshots until the channel is closed (or a few
// seconds pass) and returns after the terminal is restored. A cancelled ctx
// is not an error: Run returns nil once the run is stopped. When the
// terminal is lost (opts.Hangup), Run stops drawing at once and returns
// ErrHangup without stopping the run.
func Run(ctx context.Context, opts Options) error {
	if opts.Snapshots == nil {
		return errors.New("tui: no snapshot channel")
	}
	if opts.Control == nil {
		return errors.New("tui: no controller")
	}
	theme, ok := themes.Get(opts.Theme)
	if !ok {
		return fmt.Errorf("tui: unknown theme %q (have %v)", opts.Theme, themes.Names())
	}
	// No terminal query for the background colour: the themes use
	// complete colours and the user picks light or dark (--theme, c).
	// Asking (termenv.HasDarkBackground) writes OSC 11 and waits for the
	// reply with a timeout; on a loaded machine the reply came after the
	// timeout, landed in bubbletea's input and swallowed the next keys
	// (seen in the tmux test: `+` and `]` lost 3 times in 4 under load).
	lipgloss.SetHasDarkBackground(true)
	upgradeScreenProfile()

	m := newModel(opts, theme)
	// The process's signals are benchtop's (internal/cli cancels ctx):
	// Bubble Tea's own handler, on a SIGINT that came as its program was
	// ending, blocked for good sending to a loop that had stopped, and its
	// shutdown waited on it (the process stayed at "finished").
	progOpts := []tea.ProgramOption{tea.WithAltScreen(), tea.WithFPS(SessionFPS), tea.WithContext(ctx), tea.WithoutSignalHandler()}
	var p *tea.Program
	var hungUp atomic.Bool
	lost := func() {
		if hungUp.CompareAndSwap(false, true) {
			go p.Kill() // no final frame: nobody is there to see it
		}
	}
	if opts.Hangup != nil {
		// A terminal gone without a SIGHUP (the signal went to another
		// process of the session) is seen on its input.
		if in, ok := terminalInput(lost); ok {
			progOpts = append(progOpts, tea.WithInput(in))
		}
	}
	p = tea.NewProgram(m, progOpts...)
	if opts.Hangup != nil {
		ended := make(chan struct{})
		defer close(ended)
		go func() {
			select {
			case <-opts.Hangup:
				lost()
			case <-ended:
			}
		}()
	}
	final, err := p.Run()
	if hungUp.Load() || (opts.Hangup != nil && errors.Is(err, syscall.EIO)) {
		return ErrHangup
	}
	fm, _ := final.(*Model)
	closed := fm != nil && fm.closed

	switch {
	case err == nil:
	case errors.Is(err, tea.ErrInterrupted),
		errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		// ctrl+c outside raw mode, or the caller cancelled: stop cleanly.
		err = nil
	default:
		err = fmt.Errorf("tui: %w", err)
	}
	if !closed {
		wait := drainFor
		switch {
		case fm != nil && fm.stopping:
			wait = time.Second // the model already waited for the end
		case ctx.Err() != nil:
			wait = 2 * time.Second // cancelled: return promptly
		}
		opts.Control.Stop()
		drain(opts.Snapshots, wait)
	}
	return err
}

// ttyInput is the terminal as the program's input: a read that finds it
// gone (end of file or EIO: in raw mode a terminal ends only when it is
// hung up) calls lost.
type ttyInput struct {
	*os.File
	lost func()
}

func (t ttyInput) Read(b []byte) (int, error) {
	n, err := t.File.Read(b)
	if n == 0 && (errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO)) {
		t.lost()
	}
	return n, err
}

// terminalInput is standard input as a ttyInput, when it is a terminal.
func terminalInput(lost func()) (ttyInput, bool) {
	if !term.IsTerminal(int(os.Stdin.Fd())) {
		return ttyInput{}, false
	}
	return ttyInput{File: os.Stdin, lost: lost}, true
}

// upgradeScreenProfile gives TERM=screen (GNU screen, and tmux's default)
// its 16 colours: termenv reads the name as colourless. NO_COLOR still wins.
func upgradeScreenProfile() {
	if lipgloss.ColorProfile() == termenv.Ascii && screenColours() {
		lipgloss.SetColorProfile(termenv.ANSI)
	}
}

// screenColours: TERM is GNU screen's or tmux's, and colours are not
// turned off.
func screenColours() bool {
	term := os.Getenv("TERM")
	if os.Getenv("NO_COLOR") != "" || os.Getenv("CLICOLOR") == "0" {
		return false
	}
	return term == "screen" || term == "tmux" || strings.HasPrefix(term, "screen.") || strings.HasPrefix(term, "tmux.")
}

// TerminalProfile is the colour profile the screen draws with on the
// terminal f, as Run chooses it (for a screen drawn elsewhere, such as an
// attached terminal's).
func TerminalProfile(f *os.File) termenv.Profile {
	p := termenv.NewOutput(f).EnvColorProfile()
	if p == termenv.Ascii && screenColours() {
		p = termenv.ANSI
	}
	return p
}

// drain reads snapshots until the channel is closed or d passes, so that
// the engine is never left blocked on a send nobody reads.
func drain(ch <-chan *engine.Snapshot, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-t.C:
			return
		}
	}
}

// NewSession returns the model of one more screen on the same run, e.g.
// an SSH viewer's: it reads opts.Snapshots (its own subscription), draws
// with opts.Renderer and, with opts.Remote, leaves on q without stopping
// the run. The caller runs it in a tea.Program of its own.
func NewSession(opts Options) (tea.Model, error) {
	theme, ok := themes.Get(opts.Theme)
	if !ok {
		return nil, fmt.Errorf("tui: unknown theme %q (have %v)", opts.Theme, themes.Names())
	}
	if opts.Control == nil && !opts.ReadOnly {
		return nil, errors.New("tui: no controller for a session that may control")
	}
	return newModel(opts, theme), nil
}

// newModel builds the root model: the program context its components
// share, the components, and the backlog of snapshots read.
func newModel(opts Options, theme themes.Theme) *Model {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	ctx := &common.Context{
		Styles:   stylesFor(opts.Renderer, theme),
		Info:     opts.Info,
		Interval: opts.Interval,
		Baseline: opts.Baseline,
		// Causes are masked here, the panels draw them as given.
		MaskCause: report.MaskCause,
	}
	m := &Model{
		ctx:        ctx,
		opts:       opts,
		keys:       keys.Keys,
		help:       help.New(),
		hist:       history.New(opts.Interval),
		header:     header.New(ctx),
		throughput: throughput.New(ctx),
		latency:    latency.New(ctx),
		ops:        opstable.New(ctx),
		host:       hostpanel.New(ctx),
		segments:   segments.New(ctx),
		search:     search.New(ctx),
		parts:      partitions.New(ctx),
		errs:       errpanel.New(ctx),
		noticeLife: noticeFor,
	}
	for i, n := range themes.Names() {
		if n == theme.Name {
			m.themeNo = i
		}
	}
	m.prompt = prompt.New(ctx, prompt.Limits{
		MaxThreads: MaxThreads, MaxPartitions: MaxPartitions,
		CanRepartition: opts.Info.CanRepartition, Adapter: opts.Info.Adapter,
		MinWindow: 10 * time.Second, MaxWindow: history.Window,
		Themes: themes.Names(), ReadOnly: opts.ReadOnly,
	})
	for _, s := range opts.Backlog {
		m.addSnapshot(s)
	}
	if opts.Notice != "" {
		m.notice = opts.Notice
	}
	m.styleHelp()
	return m
}

// SessionFPS is the frame rate of every screen: plenty for a dashboard,
// and kind to SSH links.
const SessionFPS = 12
