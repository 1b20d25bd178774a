package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

// syncBuffer is a bytes.Buffer that the test may read while run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testDB is an adapter for lifecycle tests: every operation succeeds at
// once and is counted; the first one closes started. It cannot
// repartition unless repart is set (then SetPartitions fails).
type testDB struct {
	ops     atomic.Int64
	once    sync.Once
	started chan struct{}
}

func (d *testDB) op() error {
	d.ops.Add(1)
	d.once.Do(func() { close(d.started) })
	return nil
}

func (d *testDB) Read(_ context.Context, _, _ string, _ []string, dst []adapters.Field) ([]adapters.Field, error) {
	return dst, d.op()
}
func (d *testDB) Scan(_ context.Context, _, _ string, _ int, _ []string, dst []adapters.Record) ([]adapters.Record, error) {
	return dst, d.op()
}
func (d *testDB) Update(context.Context, string, string, []adapters.Field) error { return d.op() }
func (d *testDB) Insert(context.Context, string, string, []adapters.Field) error { return d.op() }
func (d *testDB) Delete(context.Context, string, string) error                   { return d.op() }
func (d *testDB) Close() error                                                   { return nil }

// failingRepartDB can be asked to repartition, and always fails to.
type failingRepartDB struct{ *testDB }

func (failingRepartDB) Partitions() int { return 1 }
func (failingRepartDB) SetPartitions(context.Context, int) error {
	return errors.New("test: the shards\nwould not move")
}

// testAdapters are registered once for the process. The tests that read
// last (TestSignalDuringRun, TestPartitionStepRefused,
// TestFailedStepReported) run one at a time, not in parallel: each would
// read another's adapter (in parallel, TestSignalDuringRun waited for
// the first operation of TestPartitionStepRefused's, which runs none).
var testAdapters struct {
	once    sync.Once
	mu      sync.Mutex
	last    *testDB
	opening chan struct{} // test-hang's Open sends when entered
}

func registerTestAdapters() {
	testAdapters.once.Do(func() {
		testAdapters.opening = make(chan struct{}, 1)
		newDB := func() *testDB {
			d := &testDB{started: make(chan struct{})}
			testAdapters.mu.Lock()
			testAdapters.last = d
			testAdapters.mu.Unlock()
			return d
		}
		adapters.Register(adapters.Driver{Name: "test-ops", Description: "test: counts operations",
			Open: func(context.Context, adapters.Properties) (adapters.DB, error) { return newDB(), nil }})
		adapters.Register(adapters.Driver{Name: "test-repart-fails", Description: "test: repartitioning fails",
			Open: func(context.Context, adapters.Properties) (adapters.DB, error) { return failingRepartDB{newDB()}, nil }})
		adapters.Register(adapters.Driver{Name: "test-hang", Description: "test: connects until cancelled",
			Open: func(ctx context.Context, _ adapters.Properties) (adapters.DB, error) {
				select {
				case testAdapters.opening <- struct{}{}:
				default:
				}
				<-ctx.Done()
				return nil, ctx.Err()
			}})
		adapters.Register(adaptertest.OpenBoundDriver("test-bound", "test.slow"))
	})
}

// The open bound is the driver's when it asks for longer than the
// default: HBase creating a pre-split table on a busy host outlasted 30 s.
func TestOpenBoundIsTheDrivers(t *testing.T) {
	t.Parallel()
	registerTestAdapters()
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "given 30s"},
		{[]string{"-p", "test.slow=true"}, "given 2h0m0s"},
	} {
		var out, errb syncBuffer
		code := runWithSignals(append([]string{"run", "test-bound", "--headless"}, c.args...), &out, &errb, make(chan os.Signal))
		if code != exitFailure || !strings.Contains(errb.String(), "test-bound: cannot open: "+c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", c.args, code, errb.String(), c.want)
		}
	}
}

