package attach

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"golang.org/x/sys/unix"

	"benchtop/engine"
	"benchtop/tui"
	"benchtop/tui/common"
	"benchtop/tui/fanout"
)

// Options is what a run's socket needs: the run, as the live screen has
// it.
type Options struct {
	// Dir holds the socket; "" is Dir().
	Dir         string
	Info        engine.Info
	Control     engine.Controller
	Snapshots   *fanout.Broadcaster
	Theme       string
	SaveReport  func() (string, error)
	Interval    time.Duration
	Demo        []tui.DemoStep
	DemoEnd     string
	Baseline    *common.Baseline
	CommandLine string // masked
}

// Server is a run's socket: it describes the run and serves attached
// screens until Close.
type Server struct {
	opts Options
	ln   *net.UnixListener
	path string
	id   int

	mu        sync.Mutex
	state     string
	report    string
	attached  int
	recording bool     // the run is ending: its lines are kept for the screens
	lines     []string // the run's last lines
	end       *End
	ended     chan struct{} // closed by Close
	sessions  sync.WaitGroup
}

// maxLines bounds the run's last lines kept for the attached screens.
const maxLines = 100

// Listen makes the run's socket, ID.sock (ID the process ID), 0600 in
// this user's folder (Dir), and serves it.
func Listen(opts Options) (*Server, error) {
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = Dir(); err != nil {
			return nil, err
		}
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	sweep(dir)
	if opts.Info.Start.IsZero() {
		opts.Info.Start = time.Now() // a fleet's clock starts with its run
	}
	s := &Server{opts: opts, id: os.Getpid(), state: "on screen", ended: make(chan struct{})}
	s.path = socketPath(dir, s.id)
	if st, err := os.Lstat(s.path); err == nil {
		// An earlier process of this ID died without removing its
		// socket; anything else there is left alone.
		if st.Mode()&fs.ModeSocket == 0 {
			return nil, fmt.Errorf("attach socket %s: there is a file there that is not a socket", s.path)
		}
		os.Remove(s.path)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: s.path, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("attach socket: %w", err)
	}
	if err := os.Chmod(s.path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("attach socket %s: %w", s.path, err)
	}
	ln.SetUnlinkOnClose(true)
	s.ln = ln
	go s.accept()
	return s, nil
}

// sweep removes the sockets of runs whose process is gone.
func sweep(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		id, ok := socketID(e.Name())
		if !ok || e.Type()&fs.ModeSocket == 0 {
			continue
		}
		if err := syscall.Kill(id, 0); errors.Is(err, syscall.ESRCH) {
			os.Remove(socketPath(dir, id))
		}
	}
}

// ID is the run's ID (the process ID), as `benchtop attach ID` takes it.
func (s *Server) ID() int { return s.id }

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

// Detached says the run lost its own terminal; report is where its text
// report will go.
func (s *Server) Detached(report string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.report = "detached", report
}

// Ending says the run is writing its report: the lines written from now
// on (Write) go to the attached screens with the exit status.
func (s *Server) Ending() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.recording = "ending", true
}

// Write takes the run's lines (its standard error) while it ends.
func (s *Server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.recording {
		for _, l := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
			if len(s.lines) < maxLines {
				s.lines = append(s.lines, l)
			}
		}
	}
	return len(p), nil
}

// Close ends every attached screen with the run's exit status and last
// lines, and removes the socket. A nil Server does nothing.
func (s *Server) Close(status int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.end != nil {
		s.mu.Unlock()
		return
	}
	s.end = &End{Reason: "ended", Status: status, Lines: s.lines,
		Message: fmt.Sprintf("run %d ended with exit status %d", s.id, status)}
	close(s.ended)
	s.mu.Unlock()
	s.ln.Close()
	done := make(chan struct{})
	go func() { s.sessions.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
}

// info is the run's description.
func (s *Server) info() RunInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.opts.Info
	return RunInfo{ID: s.id, Command: in.Command, Adapter: in.Adapter, Workload: in.Workload, Started: in.Start,
		State: s.state, Attached: s.attached, Report: s.report, CommandLine: s.opts.CommandLine}
}

func (s *Server) accept() {
	for {
		c, err := s.ln.AcceptUnix()
		if err != nil {
			return
		}
		go s.serve(c)
	}
}

