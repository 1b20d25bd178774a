package cli

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A second stop signal ends the process at once, whatever holds the
// first one up; SIGHUP is no stop signal for a run and forces nothing.
func TestSecondSignalForcesTheExit(t *testing.T) {
	t.Parallel()
	ch := make(chan os.Signal, 3)
	forced := make(chan [2]os.Signal, 1)
	in := watchSignals(ch, func(first, second os.Signal) { forced <- [2]os.Signal{first, second} })
	defer in.stop()
	ch <- syscall.SIGTERM
	ch <- syscall.SIGHUP
	ch <- syscall.SIGINT
	select {
	case got := <-forced:
		if got != [2]os.Signal{syscall.SIGTERM, syscall.SIGINT} {
			t.Errorf("forced by %v", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("a second stop signal forced nothing")
	}
	if c := in.exitCode(); c != 143 {
		t.Errorf("exit code %d, want the first signal's 143", c)
	}
}

// The forced exit says why, in one line, with the first signal's status.
func TestForceExitSaysSo(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	st := newState(nil, nil, &bytes.Buffer{}, &errb, nil)
	defer st.close()
	code := -1
	st.forceExit(syscall.SIGTERM, syscall.SIGINT, func(c int) { code = c })
	if code != 143 || strings.Count(errb.String(), "\n") != 1 ||
		!strings.Contains(errb.String(), "benchtop: SIGINT after SIGTERM: exiting now without waiting for the report and exports (exit status 143)") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}
