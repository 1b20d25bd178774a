package output

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// CheckWritable tells whether a file can be created at path: its
// directory exists and takes a new file, and the name is not a
// directory. It leaves nothing behind.
func CheckWritable(path string) error {
	dir, base := splitPath(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s: %v", dir, PathCause(err))
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return errors.New("is a directory")
	}
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %v", dir, PathCause(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// tempFile is a file being written beside its final name, so that a file
// under the final name is always whole.
type tempFile struct {
	final string
	f     *os.File
	w     *bufio.Writer
}

func newTempFile(final string) (*tempFile, error) {
	dir, base := splitPath(final) // beside final as the kernel finds it
	f, err := os.CreateTemp(dir, "."+base+".*.tmp")
	if err != nil {
		return nil, err
	}
	return &tempFile{final: final, f: f, w: bufio.NewWriter(f)}, nil
}

// commit flushes, closes and renames the file to its final name.
func (t *tempFile) commit() error {
	err := t.w.Flush()
	if err == nil {
		err = t.f.Chmod(0o644)
	}
	if cerr := t.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// What is replaced is what was checked before the run: a link or
		// a device put there since is left alone.
		err = CheckOutputFile(t.final)
	}
	if err == nil {
		err = os.Rename(t.f.Name(), t.final)
	}
	if err != nil {
		os.Remove(t.f.Name())
	}
	return err
}

// discard removes the temporary file.
func (t *tempFile) discard() {
	t.f.Close()
	os.Remove(t.f.Name())
}

// WriteFile writes a whole output: to stdout, written in place, when path
// is "-" or /dev/stdout (IsStdout), else through a temporary file beside
// path, renamed to it once complete. On an error nothing is left but
// what was at path before.
func WriteFile(path string, stdout io.Writer, write func(io.Writer) error) error {
	if IsStdout(path) {
		w := bufio.NewWriter(stdout)
		if err := write(w); err != nil {
			return err
		}
		return w.Flush()
	}
	return writeFileAtomic(path, write)
}

// writeFileAtomic writes a whole file through a temporary file beside it.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	t, err := newTempFile(path)
	if err != nil {
		return err
	}
	if err := write(t.w); err != nil {
		t.discard()
		return err
	}
	return t.commit()
}

// CreateRegular opens path for writing from its start, for a file
// written as it goes (a profile, a trace): a new file, or a regular one
// emptied, never a symbolic link (not followed, O_NOFOLLOW) or a device,
// FIFO or socket, which is refused before anything is written to it.
func CreateRegular(path string) (*os.File, error) {
	if err := CheckOutputFile(path); err != nil {
		return nil, fmt.Errorf("%s: %s", path, strings.Replace(err.Error(), "is now", "is", 1))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s: is %s; not written", path, kindOf(st.Mode()))
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
