package liblog

import (
	"context"
	"log"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	cblog "github.com/charmbracelet/log"
	"github.com/redis/go-redis/v9"
)

// Library output lands in the log file, never on standard error.
func TestRoutesLibraryLogging(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lib.log")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	restore, err := s.CaptureStderr()
	if err != nil {
		t.Fatal(err)
	}
	log.Printf("from the standard logger")
	cblog.Warn("from charmbracelet/log")
	// File descriptor 2 itself, as a driver's os.Stderr is in the binary:
	// under go test -json the testing package points os.Stderr at
	// standard output, which CaptureStderr rightly leaves alone.
	if _, err := syscall.Write(2, []byte("straight to stderr\n")); err != nil {
		t.Fatal(err)
	}
	// A go-redis client against a port nobody listens on: its pool logs
	// the failed dial.
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 200 * time.Millisecond})
	_ = c.Ping(context.Background()).Err()
	_ = c.Close()
	restore()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"from the standard logger", "straight to stderr", "from charmbracelet/log", "redis: connection pool: failed to dial"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("log file lacks %q:\n%s", want, b)
		}
	}
}

// failing is a file that cannot take any more (a full disk).
type failing struct{}

func (failing) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "lib.log", Err: syscall.ENOSPC}
}

// Lines the log file could not take are counted and told once the run
// is over, never lost silently.
func TestLostLinesAreTold(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lib.log")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Err(); err != nil {
		t.Fatalf("before any write: %v", err)
	}
	s.w = failing{}
	log.Printf("one")
	s.Write([]byte("two\nthree\n"))
	err = s.Err()
	if err == nil || err.Error() != "--log "+path+": 3 lines of library logging could not be written: no space left on device" {
		t.Errorf("Err() = %v", err)
	}
}
