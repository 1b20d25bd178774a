package cli

import (
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/crypto/ssh"
)

// SIGINT, SIGTERM and SIGQUIT end a run in any state: on the live screen
// or headless, with an SSH viewer watching or none. The screen's case is
// the one seen in tmux: the signal, then the terminal and the viewer's
// session gone a moment later (tmux kill-server); the process stayed at
// "finished · q to quit" for good, deaf to every later signal, when
// Bubble Tea's own signal handler took the signal as its program ended.
func TestStopSignalsEndEveryRun(t *testing.T) {
	if testing.Short() {
		t.Skip("twelve runs of the binary signalled mid-run (go test -short skips it)")
	}
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT} {
		for _, screen := range []bool{false, true} {
			for _, viewer := range []bool{false, true} {
				name := fmt.Sprintf("%v/screen=%v/viewer=%v", sig, screen, viewer)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					stopRun(t, sig, screen, viewer)
				})
			}
		}
	}
}

// stopRun starts a run with no end, signals it mid-run and checks its
// end: the signal's status, the exports whole and marked interrupted.
func stopRun(t *testing.T, sig syscall.Signal, screen, viewer bool) {
	dir, xdg, state := t.TempDir(), t.TempDir(), t.TempDir()
	args := append([]string(nil), runArgs...)
	addr := ""
	if viewer {
		addr = freeAddr(t)
		args = append(args, "--serve-ssh", addr)
	}
	env := []string{"XDG_RUNTIME_DIR=" + xdg, "XDG_STATE_HOME=" + state, "TERM=xterm-256color", "LANG=C.UTF-8"}
	var s *started
	var tm *onTerminal
	if screen {
		tm = startOnTerminalEnv(t, dir, env, args...)
		tm.waitFor(t, `Threads\s+1\b`)
		s = tm.started
	} else {
		s = startEnv(t, dir, env, append(args, "--headless", "-s")...)
		s.underway(t)
	}
	var v *sshViewer
	if viewer {
		v = watch(t, addr)
		v.waitFor(t, "1 viewer")
	}
	s.signal(t, sig)
	// What tmux kill-server did a moment after the signal: the terminal
	// and the viewer's session gone.
	time.Sleep(300 * time.Millisecond)
	if v != nil {
		v.close()
	}
	if tm != nil {
		tm.hangUp(t)
	}
	// A hang detector, not a timing check: the run ends within a second
	// or two; before the fix it never did.
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		t.Fatalf("still running 30 s after %v; stderr:\n%s", sig, s.stderr.String())
	}
	if code := s.exit(t); code != 128+int(sig) {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, 128+int(sig), s.stderr.String())
	}
	// The terminal may go before the report is written (a loaded
	// machine): then the report is a file beside the exports.
	var also []string
	if m, _ := filepath.Glob(filepath.Join(dir, "benchtop-report-*.txt")); len(m) == 1 && tm != nil {
		also = append(also, filepath.Base(m[0]))
	}
	if _, interrupted := exportsWhole(t, dir, also...); !interrupted {
		t.Error("the JSON does not say interrupted")
	}
}

// startEnv starts the binary headless in dir with env added.
func startEnv(t *testing.T, dir string, env []string, args ...string) *started {
	t.Helper()
	s := &started{cmd: exec.Command(builtBenchtop(t), args...), stdout: &lockedBuf{}, stderr: &lockedBuf{}, done: make(chan struct{})}
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Stdout, s.cmd.Stderr = s.stdout, s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.wait(t)
	return s
}

// startOnTerminalEnv is startOnTerminal (stderr on the terminal) with
// env added.
func startOnTerminalEnv(t *testing.T, dir string, env []string, args ...string) *onTerminal {
	t.Helper()
	s := &started{cmd: exec.Command(builtBenchtop(t), args...), stdout: &lockedBuf{}, stderr: &lockedBuf{}, done: make(chan struct{})}
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), env...)
	master, err := pty.StartWithAttrs(s.cmd, &pty.Winsize{Rows: 40, Cols: 120}, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		t.Fatal(err)
	}
	tm := &onTerminal{started: s, master: master}
	go tm.read()
	s.wait(t)
	t.Cleanup(func() { master.Close() })
	return tm
}

