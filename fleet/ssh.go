package fleet

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// SSHOptions is how agents are launched through OpenSSH: the user's own
// ssh, its config, keys and known_hosts.
type SSHOptions struct {
	// SSH is the ssh command (default "ssh").
	SSH string
	// Config is an ssh_config file (ssh -F), "" for the user's own.
	Config string
	// Remote is the benchtop binary on the hosts (default "benchtop").
	Remote string
	// Copy, when set, is a local binary copied to each host first (over
	// ssh) and run from there.
	Copy string
	// Log receives the agents' stderr lines, prefixed with their names.
	Log io.Writer
}

// SSHEndpoint runs `benchtop agent --stdio` on target ([user@]host) and
// speaks the protocol over the ssh channel.
func SSHEndpoint(name, target string, o SSHOptions) Endpoint {
	return Endpoint{Name: name, Open: func(ctx context.Context) (io.ReadWriteCloser, error) {
		remote := o.Remote
		if remote == "" {
			remote = "benchtop"
		}
		command := shellQuote(remote) + " agent --stdio"
		var cleanup func()
		if o.Copy != "" {
			p, err := copyBinary(ctx, target, o)
			if err != nil {
				return nil, err
			}
			// The copy is this session's: removed when the agent ends,
			// and again from here if the session had to be cut.
			q := shellQuote(p)
			command = q + " agent --stdio; s=$?; rm -f " + q + "; exit $s"
			cleanup = func() { removeCopy(target, p, o) }
		}
		args := sshArgs(o, "-T", "-o", "BatchMode=yes", target, "--", command)
		rw, err := startProcess(name, cmdName(o.SSH, "ssh"), args, o.Log)
		if err != nil && cleanup != nil {
			cleanup()
		}
		if err == nil {
			rw.(*proc).cleanup = cleanup
		}
		return rw, err
	}}
}

// removeCopy removes a copied binary from a host whose session was cut
// (its shell could not remove it).
func removeCopy(target, path string, o SSHOptions) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, cmdName(o.SSH, "ssh"), sshArgs(o, "-T", "-o", "BatchMode=yes", target, "--", "rm -f "+shellQuote(path))...)
	if out, err := cmd.CombinedOutput(); err != nil && o.Log != nil {
		fmt.Fprintf(o.Log, "--ssh-copy: could not remove %s from %s: %v: %s\n", path, target, err, strings.TrimSpace(string(out)))
	}
}

