package cli

import (
	"bufio"
	"flag"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"benchtop/internal/sigfirst"
)

// childEnv makes the test binary act as benchtop (see TestMain).
const childEnv = "BENCHTOP_TEST_MAIN"

// parallelTests is how many of the package's parallel tests run at once
// unless -parallel says otherwise (at least GOMAXPROCS).
const parallelTests = 16

// TestMain runs the tests, or, in a child started by startChild, says
// "ready" once the process has started (every package initialised), waits
// for a line on stdin, then runs Main as main does with the arguments in
// the environment: a signal sent between the two is one that came while the
// program started.
func TestMain(m *testing.M) {
	if args, ok := os.LookupEnv(childEnv); ok {
		os.Stderr.WriteString("ready\n")
		bufio.NewReader(os.Stdin).ReadString('\n')
		// The parent signalled before its line: wait until the signal is
		// in sigfirst's channel, so that Main starts with it caught.
		for deadline := time.Now().Add(time.Minute); len(sigfirst.C()) == 0 && time.Now().Before(deadline); {
			time.Sleep(time.Millisecond)
		}
		// What benchtop's main does.
		os.Exit(Main(strings.Split(args, "\x1f"), os.Stdin, os.Stdout, os.Stderr, sigfirst.C()))
	}
	// The tests send no real signals to themselves: ^C must stop go test,
	// and its SIGQUIT on a timeout dump the goroutines.
	signal.Reset(syscall.SIGINT, syscall.SIGTERM, syscall.SIGQUIT, syscall.SIGHUP)
	// The parallel tests mostly wait (for a run's set length, a child
	// process, a signal's effect), not compute: -parallel's default, one
	// test per core, ran them two at a time on a 2-core machine. An
	// explicit -parallel still wins.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		flag.Set("test.parallel", strconv.Itoa(max(parallelTests, runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	removeBuilt() // files_test.go
	os.Exit(code)
}

// A signal while the program starts (before Main) is caught: the process
// exits with 143 after one line, and leaves no export file, never killed
// by the signal with nothing said.
func TestSignalWhileStarting(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"run memory", "run mongodb at a closed port"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			args := append([]string{"run", "memory", "--headless", "-p", "recordcount=1000"}, exportArgs(dir)...)
			if strings.Contains(name, "mongodb") {
				args = append([]string{"run", "mongodb", "-p", "mongodb.url=mongodb://127.0.0.1:1/ycsb"}, exportArgs(dir)...)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, "\x1f"))
			stdin, _ := cmd.StdinPipe()
			stderr, _ := cmd.StderrPipe()
			var out strings.Builder
			cmd.Stdout = &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r := bufio.NewReader(stderr)
			if l, err := r.ReadString('\n'); l != "ready\n" {
				t.Fatalf("child said %q, %v", l, err)
			}
			cmd.Process.Signal(syscall.SIGTERM)
			io.WriteString(stdin, "go\n")
			rest, _ := io.ReadAll(r)
			err := cmd.Wait()
			st := cmd.ProcessState
			if !st.Exited() || st.ExitCode() != 143 {
				t.Fatalf("child: %v (want exit status 143); stderr %q", err, rest)
			}
			msg := string(rest)
			if !strings.Contains(msg, "SIGTERM") || strings.Count(msg, "\n") != 1 {
				t.Errorf("want one line naming SIGTERM, got %q (stdout %q)", msg, out.String())
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			hidden, _ := filepath.Glob(filepath.Join(dir, ".*"))
			if len(files)+len(hidden) != 0 {
				t.Errorf("files left: %v %v", files, hidden)
			}
		})
	}
}

// run is Main without signals, for tests. It returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	return Main(args, os.Stdin, stdout, stderr, nil)
}

// runWithSignals is Main with the signals from sigs.
func runWithSignals(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	return Main(args, os.Stdin, stdout, stderr, sigs)
}

// runReport is `benchtop report` with args.
func runReport(args []string, stdout, stderr io.Writer) int {
	return run(append([]string{"report"}, args...), stdout, stderr)
}

// parseArgs parses a run's command line (args[0] is load, run or demo).
func parseArgs(args []string) (*options, error) {
	return parseRun(args[0], args[1:], args)
}
