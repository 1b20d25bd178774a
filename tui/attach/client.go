package attach

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"benchtop/tui"
)

// ErrNoRun is Attach's error for an ID with no run of this user's behind
// it.
var ErrNoRun = errNoRun

// Attach shows run id's live screen on the terminal of in and out, with
// every key, until the screen detaches (d), the run ends, or ctx is
// cancelled. The terminal is put in raw mode and always restored, out of
// the alternate screen with its cursor shown. It returns the end frame
// (Reason "ended" carries the run's exit status and last lines).
func Attach(ctx context.Context, dir string, id int, in, out *os.File) (End, error) {
	if !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return End{}, errors.New("attach needs a terminal (standard input and output)")
	}
	c, err := dial(dir, id)
	if err != nil {
		return End{}, err
	}
	defer c.Close()
	cols, rows, err := term.GetSize(int(out.Fd()))
	if err != nil {
		cols, rows = 80, 24
	}
	fw := &frameWriter{w: c}
	h := hello{Op: "attach", Term: os.Getenv("TERM"), Profile: int(tui.TerminalProfile(out)), size: size{Cols: cols, Rows: rows}}
	if err := fw.json(kindHello, h); err != nil {
		return End{}, err
	}
	old, err := term.MakeRaw(int(in.Fd()))
	if err != nil {
		return End{}, fmt.Errorf("attach: raw mode: %w", err)
	}
	defer func() {
		_ = term.Restore(int(in.Fd()), old)
		// Out of the alternate screen, cursor shown, whatever the last
		// frame left.
		io.WriteString(out, "\x1b[?1049l\x1b[?25h\x1b[?2004l")
	}()

	// Keys go to the run as typed; window changes follow.
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := in.Read(buf)
			if n > 0 && fw.frame(kindKeys, buf[:n]) != nil {
				return
			}
			if err != nil {
				return
			}
		}
	}()
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	go func() {
		for range winch {
			if w, h, err := term.GetSize(int(out.Fd())); err == nil {
				_ = fw.json(kindWindow, size{Cols: w, Rows: h})
			}
		}
	}()

	type result struct {
		end End
		err error
	}
	res := make(chan result, 1)
	go func() {
		for {
			kind, p, err := readFrame(c)
			if err != nil {
				res <- result{err: fmt.Errorf("run %d: the connection closed before the end: %w", id, err)}
				return
			}
			switch kind {
			case kindScreen:
				if _, err := out.Write(p); err != nil {
					res <- result{err: err}
					return
				}
			case kindEnd:
				var e End
				err := jsonUnmarshal(p, &e)
				res <- result{end: e, err: err}
				return
			}
		}
	}()
	select {
	case r := <-res:
		if r.err == nil && r.end.Reason == "refused" {
			r.err = errors.New(r.end.Message)
		}
		return r.end, r.err
	case <-ctx.Done():
		return End{}, ctx.Err()
	}
}
