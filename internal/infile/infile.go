// Package infile opens the files a user names as inputs (-P, --baseline,
// --token-file, --agents-file, benchtop report's and verdict's files, an
// adapter's credentials file) so that none can block the process.
//
// A FIFO opened for reading blocks in open(2) until something opens it
// for writing; a FIFO nobody writes to blocked benchtop there for good,
// deaf to SIGINT and SIGTERM (the signal handlers never ran while the
// thread sat in the kernel). Open opens with O_NONBLOCK instead, which
// returns at once, and reads the first bytes: a FIFO with no writer reads
// end-of-file at once (Linux: a reader opened with O_NONBLOCK sees EOF
// while no writer holds the pipe) and is refused with ErrNoWriter; a pipe
// or FIFO that has a writer (a shell's process substitution,
// <(cat workloads/workloada)) is read as before, its reads waiting on the
// runtime's poller rather than in the kernel. A regular file reads as
// with os.Open.
package infile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNoWriter is a FIFO (or pipe) that nothing writes to: read, it would
// never end.
var ErrNoWriter = errors.New("a FIFO with no writer (nothing would ever be read from it): start its writer first, or give a regular file")

// Open opens path for reading; see the package comment. Its errors are
// os.Open's (*fs.PathError) and ErrNoWriter.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if fi.Mode()&fs.ModeNamedPipe == 0 {
		return f, nil
	}
	var first [4096]byte
	n, err := f.Read(first[:])
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		f.Close()
		return nil, ErrNoWriter
	case err != nil && !errors.Is(err, io.EOF):
		f.Close()
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return &peeked{Reader: io.MultiReader(bytes.NewReader(first[:n]), f), f: f}, nil
}

// ReadFile is os.ReadFile through Open.
func ReadFile(path string) ([]byte, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// peeked is a pipe whose first bytes were read to see that it has a
// writer.
type peeked struct {
	io.Reader
	f *os.File
}

func (p *peeked) Close() error { return p.f.Close() }
