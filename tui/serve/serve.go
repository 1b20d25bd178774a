// Package serve lets stakeholders watch a run over SSH: every session that
// connects gets the live screen at its own terminal size, theme and colour
// depth (github.com/charmbracelet/wish). Viewers are read-only (view, theme,
// window and help keys); only public keys listed in an authorized-keys
// file may control the run; passwords are refused; a viewer-keys file may
// restrict watching too. Each session reads its own bounded subscription
// of the snapshots (tui/fanout), so a slow link never slows the run.
package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/ssh"
	"github.com/charmbracelet/wish"
	"github.com/charmbracelet/wish/activeterm"
	"github.com/charmbracelet/wish/bubbletea"
	"github.com/muesli/termenv"
	gossh "golang.org/x/crypto/ssh"

	"benchtop/engine"
	"benchtop/internal/keyfile"
	"benchtop/tui"
	"benchtop/tui/common"
	"benchtop/tui/fanout"
)

// Options is what the server needs.
type Options struct {
	Addr string // host:port
	// StateDir holds the host key, generated once and reused; "" is
	// DefaultStateDir().
	StateDir string
	// AuthorizedKeys lists the keys that may control the run; ViewerKeys,
	// if set, the only other keys that may watch ("" = any key).
	AuthorizedKeys, ViewerKeys string

	Info       engine.Info
	Control    engine.Controller
	Snapshots  *fanout.Broadcaster
	Theme      string
	SaveReport func() (string, error)
	Interval   time.Duration
	Demo       []tui.DemoStep
	DemoEnd    string
	// Depth is each viewer's snapshot buffer (default 4): a viewer further
	// behind skips to the newest.
	Depth int
	// Baseline is the --baseline run every session draws beside this one.
	Baseline *common.Baseline
}

// Server is a running SSH viewer server.
type Server struct {
	opts    Options
	srv     *ssh.Server
	ln      net.Listener
	viewers atomic.Int32
	control keySet
	viewer  keySet // nil: anyone may watch
	hostKey string
}

// DefaultStateDir is benchtop's state folder: $XDG_STATE_HOME/benchtop, or
// ~/.local/state/benchtop.
func DefaultStateDir() (string, error) {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "benchtop"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("state folder: %w", err)
	}
	return filepath.Join(home, ".local", "state", "benchtop"), nil
}

// Start listens on opts.Addr and serves sessions until Close.
func Start(opts Options) (*Server, error) {
	if opts.Snapshots == nil {
		return nil, errors.New("serve: no snapshots")
	}
	if opts.Depth <= 0 {
		opts.Depth = 4
	}
	s := &Server{opts: opts}
	var err error
	if opts.AuthorizedKeys != "" {
		if err := keyfile.Public("--ssh-authorized-keys", opts.AuthorizedKeys); err != nil {
			return nil, err
		}
		if s.control, err = loadKeys(opts.AuthorizedKeys); err != nil {
			return nil, fmt.Errorf("--ssh-authorized-keys %s: %w", opts.AuthorizedKeys, err)
		}
	}
	if opts.ViewerKeys != "" {
		if err := keyfile.Public("--ssh-viewer-keys", opts.ViewerKeys); err != nil {
			return nil, err
		}
		if s.viewer, err = loadKeys(opts.ViewerKeys); err != nil {
			return nil, fmt.Errorf("--ssh-viewer-keys %s: %w", opts.ViewerKeys, err)
		}
	}
	dir := opts.StateDir
	if dir == "" {
		if dir, err = DefaultStateDir(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("state folder %s: %w", dir, err)
	}
	s.hostKey = filepath.Join(dir, "ssh_host_ed25519")
	// A host key others can read lets them pose as this server; one they
	// can write, or swap through its folder, too. Refused, as sshd does.
	if err := keyfile.Secret("the SSH viewers' host key", s.hostKey); err != nil {
		return nil, err
	}
	srv, err := wish.NewServer(
		wish.WithAddress(opts.Addr),
		wish.WithHostKeyPath(s.hostKey),
		wish.WithPublicKeyAuth(s.allow),
		wish.WithPasswordAuth(func(ssh.Context, string) bool { return false }),
		wish.WithKeyboardInteractiveAuth(func(ssh.Context, gossh.KeyboardInteractiveChallenge) bool { return false }),
		wish.WithMiddleware(
			bubbletea.MiddlewareWithProgramHandler(s.program, termenv.Ascii),
			activeterm.Middleware(),
			s.account,
		),
	)
	if err != nil {
		return nil, fmt.Errorf("ssh server: %w", err)
	}
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return nil, fmt.Errorf("--serve-ssh %s: %w", opts.Addr, err)
	}
	s.srv, s.ln = srv, ln
	go func() { _ = srv.Serve(ln) }()
	return s, nil
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Viewers is how many sessions watch now.
func (s *Server) Viewers() int { return int(s.viewers.Load()) }

// Close stops accepting sessions and closes those open.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		err = s.srv.Close()
	}
	if errors.Is(err, ssh.ErrServerClosed) {
		err = nil
	}
	return err
}

