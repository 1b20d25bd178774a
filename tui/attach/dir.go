package attach

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"benchtop/tui/serve"
)

// Dir is the folder of this user's run sockets: $XDG_RUNTIME_DIR/benchtop
// when the session has a runtime folder, else run/ in benchtop's state
// folder (~/.local/state/benchtop/run). It is not created.
func Dir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return filepath.Join(d, "benchtop"), nil
		}
	}
	state, err := serve.DefaultStateDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(state, "run"), nil
}

// ensureDir creates dir (0700) and checks that it is this user's own
// folder, closed to others: a folder that is a link, or another user's,
// is refused; one open to others is closed (chmod 0700).
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("attach folder %s: %w", dir, err)
	}
	return checkDir(dir, true)
}

// checkDir checks dir as ensureDir does; fix closes a folder open to
// others instead of refusing it.
func checkDir(dir string, fix bool) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("attach folder %s: %w", dir, err)
	}
	if !st.IsDir() {
		return fmt.Errorf("attach folder %s: not a folder (a link or a file is never followed)", dir)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Geteuid() {
		return fmt.Errorf("attach folder %s: belongs to user %d, not to this user (%d)", dir, sys.Uid, os.Geteuid())
	}
	if st.Mode().Perm()&0o077 != 0 {
		if !fix {
			return fmt.Errorf("attach folder %s: open to other users (mode %04o; want 0700)", dir, st.Mode().Perm())
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("attach folder %s: %w", dir, err)
		}
	}
	return nil
}

// socketPath is the socket of the run whose process ID is id.
func socketPath(dir string, id int) string {
	return filepath.Join(dir, strconv.Itoa(id)+".sock")
}

// List describes this user's runs on this machine, oldest first. The
// socket of a run that is gone (its process died without removing it) is
// removed; an entry that is not a socket (a link, a file) is never
// followed nor used.
func List(dir string) ([]RunInfo, error) {
	if err := checkDir(dir, false); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("attach folder %s: %w", dir, err)
	}
	var runs []RunInfo
	for _, e := range entries {
		id, ok := socketID(e.Name())
		if !ok || e.Type()&fs.ModeSocket == 0 {
			continue
		}
		info, err := Describe(dir, id)
		if err != nil {
			continue
		}
		runs = append(runs, info)
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i].Started.Before(runs[j].Started) })
	return runs, nil
}

// socketID reads the process ID of a socket's name, "1234.sock".
func socketID(name string) (int, bool) {
	s, ok := strings.CutSuffix(name, ".sock")
	if !ok {
		return 0, false
	}
	id, err := strconv.Atoi(s)
	return id, err == nil && id > 0
}

// errNoRun is a run that is not there (or no longer).
var errNoRun = errors.New("no such run")

// dial connects to the socket of run id, removing it when its run is
// gone. It never follows a link: the entry must be a socket.
func dial(dir string, id int) (*net.UnixConn, error) {
	path := socketPath(dir, id)
	st, err := os.Lstat(path)
	if err != nil || st.Mode()&fs.ModeSocket == 0 {
		return nil, errNoRun
	}
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			// Nobody listens: its run died without removing it.
			os.Remove(path)
			return nil, errNoRun
		}
		return nil, err
	}
	return c.(*net.UnixConn), nil
}

// Describe asks run id for its description.
func Describe(dir string, id int) (RunInfo, error) {
	c, err := dial(dir, id)
	if err != nil {
		return RunInfo{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(3 * time.Second))
	fw := &frameWriter{w: c}
	if err := fw.json(kindHello, hello{Op: "info"}); err != nil {
		return RunInfo{}, err
	}
	kind, p, err := readFrame(c)
	if err != nil {
		return RunInfo{}, err
	}
	if kind == kindEnd {
		return RunInfo{}, endError(p)
	}
	var info RunInfo
	if kind != kindInfo {
		return info, fmt.Errorf("attach: run %d answered a frame of kind %q", id, kind)
	}
	return info, jsonUnmarshal(p, &info)
}