func cmdName(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func sshArgs(o SSHOptions, rest ...string) []string {
	var args []string
	if o.Config != "" {
		args = append(args, "-F", o.Config)
	}
	return append(args, rest...)
}

// copyBinary copies the local binary to a path of this session's own on
// the host (named by the build's hash and a random suffix: another
// session, or another agent on the same host, never removes it from under
// it), and returns the path. It goes through ssh itself (cat into a
// temporary file, then rename) rather than scp, whose sftp mode needs the
// server's sftp subsystem.
func copyBinary(ctx context.Context, target string, o SSHOptions) (string, error) {
	f, err := os.Open(o.Copy)
	if err != nil {
		return "", fmt.Errorf("--ssh-copy: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("--ssh-copy: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", fmt.Errorf("--ssh-copy: %w", err)
	}
	var rnd [4]byte
	_, _ = rand.Read(rnd[:])
	remote := "/tmp/benchtop-agent-" + hex.EncodeToString(h.Sum(nil))[:16] + "-" + hex.EncodeToString(rnd[:])
	q := shellQuote(remote)
	script := fmt.Sprintf("umask 077 && cat > %[1]s.part && chmod 700 %[1]s.part && mv -f %[1]s.part %[1]s", q)
	cctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(cctx, cmdName(o.SSH, "ssh"), sshArgs(o, "-T", "-o", "BatchMode=yes", target, "--", script)...)
	cmd.Stdin = f
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("--ssh-copy to %s: %v: %s", target, err, strings.TrimSpace(string(out)))
	}
	return remote, nil
}

// shellQuote quotes s for the remote shell ssh hands the command to.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// proc is a child process as a byte stream: its stdout to read, its stdin
// to write. Its stdout and stderr are pipes of our own (os.Pipe), not
// exec's: exec closes its pipes when the process exits, which raced with
// the reads ("read |0: file already closed") and lost ssh's message.
type proc struct {
	name string
	cmd  *exec.Cmd
	out  *os.File
	in   io.WriteCloser
	once sync.Once
	// exited is closed once the process has exited, exitErr its status;
	// stderrDone once its stderr was read to the end.
	exited     chan struct{}
	exitErr    error
	stderrDone chan struct{}

	mu   sync.Mutex
	tail []string // its last stderr lines
	// cleanup, when set, runs after a Close that had to cut the session
	// (--ssh-copy's copy removed from here).
	cleanup func()
}

// stderrTail is how many of a process's last stderr lines its exit error
// quotes.
const stderrTail = 3

// startProcess starts a command whose stdio is the protocol stream;
// its stderr lines go to log with the agent's name.
func startProcess(name, command string, args []string, log io.Writer) (io.ReadWriteCloser, error) {
	cmd := exec.Command(command, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	err = cmd.Start()
	// The child holds the write ends now: ours would keep the pipes open.
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return nil, fmt.Errorf("%s: %w", command, err)
	}
	p := &proc{name: command, cmd: cmd, out: outR, in: in, exited: make(chan struct{}), stderrDone: make(chan struct{})}
	go func() {
		defer close(p.stderrDone)
		defer errR.Close()
		sc := bufio.NewScanner(errR)
		for sc.Scan() {
			line := sc.Text()
			if log != nil {
				fmt.Fprintf(log, "[%s] %s\n", name, line)
			}
			if line = strings.TrimSpace(line); line != "" {
				p.mu.Lock()
				p.tail = append(p.tail, line)
				if len(p.tail) > stderrTail {
					p.tail = p.tail[1:]
				}
				p.mu.Unlock()
			}
		}
	}()
	go func() {
		p.exitErr = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// ExitError is how a process that carried an agent's stream ended: its
// exit status and its last stderr lines (ssh's own message: "ssh: Could
// not resolve hostname vm9: ..."). It is what a read from the stream
// returns once the process is gone.
type ExitError struct {
	Command string
	Status  error // nil: it exited 0
	Stderr  string
}

func (e *ExitError) Error() string {
	s := e.Command + " ended"
	if e.Status != nil {
		s = e.Command + ": " + e.Status.Error()
	}
	if e.Stderr != "" {
		s += ": " + e.Stderr
	}
	return s
}

// Unwrap is io.EOF: the stream ended.
func (e *ExitError) Unwrap() error { return io.EOF }

// Read reads the agent's stream. When it ends, it waits a little for the
// process to exit and returns how it ended (an *ExitError) rather than a
// bare EOF.
func (p *proc) Read(b []byte) (int, error) {
	n, err := p.out.Read(b)
	if err == nil || n > 0 {
		return n, err
	}
	if errors.Is(err, os.ErrClosed) {
		return 0, io.EOF // our own Close
	}
	// Both come at once after an exit; the bounds are for a loaded box.
	select {
	case <-p.exited:
	case <-time.After(5 * time.Second):
		return 0, err // still running: the stream alone ended
	}
	select {
	case <-p.stderrDone:
	case <-time.After(5 * time.Second):
	}
	p.mu.Lock()
	tail := strings.Join(p.tail, "; ")
	p.mu.Unlock()
	if p.exitErr == nil && tail == "" {
		return 0, io.EOF
	}
	return 0, &ExitError{Command: p.name, Status: p.exitErr, Stderr: tail}
}

func (p *proc) Write(b []byte) (int, error) { return p.in.Write(b) }

// Close ends the stream: stdin closes (the agent sees EOF and exits); a
// process that does not exit soon is killed.
func (p *proc) Close() error {
	p.once.Do(func() {
		p.in.Close()
		cut := false
		select {
		case <-p.exited:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			<-p.exited
			cut = true
		}
		p.out.Close()
		var ee *exec.ExitError
		if errors.As(p.exitErr, &ee) && ee.ExitCode() == 255 {
			cut = true // ssh's own failure: the remote shell may not have ended
		}
		if cut && p.cleanup != nil {
			p.cleanup()
		}
	})
	return nil
}
