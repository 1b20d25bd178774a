package infile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"benchtop/internal/infile/infiletest"
)

// A FIFO nobody writes to is refused at once (os.Open blocked on it for
// good).
func TestFIFOWithNoWriter(t *testing.T) {
	t.Parallel()
	if _, err := ReadFile(infiletest.FIFO(t, "f")); !errors.Is(err, ErrNoWriter) {
		t.Fatalf("err %v, want ErrNoWriter", err)
	}
}

// A FIFO with a writer is read whole, as a pipe from process
// substitution is, whether its writer has written yet or not.
func TestFIFOWithAWriter(t *testing.T) {
	t.Parallel()
	p := infiletest.FIFO(t, "f")
	w := infiletest.Writer(t, p)
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
