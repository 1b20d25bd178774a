package fleet

import (
	"bufio"
	"context"
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
		if o.Copy != "" {
			p, err := copyBinary(ctx, target, o)
			if err != nil {
				return nil, err
			}
			remote = p
		}
		args := sshArgs(o, "-T", "-o", "BatchMode=yes", target, "--", shellQuote(remote), "agent", "--stdio")
		return startProcess(name, cmdName(o.SSH, "ssh"), args, o.Log)
	}}
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

// copyBinary copies the local binary to a path named by its hash, so that
// hosts keep one copy per build and a second run copies nothing. It goes
// through ssh itself (cat into a temporary file, then rename) rather than
// scp, whose sftp mode needs the server's sftp subsystem.
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
	remote := "/tmp/benchtop-agent-" + hex.EncodeToString(h.Sum(nil))[:16]
	q := shellQuote(remote)
	script := fmt.Sprintf("test -x %[1]s || { umask 077 && cat > %[1]s.part.$$ && chmod 700 %[1]s.part.$$ && mv -f %[1]s.part.$$ %[1]s; }", q)
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
// to write.
type proc struct {
	cmd  *exec.Cmd
	out  io.ReadCloser
	in   io.WriteCloser
	once sync.Once
	wait chan error
}

// startProcess starts a command whose stdio is the protocol stream;
// its stderr lines go to log with the agent's name.
func startProcess(name, command string, args []string, log io.Writer) (io.ReadWriteCloser, error) {
	cmd := exec.Command(command, args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errp, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", command, err)
	}
	go func() {
		sc := bufio.NewScanner(errp)
		for sc.Scan() {
			if log != nil {
				fmt.Fprintf(log, "[%s] %s\n", name, sc.Text())
			}
		}
	}()
	p := &proc{cmd: cmd, out: out, in: in, wait: make(chan error, 1)}
	go func() { p.wait <- cmd.Wait() }()
	return p, nil
}

func (p *proc) Read(b []byte) (int, error)  { return p.out.Read(b) }
func (p *proc) Write(b []byte) (int, error) { return p.in.Write(b) }

// Close ends the stream: stdin closes (the agent sees EOF and exits); a
// process that does not exit soon is killed.
func (p *proc) Close() error {
	var err error
	p.once.Do(func() {
		p.in.Close()
		select {
		case err = <-p.wait:
		case <-time.After(5 * time.Second):
			_ = p.cmd.Process.Kill()
			err = <-p.wait
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = nil // the stream's end, not a failure of Close
		}
	})
	return err
}