// Note is the one-line note for an address other hosts can reach, "" for
// a loopback one.
func Note(addr string, viewerKeys bool) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	if host == "localhost" {
		return ""
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return ""
	}
	if viewerKeys {
		return "SSH viewers: " + addr + " is reachable from other hosts; only the listed keys may watch"
	}
	return "SSH viewers: anyone who reaches " + addr + " may watch with any key (--ssh-viewer-keys FILE restricts it)"
}

// allow is the public-key check: controllers always, others when no
// viewer list is set or when listed.
func (s *Server) allow(_ ssh.Context, key ssh.PublicKey) bool {
	if s.control.has(key) {
		return true
	}
	return s.viewer == nil || s.viewer.has(key)
}

type ctxKey string

const subKey ctxKey = "benchtop.sub"

// account counts the session as a viewer and gives it its own
// subscription for as long as it lasts.
func (s *Server) account(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		s.viewers.Add(1)
		defer s.viewers.Add(-1)
		sub, backlog := s.opts.Snapshots.Subscribe(s.opts.Depth)
		defer sub.Close()
		sess.Context().SetValue(subKey, &subscription{sub, backlog})
		next(sess)
	}
}

type subscription struct {
	sub     *fanout.Sub
	backlog []*engine.Snapshot
}

// program builds the session's screen: its own renderer (colour profile,
// background), read-only unless its key is authorized to control.
func (s *Server) program(sess ssh.Session) *tea.Program {
	sc, _ := sess.Context().Value(subKey).(*subscription)
	if sc == nil {
		return nil
	}
	control := s.control.has(sess.PublicKey())
	notice := "watching over SSH · read-only: view, theme (c), window (w), help (?) · q leaves"
	if control {
		notice = "watching over SSH · your key may control this run · q leaves (the run goes on)"
	}
	m, err := tui.NewSession(tui.Options{
		Info:       s.opts.Info,
		Snapshots:  sc.sub.C(),
		Backlog:    sc.backlog,
		Control:    s.opts.Control,
		Theme:      s.opts.Theme,
		SaveReport: s.opts.SaveReport,
		Interval:   s.opts.Interval,
		Viewers:    s.Viewers,
		Remote:     true,
		ReadOnly:   !control,
		Renderer:   bubbletea.MakeRenderer(sess),
		Notice:     notice,
		Demo:       s.opts.Demo,
		DemoEnd:    s.opts.DemoEnd,
		Baseline:   s.opts.Baseline,
	})
	if err != nil {
		wish.Fatalln(sess, "benchtop: "+err.Error())
		return nil
	}
	// No signal handler: the process's signals are the run's; a viewer's
	// program took each SIGINT too and could block on it (tui.Run).
	opts := append([]tea.ProgramOption{tea.WithAltScreen(), tea.WithFPS(tui.SessionFPS), tea.WithoutSignalHandler()}, bubbletea.MakeOptions(sess)...)
	return tea.NewProgram(m, opts...)
}

// keySet is a list of public keys.
type keySet [][]byte

func (k keySet) has(key ssh.PublicKey) bool {
	if key == nil {
		return false
	}
	m := key.Marshal()
	for _, e := range k {
		if string(e) == string(m) {
			return true
		}
	}
	return false
}

// loadKeys reads an authorized_keys file: one key per line, # comments.
func loadKeys(path string) (keySet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out keySet
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("line %d: not a public key (%v)", i+1, err)
		}
		out = append(out, k.Marshal())
	}
	if len(out) == 0 {
		return nil, errors.New("no public key in the file")
	}
	return out, nil
}