// serve answers one connection: only this user's, told by the kernel
// (SO_PEERCRED), beside the socket's mode.
func (s *Server) serve(c *net.UnixConn) {
	defer c.Close()
	fw := &frameWriter{w: c}
	if uid, err := peerUID(c); err != nil || uid != os.Geteuid() {
		_ = fw.json(kindEnd, End{Reason: "refused", Message: "only the user who started the run may attach to it"})
		return
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	kind, p, err := readFrame(c)
	if err != nil || kind != kindHello {
		return
	}
	c.SetReadDeadline(time.Time{})
	var h hello
	if jsonUnmarshal(p, &h) != nil {
		return
	}
	switch h.Op {
	case "info":
		_ = fw.json(kindInfo, s.info())
	case "attach":
		s.session(c, fw, h)
	}
}

// peerUID is the user of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return -1, err
	}
	if cerr != nil {
		return -1, cerr
	}
	return int(cred.Uid), nil
}

// session runs one attached screen: the live screen's model drawing into
// the connection at the client's size and colours, the client's keys as
// its input, until it detaches, leaves, or the run is over.
func (s *Server) session(c *net.UnixConn, fw *frameWriter, h hello) {
	s.mu.Lock()
	if s.end != nil {
		s.mu.Unlock()
		_ = fw.json(kindEnd, End{Reason: "refused", Message: "the run is over"})
		return
	}
	s.attached++
	s.sessions.Add(1)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.attached--
		s.mu.Unlock()
		s.sessions.Done()
	}()

	sub, backlog := s.opts.Snapshots.Subscribe(4)
	defer sub.Close()
	r := lipgloss.NewRenderer(fw, termenv.WithProfile(termenv.Profile(h.Profile)), termenv.WithColorCache(true))
	r.SetHasDarkBackground(true)
	m, err := tui.NewSession(tui.Options{
		Info:       s.opts.Info,
		Snapshots:  sub.C(),
		Backlog:    backlog,
		Control:    s.opts.Control,
		Theme:      s.opts.Theme,
		SaveReport: s.opts.SaveReport,
		Interval:   s.opts.Interval,
		Attached:   true,
		Renderer:   r,
		Notice:     fmt.Sprintf("attached to run %d · d detaches (the run goes on) · q stops the run", s.id),
		Demo:       s.opts.Demo,
		DemoEnd:    s.opts.DemoEnd,
		Baseline:   s.opts.Baseline,
	})
	if err != nil {
		_ = fw.json(kindEnd, End{Reason: "refused", Message: err.Error()})
		return
	}
	inR, inW := io.Pipe()
	defer inR.Close()
	p := tea.NewProgram(m, tea.WithInput(inR), tea.WithOutput(fw), tea.WithAltScreen(), tea.WithFPS(tui.SessionFPS),
		tea.WithoutSignalHandler(), tea.WithEnvironment([]string{"TERM=" + h.Term}))

	gone := make(chan struct{}) // the client left
	go func() {
		defer close(gone)
		defer inW.Close()
		for {
			kind, b, err := readFrame(c)
			if err != nil {
				p.Kill()
				return
			}
			switch kind {
			case kindKeys:
				if _, err := inW.Write(b); err != nil {
					return
				}
			case kindWindow:
				var sz size
				if jsonUnmarshal(b, &sz) == nil && sz.Cols > 0 && sz.Rows > 0 {
					p.Send(tea.WindowSizeMsg{Width: sz.Cols, Height: sz.Rows})
				}
			}
		}
	}()
	done := make(chan struct{})
	go p.Send(tea.WindowSizeMsg{Width: h.Cols, Height: h.Rows})
	go func() {
		select {
		case <-s.ended:
			p.Quit()
		case <-done:
		}
	}()
	final, _ := p.Run()
	close(done)

	select {
	case <-gone:
		return
	default:
	}
	if tui.Detached(final) {
		_ = fw.json(kindEnd, End{Reason: "detached", Message: fmt.Sprintf("detached from run %d: it goes on (benchtop attach %d to come back)", s.id, s.id)})
		return
	}
	// The run is over, or its end was quit on this screen: its last
	// lines and exit status follow once it has written its report.
	select {
	case <-s.ended:
		s.mu.Lock()
		end := *s.end
		s.mu.Unlock()
		_ = fw.json(kindEnd, end)
	case <-gone:
	}
}
