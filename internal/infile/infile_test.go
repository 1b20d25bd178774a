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

// A FIFO with a writer is read whole, as a pipe from process
// substitution is, whether its writer has written yet or not.
func TestFIFOWithAWriter(t *testing.T) {
	t.Parallel()
	p := fifo(t)
	w := writer(t, p)
	go func() {
		w.WriteString("recordcount=10\n")
		w.Close()
	}()
	b, err := ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "recordcount=10\n" {
		t.Fatalf("read %q", b)
	}
}

// writer opens the FIFO p for writing without waiting: a reader of the
// test's own holds it open (and reads nothing) until the test ends, so
// that the writer's open returns at once and its bytes stay in the FIFO
// until ReadFile reads them, in whatever order the two come. (A writer
// that waited in open(2) for ReadFile's reader could be let through by
// one ReadFile that then refused the FIFO, and write to no reader: CI
// run 26 hung there for 10 minutes.)
func writer(t *testing.T, p string) *os.File {
	t.Helper()
	keep, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { keep.Close() })
	w, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	return w
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
