package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Real signals to the built binary: SIGHUP does not stop a run (it ends
// with its own status, its report and exports written), SIGQUIT stops it
// as SIGTERM does (131); neither leaves a temporary file. On the live
// screen (a real pseudo-terminal, hung up by closing its master) the run
// goes on detached, and benchtop attach takes its screen up again.

// started is a benchtop process the test signals.
type started struct {
	cmd            *exec.Cmd
	stdout, stderr *lockedBuf
	done           chan struct{}
	err            error
}

// startIn starts the binary in dir with args (headless: no terminal).
func startIn(t *testing.T, dir, xdg string, args ...string) *started {
	t.Helper()
	s := &started{cmd: exec.Command(builtBenchtop(t), args...), stdout: &lockedBuf{}, stderr: &lockedBuf{}, done: make(chan struct{})}
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+xdg)
	s.cmd.Stdout, s.cmd.Stderr = s.stdout, s.stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s.wait(t)
	return s
}

// wait collects the process's end in the background; it is killed if
// the test ends first.
func (s *started) wait(t *testing.T) {
	go func() { s.err = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() {
		select {
		case <-s.done:
		default:
			s.cmd.Process.Kill()
			<-s.done
		}
	})
}

// exit waits for the end (a minute at most) and returns the exit status.
func (s *started) exit(t *testing.T) int {
	t.Helper()
	select {
	case <-s.done:
	case <-time.After(time.Minute):
		t.Fatalf("still running a minute on; stderr:\n%s", s.stderr.String())
	}
	var ee *exec.ExitError
	if s.err != nil && !errors.As(s.err, &ee) {
		t.Fatal(s.err)
	}
	return s.cmd.ProcessState.ExitCode()
}

func (s *started) signal(t *testing.T, sig syscall.Signal) {
	t.Helper()
	if err := s.cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
}

// underway waits for the run phase's first status line (-s).
// It waits for a status line of the run phase's operations: the load
// phase's (INSERT) came first, and a signal right after it stopped the
// run between its phases, before the run phase that the tests judge.
func (s *started) underway(t *testing.T) {
	t.Helper()
	poll(t, "the run phase to start", func() bool {
		e := s.stderr.String()
		return strings.Contains(e, "operations;") && strings.Contains(e, "[READ:")
	})
}

// running tells whether the process has not ended.
func (s *started) running() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// poll waits for cond, a minute at most.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited a minute for %s", what)
		}
	}
}

// tempSize is the size of the one temporary file matching pattern in
// dir (a streaming export while the run goes on), -1 when there is none.
func tempSize(dir, pattern string) int64 {
	m, _ := filepath.Glob(filepath.Join(dir, pattern))
	if len(m) != 1 {
		return -1
	}
	fi, err := os.Stat(m[0])
	if err != nil {
		return -1
	}
	return fi.Size()
}

// goesOn waits until the streaming CSV grows past its size now: the run
// writes intervals after what just happened.
func goesOn(t *testing.T, s *started, dir string) {
	t.Helper()
	n := tempSize(dir, ".x.csv.*.tmp")
	poll(t, "the run to go on (its CSV to grow)", func() bool {
		if !s.running() {
			t.Fatalf("the run ended; stderr:\n%s", s.stderr.String())
		}
		return tempSize(dir, ".x.csv.*.tmp") > n
	})
}

