package liblog

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// CaptureStderr points the process's standard error (file descriptor 2)
// at the log file, or at /dev/null without one, until the returned
// function restores it: a driver that writes to os.Stderr itself (NATS's
// default error handler, the MongoDB driver's environment-enabled logger)
// then cannot draw over the live screen. Use it only while the screen is
// up: benchtop's own messages go to standard error before and after.
func (s *Sink) CaptureStderr() (restore func(), err error) {
	target := s.f
	if target == nil {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("capture standard error: %w", err)
		}
		defer null.Close()
		target = null
	}
	saved, err := unix.Dup(2)
	if err != nil {
		return nil, fmt.Errorf("capture standard error: %w", err)
	}
	unix.CloseOnExec(saved)
	if err := unix.Dup3(int(target.Fd()), 2, 0); err != nil {
		unix.Close(saved)
		return nil, fmt.Errorf("capture standard error: %w", err)
	}
	return func() {
		_ = unix.Dup3(saved, 2, 0)
		unix.Close(saved)
	}, nil
}
