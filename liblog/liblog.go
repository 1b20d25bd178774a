// Package liblog keeps third-party libraries off the terminal: their
// logging (go-redis's pool messages, the standard log package, anything a
// driver writes to standard error) goes to a log file, or nowhere, never
// over the live screen or between status lines. What matters to the user
// of a failing operation reaches them through benchtop's error accounting
// (the count and the latest cause per operation and kind); the log file
// keeps the libraries' own words for whoever wants them (--log FILE).
package liblog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	cblog "github.com/charmbracelet/log"
	"github.com/redis/go-redis/v9"
)

// Sink is where library output goes: a file, or nowhere.
type Sink struct {
	mu      sync.Mutex
	w       io.Writer
	f       *os.File // the --log file, nil without one
	lines   int
	secrets []string // replaced by **** in every line (Mask)
	// lost counts the lines the file did not take (a full disk), err
	// is the first error.
	lost int
	err  error
}

// Mask makes the sink replace each of secrets by **** in what it writes:
// a library may quote a connection string or a credential.
func (s *Sink) Mask(secrets []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.secrets = secrets
}

// Open routes the libraries' logging to path ("" discards it) and
// returns the sink. The file is appended to, so that a run's lines add to
// the last ones.
func Open(path string) (*Sink, error) {
	s := &Sink{w: io.Discard}
	if path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, fmt.Errorf("--log %s: %w", path, err)
		}
		s.w, s.f = f, f
	}
	log.SetOutput(s)
	log.SetFlags(log.LstdFlags | log.Lmicroseconds)
	redis.SetLogger(redisLogger{s})
	cblog.SetOutput(s) // wish (the SSH viewers) logs through charmbracelet/log
	return s, nil
}

// Write takes one or more lines of library output.
func (s *Sink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := strings.Count(string(p), "\n")
	s.lines += n
	out := p
	if len(s.secrets) > 0 {
		t := string(p)
		for _, v := range s.secrets {
			t = strings.ReplaceAll(t, v, "****")
		}
		out = []byte(t)
	}
	_, err := s.w.Write(out)
	if err != nil {
		s.lost += max(n, 1)
		if s.err == nil {
			s.err = err
		}
		return 0, err
	}
	return len(p), nil
}

// Err says, once the run is over, that the log file lost lines: how
// many, and the first error; nil when it took them all.
func (s *Sink) Err() error {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil {
		return nil
	}
	return fmt.Errorf("--log %s: %d lines of library logging could not be written: %w", s.f.Name(), s.lost, unwrapPath(s.err))
}

// unwrapPath is a path error's cause alone: the message names the path.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Lines is how many lines the sink took through Write.
func (s *Sink) Lines() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lines
}

// Path is the log file's path, "" when output is discarded.
func (s *Sink) Path() string {
	if s.f == nil {
		return ""
	}
	return s.f.Name()
}

// Close closes the log file (the standard logger then discards).
func (s *Sink) Close() error {
	log.SetOutput(io.Discard)
	cblog.SetOutput(io.Discard)
	if s.f == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w = io.Discard
	return s.f.Close()
}

// redisLogger is go-redis's logger writing into the sink.
type redisLogger struct{ s *Sink }

func (l redisLogger) Printf(_ context.Context, format string, v ...any) {
	msg := strings.TrimRight(fmt.Sprintf(format, v...), "\n")
	if !strings.HasPrefix(msg, "redis: ") {
		msg = "redis: " + msg
	}
	fmt.Fprintf(l.s, "%s %s\n", time.Now().Format("2006/01/02 15:04:05.000000"), msg)
}