// exportsWhole checks that dir holds exactly the exports x.json, x.csv
// and x.hlog (plus the names in also), none empty, and no temporary file;
// it returns the JSON summary's report_file and interrupted members.
func exportsWhole(t *testing.T, dir string, also ...string) (reportFile string, interrupted bool) {
	t.Helper()
	files := dirEntries(t, dir)
	want := append([]string{"x.json", "x.csv", "x.hlog"}, also...)
	for _, name := range want {
		if files[name] == 0 {
			t.Errorf("%s missing or empty: %v", name, files)
		}
	}
	for name := range files {
		if strings.HasSuffix(name, ".tmp") {
			t.Errorf("temporary file left: %s", name)
		}
	}
	if len(files) != len(want) {
		t.Errorf("files: %v, want %v", files, want)
	}
	var doc struct {
		ReportFile  string `json:"report_file"`
		Interrupted bool   `json:"interrupted"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "x.json"))
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("x.json: %v", err)
	}
	return doc.ReportFile, doc.Interrupted
}

// runArgs is a run with no end, paced (the signals, not the rate, are
// what these tests watch: unpaced, each run kept a core busy beside the
// package's other tests).
var runArgs = []string{"run", "memory", "-target", "2000", "-p", "recordcount=200", "-p", "operationcount=0", "-p", "status.interval=200ms",
	"--json", "x.json", "--timeseries", "x.csv", "--hdr-log", "x.hlog"}

// A headless run with an end that loses its terminal (SIGHUP) ends as it
// would have: exit status 0, the report, every export whole. The run
// goes on after the signal (its CSV grows): the signal came mid-run.
func TestHangupHeadlessRunEndsAsItWould(t *testing.T) {
	if testing.Short() {
		t.Skip("a 5 s run after SIGHUP (go test -short skips it)")
	}
	t.Parallel()
	dir := t.TempDir()
	s := startIn(t, dir, t.TempDir(), append(runArgs, "--headless", "-s", "-p", "maxexecutiontime=5")...)
	s.underway(t)
	s.signal(t, syscall.SIGHUP)
	goesOn(t, s, dir)
	if code := s.exit(t); code != 0 {
		t.Fatalf("exit %d, want the run's own 0; stderr %s", code, s.stderr.String())
	}
	if !strings.Contains(s.stdout.String(), "[OVERALL], Throughput(ops/sec)") {
		t.Errorf("no report on stdout:\n%s", s.stdout.String())
	}
	if _, interrupted := exportsWhole(t, dir); interrupted {
		t.Error("the JSON says interrupted: a hangup stops nothing")
	}
}

// A headless run with no end goes on after SIGHUP until SIGTERM: 143,
// the report, every export whole.
func TestHangupHeadlessRunWithNoEndGoesOn(t *testing.T) {
	if testing.Short() {
		t.Skip("the run is watched going on for seconds after SIGHUP (go test -short skips it)")
	}
	t.Parallel()
	dir := t.TempDir()
	s := startIn(t, dir, t.TempDir(), append(runArgs, "--headless", "-s")...)
	s.underway(t)
	s.signal(t, syscall.SIGHUP)
	goesOn(t, s, dir)
	s.signal(t, syscall.SIGTERM)
	if code := s.exit(t); code != 143 {
		t.Fatalf("exit %d, want 143; stderr %s", code, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "benchtop: runs until stopped: no operationcount, --duration or maxexecutiontime") {
		t.Errorf("a run with no end does not say so:\n%s", s.stderr.String())
	}
	if !strings.Contains(s.stdout.String(), "# interrupted") {
		t.Errorf("no interrupted report:\n%s", s.stdout.String())
	}
	if _, interrupted := exportsWhole(t, dir); !interrupted {
		t.Error("the JSON does not say interrupted")
	}
}

// SIGQUIT stops a run as SIGTERM does, with exit status 131: the report,
// every export whole, no temporary file, no goroutine dump.
func TestSIGQUITStopsWithTheReport(t *testing.T) {
	if testing.Short() {
		t.Skip("a run of the binary waited for until its run phase (go test -short skips it)")
	}
	t.Parallel()
	dir := t.TempDir()
	s := startIn(t, dir, t.TempDir(), append(runArgs, "--headless", "-s")...)
	s.underway(t)
	s.signal(t, syscall.SIGQUIT)
	if code := s.exit(t); code != 131 {
		t.Fatalf("exit %d, want 131; stderr %s", code, s.stderr.String())
	}
	if !strings.Contains(s.stdout.String(), "# interrupted") {
		t.Errorf("no interrupted report:\n%s", s.stdout.String())
	}
	if strings.Contains(s.stderr.String(), "goroutine ") {
		t.Errorf("a goroutine dump on stderr:\n%s", s.stderr.String())
	}
	exportsWhole(t, dir)
}

// onTerminal is a process on a pseudo-terminal: what it drew, escape
// sequences taken out.
type onTerminal struct {
	*started
	master *os.File
	mu     sync.Mutex
	shown  strings.Builder
}

var escapes = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]`)

// startOnTerminal starts the binary on a new pseudo-terminal (its
// session's controlling terminal, 120x40); stderr goes to the terminal
// too unless stderr is set.
func startOnTerminal(t *testing.T, dir, xdg string, stderr *lockedBuf, args ...string) *onTerminal {
	t.Helper()
	s := &started{cmd: exec.Command(builtBenchtop(t), args...), stdout: &lockedBuf{}, stderr: &lockedBuf{}, done: make(chan struct{})}
	s.cmd.Dir = dir
	s.cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+xdg, "TERM=xterm-256color", "LANG=C.UTF-8")
	if stderr != nil {
		s.cmd.Stderr, s.stderr = stderr, stderr
	}
	master, err := pty.StartWithAttrs(s.cmd, &pty.Winsize{Rows: 40, Cols: 120}, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		t.Fatal(err)
	}
	tm := &onTerminal{started: s, master: master}
	go func() {
		buf := make([]byte, 8192)
		for {
			n, err := master.Read(buf)
			answerQueries(master, buf[:n])
			tm.mu.Lock()
			tm.shown.Write(buf[:n])
			if tm.shown.Len() > 1<<20 {
				// The last 512 KB are many frames: what a test waits for
				// is drawn again with each change.
				last := tm.shown.String()[tm.shown.Len()-512<<10:]
				tm.shown.Reset()
				tm.shown.WriteString(last)
			}
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	s.wait(t)
	t.Cleanup(func() { master.Close() })
	return tm
}

// answerQueries answers what the program asks of its terminal in out as
// a terminal does: its background colour (OSC 11, black) and the cursor's
// position (DSR). Unanswered, each query waits out termenv's 5 s timeout
// before the screen starts (a test's terminal then cost 15 s of waiting).
func answerQueries(master *os.File, out []byte) {
	for range bytes.Count(out, []byte("\x1b]11;?")) {
		master.Write([]byte("\x1b]11;rgb:0000/0000/0000\x1b\\"))
	}
	for range bytes.Count(out, []byte("\x1b[6n")) {
		master.Write([]byte("\x1b[40;1R"))
	}
}

func (tm *onTerminal) screen() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return escapes.ReplaceAllString(tm.shown.String(), " ")
}

// waitFor waits until the terminal has shown re.
func (tm *onTerminal) waitFor(t *testing.T, re string) {
	t.Helper()
	rx := regexp.MustCompile(re)
	poll(t, "the terminal to show "+re, func() bool { return rx.MatchString(tm.screen()) })
}

// hangUp closes the terminal: the kernel hangs it up and sends SIGHUP
// to its session's leader, the process.
func (tm *onTerminal) hangUp(t *testing.T) {
	t.Helper()
	if err := tm.master.Close(); err != nil {
		t.Fatal(err)
	}
}

// listed is `benchtop attach --list`'s line of run pid, "" when it is
// not listed.
func listed(t *testing.T, xdg string, pid int) string {
	t.Helper()
	cmd := exec.Command(builtBenchtop(t), "attach", "--list")
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+xdg)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("attach --list: %v", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 && f[0] == strconv.Itoa(pid) {
			return l
		}
	}
	return ""
}

