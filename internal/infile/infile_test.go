package infile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

func fifo(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// A FIFO nobody writes to is refused at once (os.Open blocked on it for
// good).
func TestFIFOWithNoWriter(t *testing.T) {
	t.Parallel()
	if _, err := ReadFile(fifo(t)); !errors.Is(err, ErrNoWriter) {
		t.Fatalf("err %v, want ErrNoWriter", err)
	}
}

// A FIFO whose writer waits to open it is read whole, as a pipe from
// process substitution is.
func TestFIFOWithAWriter(t *testing.T) {
	t.Parallel()
	p := fifo(t)
	done := make(chan error, 1)
	go func() {
		w, err := os.OpenFile(p, os.O_WRONLY, 0) // blocks until the reader opens
		if err == nil {
			_, err = w.WriteString("recordcount=10\n")
			w.Close()
		}
		done <- err
	}()
	// The writer may not be in open(2) yet: a FIFO with no writer so far
	// is refused, so wait for it to count as one.
	var b []byte
	for {
		var err error
		b, err = ReadFile(p)
		if !errors.Is(err, ErrNoWriter) {
			if err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if string(b) != "recordcount=10\n" {
		t.Fatalf("read %q", b)
	}
}

// A pipe with a writer (what <(cat FILE) hands over as /dev/fd/N) is
// read as before.
func TestPipe(t *testing.T) {
	t.Parallel()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() { w.WriteString("a=1\n"); w.Close() }()
	b, err := ReadFile("/dev/fd/" + itoa(int(r.Fd())))
	if err != nil || string(b) != "a=1\n" {
		t.Fatalf("read %q, %v", b, err)
	}
}

// A regular file and a missing one read as with os.Open.
func TestRegularAndMissing(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "x")
	os.WriteFile(p, []byte("x=1"), 0o600)
	if b, err := ReadFile(p); err != nil || string(b) != "x=1" {
		t.Fatalf("read %q, %v", b, err)
	}
	if _, err := ReadFile(p + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err %v, want not exist", err)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
