package fleet

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// A launcher that fails at once (ssh to a host that does not resolve)
// ends the stream with its own message and exit status, every time: exec's
// pipes used to be closed by Wait while they were read, and the read then
// said only "read |0: file already closed" (1 run in 4).
func TestProcessEndsWithItsOwnError(t *testing.T) {
	t.Parallel()
	for i := range 40 {
		rw, err := startProcess("vm9", "sh", []string{"-c", `echo "ssh: Could not resolve hostname vm9: Name or service not known" >&2; exit 255`}, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadFull(rw, make([]byte, 4))
		var pe *ExitError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), "exit status 255: ssh: Could not resolve hostname vm9") || !errors.Is(err, io.EOF) {
			t.Fatalf("run %d: %v, want the process's exit status and message (and io.EOF)", i, err)
		}
		if got := describeLoss(err); !strings.Contains(got, "Could not resolve hostname vm9") {
			t.Fatalf("run %d: a loss described as %q", i, got)
		}
		rw.Close()
	}
}

// A process that ends well ends the stream with a bare EOF.
func TestProcessEndsQuietly(t *testing.T) {
	t.Parallel()
	rw, err := startProcess("ok", "sh", []string{"-c", "printf ab"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(rw)
	if err != nil || string(b) != "ab" {
		t.Errorf("read %q, %v; want ab and no error", b, err)
	}
	rw.Close()
}