// The live screen's terminal is lost (closed: a dropped SSH session):
// the run goes on detached, listed with its report's path; benchtop
// attach from another terminal shows the same run (the threads set
// before), its keys act, and q stops the run: attach exits with the
// run's status, the run with its own (0), and the report file, named in
// the JSON, is beside the exports with no temporary file left.
func TestHangupOnTheScreenThenAttach(t *testing.T) {
	if testing.Short() {
		t.Skip("a run on a pseudo-terminal, hung up and attached again, for seconds (go test -short skips it)")
	}
	t.Parallel()
	dir, xdg := t.TempDir(), t.TempDir()
	stderr := &lockedBuf{}
	run := startOnTerminal(t, dir, xdg, stderr, runArgs...)
	run.waitFor(t, `Threads\s+1\b`)
	pid := run.cmd.Process.Pid
	// The notice opens with how to attach, then "runs until stopped: ..."
	// (this run has no end), whose end may be cut at 120 columns.
	run.waitFor(t, "run "+strconv.Itoa(pid)+": if this terminal is lost, the run goes on: benchtop attach "+strconv.Itoa(pid))
	run.waitFor(t, "runs until stopped")
	run.master.Write([]byte("+"))
	run.waitFor(t, `Threads\s+2\b`)
	if l := listed(t, xdg, pid); !strings.Contains(l, "on screen") {
		t.Fatalf("before the hangup: %q", l)
	}

	run.hangUp(t)
	poll(t, "the run to be listed detached", func() bool { return strings.Contains(listed(t, xdg, pid), "detached") })
	goesOn(t, run.started, dir)
	line := listed(t, xdg, pid)
	report := regexp.MustCompile(`/\S*benchtop-report-[0-9-]+\.txt`).FindString(line)
	if report == "" || filepath.Dir(report) != dir {
		t.Fatalf("attach --list does not give the report's path beside the exports (%s): %q", dir, line)
	}

	att := startOnTerminal(t, dir, xdg, nil, "attach", strconv.Itoa(pid))
	att.waitFor(t, "attached to run "+strconv.Itoa(pid))
	att.waitFor(t, `Threads\s+2\b`)
	att.master.Write([]byte("+"))
	att.waitFor(t, `Threads\s+3\b`)
	att.master.Write([]byte("q"))
	if code := att.exit(t); code != 0 {
		t.Fatalf("attach: exit %d; it showed:\n%s", code, att.screen())
	}
	// Its last lines may still be on their way through the terminal.
	att.waitFor(t, regexp.QuoteMeta("run "+strconv.Itoa(pid)+" ended with exit status 0"))
	att.waitFor(t, regexp.QuoteMeta("wrote "+report))
	if code := run.exit(t); code != 0 {
		t.Fatalf("the run: exit %d, want its own 0; stderr %s", code, stderr.String())
	}
	reportFile, _ := exportsWhole(t, dir, filepath.Base(report))
	if reportFile != report {
		t.Errorf("the JSON's report_file %q, want %q", reportFile, report)
	}
	if b, _ := os.ReadFile(report); !strings.Contains(string(b), "[OVERALL], Throughput(ops/sec)") {
		t.Errorf("the report file:\n%s", b)
	}
	if ents, _ := os.ReadDir(filepath.Join(xdg, "benchtop")); len(ents) != 0 {
		t.Errorf("the run's socket is left: %v", ents)
	}
}