// resetTestDB forgets the last test adapter opened.
func resetTestDB() {
	testAdapters.mu.Lock()
	testAdapters.last = nil
	testAdapters.mu.Unlock()
}

func lastTestDB() *testDB {
	testAdapters.mu.Lock()
	defer testAdapters.mu.Unlock()
	return testAdapters.last
}

// exportArgs asks for every export in dir.
func exportArgs(dir string) []string {
	return []string{"--json", filepath.Join(dir, "x.json"), "--timeseries", filepath.Join(dir, "x.csv"), "--hdr-log", filepath.Join(dir, "x.hlog")}
}

func dirEntries(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = info.Size()
	}
	return out
}

func oneLineOf(t *testing.T, stderr string, want ...string) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if len(lines) != 1 {
		t.Errorf("want one line on stderr, got %d:\n%s", len(lines), stderr)
	}
	for _, w := range want {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr %q does not say %q", stderr, w)
		}
	}
}

// A signal that came before the run started (here: before run was even
// called) stops it with one line and 143; no export file is created.
func TestSignalBeforeStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM
	var out, errb syncBuffer
	code := runWithSignals(append([]string{"run", "memory", "--headless", "-p", "recordcount=10"}, exportArgs(dir)...), &out, &errb, sigs)
	if code != 143 {
		t.Fatalf("exit %d, want 143; stderr %s", code, errb.String())
	}
	oneLineOf(t, errb.String(), "SIGTERM", "before the run started")
	if got := dirEntries(t, dir); len(got) != 0 {
		t.Errorf("files created: %v", got)
	}
}

// A signal during an adapter's connect cancels it: one line, 130, no
// export file.
func TestSignalDuringOpen(t *testing.T) {
	t.Parallel()
	registerTestAdapters()
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	go func() {
		<-testAdapters.opening
		sigs <- syscall.SIGINT
	}()
	var out, errb syncBuffer
	done := make(chan int)
	go func() {
		done <- runWithSignals(append([]string{"run", "test-hang", "--headless"}, exportArgs(dir)...), &out, &errb, sigs)
	}()
	var code int
	select {
	case code = <-done:
	case <-time.After(adapters.DefaultOpenTimeout / 2):
		t.Fatal("the signal did not cancel the connect")
	}
	if code != 130 {
		t.Fatalf("exit %d, want 130; stderr %s", code, errb.String())
	}
	oneLineOf(t, errb.String(), "test-hang", "open interrupted by SIGINT")
	if out.String() != "" {
		t.Errorf("stdout: %q", out.String())
	}
	if got := dirEntries(t, dir); len(got) != 0 {
		t.Errorf("files created: %v", got)
	}
}

