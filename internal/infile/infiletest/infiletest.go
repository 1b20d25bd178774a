// Package infiletest makes the FIFOs that tests of reading an input need:
// one that nothing writes to, and one whose writer never waits for a
// reader. internal/infile's tests and the command's use it.
package infiletest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// FIFO makes a FIFO called name in a temporary folder of t's, or skips t
// where FIFOs cannot be made.
func FIFO(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// Writer opens the FIFO p for writing without waiting: a reader of the
// test's own holds it open (and reads nothing) until the test ends, so
// that the writer's open returns at once and its bytes stay in the FIFO
// until the code under test reads them, in whatever order the two come.
// (A writer that waited in open(2) for that code's reader could be let
// through by a read that then refused the FIFO, and write to no reader:
// CI run 26 hung there for 10 minutes.)
func Writer(t testing.TB, p string) *os.File {
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
