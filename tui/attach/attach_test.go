package attach

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"benchtop/engine"
	"benchtop/tui/fanout"
)

// dialEnv makes the test binary a client that dials the socket it names,
// prints the first frame's kind and text, and exits (see TestMain): a
// process of another user, for the peer-credentials test.
const dialEnv = "BENCHTOP_ATTACH_TEST_DIAL"

func TestMain(m *testing.M) {
	if path := os.Getenv(dialEnv); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(3)
		}
		fw := &frameWriter{w: c}
		fw.json(kindHello, hello{Op: "info"})
		kind, p, err := readFrame(c)
		fmt.Printf("%c %s %v\n", kind, p, err)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeRun is a run for the server: a controller that records, and a
// snapshot source.
type fakeRun struct {
	mu      sync.Mutex
	threads int
	stopped chan struct{}
	once    sync.Once
	src     chan *engine.Snapshot
	b       *fanout.Broadcaster
}

func newFakeRun() *fakeRun {
	f := &fakeRun{threads: 3, stopped: make(chan struct{}), src: make(chan *engine.Snapshot, 8)}
	f.b = fanout.New(f.src)
	f.snapshot()
	return f
}

func (f *fakeRun) snapshot() {
	f.mu.Lock()
	n := f.threads
	f.mu.Unlock()
	f.src <- &engine.Snapshot{Seq: 1, Time: time.Now(), Elapsed: time.Second, Interval: time.Second, Phase: engine.PhaseRun,
		Threads: n, Partitions: 1, Progress: -1}
}

func (f *fakeRun) SetThreads(n int) error {
	f.mu.Lock()
	f.threads = n
	f.mu.Unlock()
	return nil
}
func (f *fakeRun) SetTarget(float64) error { return nil }
func (f *fakeRun) SetPartitions(int) error { return nil }
func (f *fakeRun) Pause()                  {}
func (f *fakeRun) Resume()                 {}
func (f *fakeRun) Mark(string)             {}
func (f *fakeRun) NewSegment()             {}
func (f *fakeRun) Stop()                   { f.once.Do(func() { close(f.stopped) }) }

func (f *fakeRun) Threads() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.threads
}

func listen(t *testing.T, dir string, f *fakeRun) *Server {
	t.Helper()
	s, err := Listen(Options{Dir: dir, Info: engine.Info{Command: "run", Adapter: "memory", Workload: "workloada", Start: time.Now()},
		Control: f, Snapshots: f.b, Interval: time.Second, CommandLine: "benchtop run memory"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(0) })
	return s
}