// read keeps what the terminal shows (the last 512 KB), answering its
// queries, until the terminal is closed.
func (tm *onTerminal) read() {
	buf := make([]byte, 8192)
	for {
		n, err := tm.master.Read(buf)
		answerQueries(tm.master, buf[:n])
		tm.mu.Lock()
		tm.shown.Write(buf[:n])
		if tm.shown.Len() > 1<<20 {
			last := tm.shown.String()[tm.shown.Len()-512<<10:]
			tm.shown.Reset()
			tm.shown.WriteString(last)
		}
		tm.mu.Unlock()
		if err != nil {
			return
		}
	}
}

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// sshViewer is an SSH session on a run's --serve-ssh, as `ssh -tt` opens
// one: a pseudo-terminal and a shell, what it shows kept.
type sshViewer struct {
	client *ssh.Client
	mu     sync.Mutex
	shown  strings.Builder
}

// watch connects a viewer with a key of its own (anyone may watch).
func watch(t *testing.T, addr string) *sshViewer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &ssh.ClientConfig{User: "viewer", Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.InsecureIgnoreHostKey(), Timeout: 10 * time.Second}
	var client *ssh.Client
	poll(t, "the SSH viewer server", func() bool {
		client, err = ssh.Dial("tcp", addr, cfg)
		return err == nil
	})
	sess, err := client.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.RequestPty("xterm-256color", 40, 120, ssh.TerminalModes{}); err != nil {
		t.Fatal(err)
	}
	out, err := sess.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sess.Shell(); err != nil {
		t.Fatal(err)
	}
	v := &sshViewer{client: client}
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := out.Read(buf)
			v.mu.Lock()
			if v.shown.Len() < 4<<20 {
				v.shown.Write(buf[:n])
			}
			v.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(v.close)
	return v
}

// waitFor waits until the viewer was shown s.
func (v *sshViewer) waitFor(t *testing.T, s string) {
	t.Helper()
	poll(t, "the viewer to show "+s, func() bool {
		v.mu.Lock()
		defer v.mu.Unlock()
		return strings.Contains(escapes.ReplaceAllString(v.shown.String(), " "), s)
	})
}

// close drops the connection, as a killed ssh client does.
func (v *sshViewer) close() { v.client.Close() }

// A run that finished on its screen (at "finished · q to quit") with an
// SSH viewer watching exits with its own status once its terminal and
// the viewer are gone: nothing is left to quit it.
func TestFinishedRunExitsWhenItsTerminalGoes(t *testing.T) {
	if testing.Short() {
		t.Skip("a 2 s run on a pseudo-terminal (go test -short skips it)")
	}
	t.Parallel()
	dir, xdg, state := t.TempDir(), t.TempDir(), t.TempDir()
	addr := freeAddr(t)
	args := append(append([]string(nil), runArgs...), "-p", "maxexecutiontime=2", "--serve-ssh", addr)
	tm := startOnTerminalEnv(t, dir, []string{"XDG_RUNTIME_DIR=" + xdg, "XDG_STATE_HOME=" + state, "TERM=xterm-256color", "LANG=C.UTF-8"}, args...)
	tm.waitFor(t, `Threads\s+1\b`)
	v := watch(t, addr)
	v.waitFor(t, "1 viewer")
	tm.waitFor(t, `finished\s*·\s*q to quit`)
	v.close()
	tm.hangUp(t)
	select {
	case <-tm.done:
	case <-time.After(30 * time.Second):
		t.Fatal("a finished run whose terminal and viewer went still runs 30 s on")
	}
	if code := tm.exit(t); code != 0 {
		t.Fatalf("exit %d, want the run's own 0", code)
	}
}