// A run with an end whose terminal (standard error too) is lost ends as
// it would have, with its own exit status; its lines go to --log and its
// report to a file in the working directory (no exports folder).
func TestHangupOnTheScreenRunWithAnEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("a 4 s run on a pseudo-terminal (go test -short skips it)")
	}
	t.Parallel()
	dir, xdg := t.TempDir(), t.TempDir()
	run := startOnTerminal(t, dir, xdg, nil, "run", "memory", "-target", "2000", "-p", "recordcount=200", "-p", "operationcount=0",
		"-p", "maxexecutiontime=4", "--log", "lib.log")
	run.waitFor(t, `Threads\s+1\b`)
	run.hangUp(t)
	if code := run.exit(t); code != 0 {
		t.Fatalf("exit %d, want the run's own 0", code)
	}
	files := dirEntries(t, dir)
	var report string
	for name := range files {
		switch {
		case strings.HasPrefix(name, "benchtop-report-") && strings.HasSuffix(name, ".txt"):
			report = filepath.Join(dir, name)
		case name != "lib.log":
			t.Errorf("unexpected file %s", name)
		}
	}
	if b, _ := os.ReadFile(report); !strings.Contains(string(b), "[OVERALL], Throughput(ops/sec)") {
		t.Errorf("no report file in the working directory: %v", files)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lib.log")); !strings.Contains(string(b), "benchtop: wrote "+report) {
		t.Errorf("the lines after the hangup are not in --log:\n%s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lib.log")); !regexp.MustCompile(`benchtop: terminal lost \d+s into the run; the run goes on to its end`).Match(b) {
		t.Errorf("--log does not say how long the run had run when its terminal went:\n%s", b)
	}
}

// A terminal that goes after the report was started for it (its writes
// fail with EIO, its SIGHUP not yet taken: the moment a loaded machine
// stretched in CI) gets the report as a file, the run's status
// unchanged, instead of an error and status 1.
func TestReportForATerminalThatWentIsAFile(t *testing.T) {
	t.Parallel()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer tty.Close()
	st := newState(nil, tty, tty, io.Discard, nil)
	if !st.stdoutTTY {
		t.Fatal("the pseudo-terminal is not seen as a terminal")
	}
	path := filepath.Join(t.TempDir(), "benchtop-report.txt")
	out, done := reportOut(st, nil, path)
	fmt.Fprintln(out, "[OVERALL], Throughput(ops/sec), 1234.5")
	master.Close() // the terminal goes before the report reaches it
	file, err := done()
	if err != nil {
		t.Fatalf("the report failed: %v", err)
	}
	if file != path {
		t.Fatalf("the report went to %q, want the file %s", file, path)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "[OVERALL], Throughput(ops/sec), 1234.5\n" {
		t.Fatalf("the report file holds %q (%v)", b, err)
	}

	// While the terminal is there, the report is on it and no file is made.
	master, tty, err = pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	go io.Copy(io.Discard, master)
	st = newState(nil, tty, tty, io.Discard, nil)
	path2 := filepath.Join(t.TempDir(), "benchtop-report.txt")
	out, done = reportOut(st, nil, path2)
	fmt.Fprintln(out, "[OVERALL], Throughput(ops/sec), 1234.5")
	if file, err := done(); err != nil || file != "" {
		t.Fatalf("on a live terminal: file %q, error %v; want the terminal", file, err)
	}
	if _, err := os.Stat(path2); !os.IsNotExist(err) {
		t.Fatalf("a report file was made beside a live terminal: %v", err)
	}
}