// screenConn is an attached screen driven by the test: what it shows,
// without escape sequences, and the end frame.
type screenConn struct {
	c    net.Conn
	fw   *frameWriter
	mu   sync.Mutex
	text strings.Builder
	end  chan End
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]`)

func attachTo(t *testing.T, dir string, id int) *screenConn {
	t.Helper()
	c, err := dial(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	sc := &screenConn{c: c, fw: &frameWriter{w: c}, end: make(chan End, 1)}
	if err := sc.fw.json(kindHello, hello{Op: "attach", Term: "xterm-256color", Profile: 3, size: size{Cols: 120, Rows: 40}}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			kind, p, err := readFrame(c)
			if err != nil {
				close(sc.end)
				return
			}
			switch kind {
			case kindScreen:
				sc.mu.Lock()
				sc.text.WriteString(ansi.ReplaceAllString(string(p), " "))
				sc.mu.Unlock()
			case kindEnd:
				var e End
				jsonUnmarshal(p, &e)
				sc.end <- e
				return
			}
		}
	}()
	return sc
}

// waitFor waits until the screen has shown re.
func (sc *screenConn) waitFor(t *testing.T, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		sc.mu.Lock()
		ok := rx.MatchString(sc.text.String())
		sc.mu.Unlock()
		if ok {
			return
		}
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	t.Fatalf("the screen never showed %q; it showed:\n%s", re, sc.text.String())
}

func (sc *screenConn) key(t *testing.T, k string) {
	t.Helper()
	if err := sc.fw.frame(kindKeys, []byte(k)); err != nil {
		t.Fatal(err)
	}
}

func (sc *screenConn) waitEnd(t *testing.T) End {
	t.Helper()
	select {
	case e, ok := <-sc.end:
		if !ok {
			t.Fatal("the connection closed without an end frame")
		}
		return e
	case <-time.After(20 * time.Second):
		t.Fatal("no end frame")
	}
	return End{}
}

// An attached screen shows the run, its keys reach the run's controls,
// d detaches (the run goes on), and a q stops the run; the run's end
// reaches the screen with the exit status and the last lines, and the
// socket goes.
func TestAttachedScreen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	f := newFakeRun()
	s := listen(t, dir, f)
	if fi, err := os.Stat(s.Path()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi.Mode(), err)
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode: %v", fi.Mode())
	}

	sc := attachTo(t, dir, s.ID())
	sc.waitFor(t, fmt.Sprintf("attached to run %d", s.ID()))
	sc.waitFor(t, `Threads\s+3`)
	sc.key(t, "+")
	for deadline := time.Now().Add(20 * time.Second); f.Threads() != 4 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if n := f.Threads(); n != 4 {
		t.Fatalf("+ on the attached screen: threads %d, want 4", n)
	}
	if info, err := Describe(dir, s.ID()); err != nil || info.Attached != 1 || info.State != "on screen" {
		t.Errorf("while attached: %+v, %v", info, err)
	}
	sc.key(t, "d")
	if e := sc.waitEnd(t); e.Reason != "detached" || !strings.Contains(e.Message, fmt.Sprintf("benchtop attach %d", s.ID())) {
		t.Fatalf("after d: %+v", e)
	}
	select {
	case <-f.stopped:
		t.Fatal("d stopped the run")
	default:
	}

	s.Detached("/somewhere/benchtop-report-1.txt")
	sc = attachTo(t, dir, s.ID())
	sc.waitFor(t, "attached to run")
	sc.key(t, "q")
	select {
	case <-f.stopped:
	case <-time.After(20 * time.Second):
		t.Fatal("q on the attached screen did not stop the run")
	}
	close(f.src) // the run is over
	s.Ending()
	s.Write([]byte("benchtop: wrote x.json\n"))
	go s.Close(99)
	e := sc.waitEnd(t)
	if e.Reason != "ended" || e.Status != 99 || len(e.Lines) != 1 || e.Lines[0] != "benchtop: wrote x.json" {
		t.Fatalf("end: %+v", e)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if _, err := os.Lstat(s.Path()); os.IsNotExist(err) {
			return
		}
	}
	t.Error("the socket is left after Close")
}

// The list describes each run; the socket of a dead run is removed, and
// an entry that is not a socket (a link to a live socket) is neither
// followed nor removed.
func TestListAndStaleSockets(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	f := newFakeRun()
	s := listen(t, dir, f)
	s.Detached("/r/benchtop-report-2.txt")

	// A run that died: its socket is there, nobody listens.
	dead := socketPath(dir, 999999)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: dead, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ln.SetUnlinkOnClose(false)
	ln.Close()
	// A link named as a socket, to the live one.
	link := socketPath(dir, 999998)
	if err := os.Symlink(s.Path(), link); err != nil {
		t.Fatal(err)
	}

	runs, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || runs[0].ID != s.ID() || runs[0].State != "detached" || runs[0].Report != "/r/benchtop-report-2.txt" ||
		runs[0].Adapter != "memory" || runs[0].CommandLine != "benchtop run memory" {
		t.Fatalf("list: %+v", runs)
	}
	if _, err := os.Lstat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead run's socket is left: %v", err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was touched: %v", err)
	}
	if _, err := Describe(dir, 999998); err != errNoRun {
		t.Errorf("a link was followed: %v", err)
	}
}

// A folder open to others, or a link, is not used for the list.
func TestFolderChecked(t *testing.T) {
	base := t.TempDir()
	open := filepath.Join(base, "open")
	os.Mkdir(open, 0o755)
	os.Chmod(open, 0o777)
	if _, err := List(open); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("open folder: %v", err)
	}
	link := filepath.Join(base, "link")
	os.Symlink(open, link)
	if _, err := List(link); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("link: %v", err)
	}
	// Listen closes an open folder of this user's.
	f := newFakeRun()
	s := listen(t, open, f)
	if fi, _ := os.Stat(open); fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode after Listen: %v", fi.Mode())
	}
	_ = s
}

// Another user is refused by the kernel's word (SO_PEERCRED), even when
// the modes would let it in.
func TestOtherUserRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root: a client of another user (nobody) is started")
	}
	base, err := os.MkdirTemp("", "attach-peer-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	dir := filepath.Join(base, "run")
	f := newFakeRun()
	s := listen(t, dir, f)
	// The modes opened by mistake: only the credentials check is left.
	os.Chmod(base, 0o755)
	os.Chmod(dir, 0o755)
	os.Chmod(s.Path(), 0o666)
	exe, _ := os.Executable()
	bin := filepath.Join(base, "client")
	b, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), dialEnv+"="+s.Path())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	if !strings.HasPrefix(string(out), "e ") || !strings.Contains(string(out), "only the user who started the run may attach") {
		t.Fatalf("another user was not refused: %s", out)
	}
	// This user is answered.
	if info, err := Describe(dir, s.ID()); err != nil || info.ID != s.ID() {
		t.Errorf("this user: %+v %v", info, err)
	}
}

var _ io.Writer = (*Server)(nil)

// The attaching terminal is put in raw mode while attached and restored
// after, left out of the alternate screen; its keys reach the run.
func TestAttachRestoresTheTerminal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	f := newFakeRun()
	s := listen(t, dir, f)
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	pty.Setsize(tty, &pty.Winsize{Rows: 40, Cols: 120})
	before, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var shown strings.Builder
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			mu.Lock()
			shown.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	type result struct {
		end End
		err error
	}
	res := make(chan result, 1)
	go func() {
		e, err := Attach(context.Background(), dir, s.ID(), tty, tty)
		res <- result{e, err}
	}()
	screen := func() string {
		mu.Lock()
		defer mu.Unlock()
		return ansi.ReplaceAllString(shown.String(), " ")
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(screen(), "attached to run"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no attached screen; shown:\n%s", screen())
		}
	}
	raw, _ := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if raw.Lflag&unix.ICANON != 0 || raw.Lflag&unix.ECHO != 0 {
		t.Error("the terminal is not in raw mode while attached")
	}
	master.Write([]byte("+"))
	for deadline := time.Now().Add(20 * time.Second); f.Threads() != 4 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if f.Threads() != 4 {
		t.Fatalf("+ typed on the terminal: threads %d, want 4", f.Threads())
	}
	master.Write([]byte("d"))
	var r result
	select {
	case r = <-res:
	case <-time.After(20 * time.Second):
		t.Fatal("d did not detach")
	}
	if r.err != nil || r.end.Reason != "detached" {
		t.Fatalf("Attach: %+v, %v", r.end, r.err)
	}
	after, _ := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if after.Lflag != before.Lflag || after.Iflag != before.Iflag || after.Oflag != before.Oflag {
		t.Errorf("the terminal was not restored: lflag %#x -> %#x", before.Lflag, after.Lflag)
	}
	// The last bytes may still be on their way through the pty.
	left := func() bool {
		mu.Lock()
		defer mu.Unlock()
		tail := shown.String()
		return strings.HasSuffix(strings.TrimRight(tail, "\r\n"), "\x1b[?1049l\x1b[?25h\x1b[?2004l")
	}
	for deadline := time.Now().Add(20 * time.Second); !left(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			mu.Lock()
			tail := shown.String()
			mu.Unlock()
			t.Fatalf("the terminal was not taken out of the alternate screen last: %q", tail[max(0, len(tail)-64):])
		}
	}
}

// Attaching to a run that is not there is ErrNoRun.
func TestAttachNoRun(t *testing.T) {
	_, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	if _, err := Attach(context.Background(), t.TempDir(), 424242, tty, tty); err != ErrNoRun {
		t.Errorf("Attach to no run: %v", err)
	}
}