// A signal during the run: the report is printed, every export is written
// whole under its name (no temporary file left), exit 143.
func TestSignalDuringRun(t *testing.T) {
	registerTestAdapters()
	resetTestDB()
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	var out, errb syncBuffer
	done := make(chan int)
	args := append([]string{"run", "test-ops", "--headless", "-p", "recordcount=100", "-p", "operationcount=0", "-p", "status.interval=100ms"}, exportArgs(dir)...)
	go func() { done <- runWithSignals(args, &out, &errb, sigs) }()
	deadline := time.Now().Add(30 * time.Second)
	for lastTestDB() == nil {
		if time.Now().After(deadline) {
			t.Fatal("the adapter was not opened")
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case <-lastTestDB().started:
	case <-time.After(30 * time.Second):
		t.Fatal("no operation ran")
	}
	sigs <- syscall.SIGTERM
	code := <-done
	if code != 143 {
		t.Fatalf("exit %d, want 143; stderr %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "[OVERALL], RunTime(ms)") || !strings.Contains(out.String(), "# interrupted") {
		t.Errorf("no interrupted report:\n%s", out.String())
	}
	files := dirEntries(t, dir)
	for _, name := range []string{"x.json", "x.csv", "x.hlog"} {
		if files[name] == 0 {
			t.Errorf("%s missing or empty: %v", name, files)
		}
	}
	if len(files) != 3 {
		t.Errorf("files left: %v", files)
	}
	var s struct {
		Interrupted bool `json:"interrupted"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "x.json"))
	if err := json.Unmarshal(b, &s); err != nil || !s.Interrupted {
		t.Errorf("JSON %v, interrupted=%v", err, s.Interrupted)
	}
}

// Partition steps on an adapter that cannot repartition are refused once
// it is open, before any operation: one line, exit 2.
func TestPartitionStepRefused(t *testing.T) {
	registerTestAdapters()
	for _, args := range [][]string{
		{"--at", "2s:partitions=8"},
		{"--sweep", "partitions=1,2", "--step", "1s"},
	} {
		dir := t.TempDir()
		resetTestDB()
		var out, errb syncBuffer
		code := run(append(append([]string{"run", "test-ops", "--headless", "-p", "recordcount=10"}, args...), exportArgs(dir)...), &out, &errb)
		if code != 2 {
			t.Fatalf("%v: exit %d, want 2; stderr %s", args, code, errb.String())
		}
		oneLineOf(t, errb.String(), args[0], "partitions", "cannot change its partition count")
		if n := lastTestDB().ops.Load(); n != 0 {
			t.Errorf("%v: %d operations ran", args, n)
		}
		if got := dirEntries(t, dir); len(got) != 0 {
			t.Errorf("files created: %v", got)
		}
	}
}

// A step that fails during the run is told on stderr as one line, and
// appended to the report and the JSON summary.
func TestFailedStepReported(t *testing.T) {
	registerTestAdapters()
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	var out, errb syncBuffer
	done := make(chan int)
	args := []string{"run", "test-repart-fails", "--headless", "-p", "recordcount=100", "-p", "operationcount=0",
		"-p", "status.interval=100ms", "--at", "0s:partitions=4", "--json", filepath.Join(dir, "x.json")}
	go func() { done <- runWithSignals(args, &out, &errb, sigs) }()
	const line = "0s partitions=4: test: the shards would not move"
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(errb.String(), line) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	sigs <- syscall.SIGINT
	if code := <-done; code != 130 {
		t.Fatalf("exit %d, want 130; stderr %s", code, errb.String())
	}
	if n := strings.Count(errb.String(), "benchtop: step failed: "+line+"\n"); n != 1 {
		t.Errorf("stderr has the failed step %d times:\n%s", n, errb.String())
	}
	if !strings.Contains(out.String(), "\n# step failed: "+line+"\n") {
		t.Errorf("report has no failed step:\n%s", out.String())
	}
	var s struct {
		Failed []struct{ Step, Source, Error string } `json:"failed_steps"`
		Phases []any                                  `json:"phases"`
	}
	b, _ := os.ReadFile(filepath.Join(dir, "x.json"))
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Failed) != 1 || s.Failed[0].Step != "0s partitions=4" || s.Failed[0].Source != `--at "0s:partitions=4"` ||
		s.Failed[0].Error != "test: the shards would not move" || len(s.Phases) == 0 {
		t.Errorf("JSON: %+v", s)
	}
}

// A finished run leaves each export under its name and nothing else.
func TestExportsWholeAfterRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var out, errb syncBuffer
	code := run(append([]string{"run", "memory", "--headless", "-p", "recordcount=100", "-p", "operationcount=200"}, exportArgs(dir)...), &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	files := dirEntries(t, dir)
	if len(files) != 3 || files["x.json"] == 0 || files["x.csv"] == 0 || files["x.hlog"] == 0 {
		t.Errorf("files: %v", files)
	}
	for _, name := range []string{"x.json", "x.csv", "x.hlog"} {
		if !strings.Contains(errb.String(), "wrote "+filepath.Join(dir, name)) {
			t.Errorf("no 'wrote' line for %s: %s", name, errb.String())
		}
	}
}
