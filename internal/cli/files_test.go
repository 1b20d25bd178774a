package cli

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
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
)

// The rules of the files a run writes, on the built binary with real
// files: an output is a regular file that is no input and no other
// output, or standard output for one of them; device nodes only in a
// private mount namespace over a scratch folder.

// built is benchtop built once for the package's binary tests; TestMain
// removes it.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// builtBenchtop is the benchtop binary, built once.
func builtBenchtop(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "benchtop-cli-test-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "benchtop")
		out, err := exec.Command("go", "build", "-o", built.bin, "../..").CombinedOutput()
		if err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func removeBuilt() {
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
}

// runIn runs the binary in dir with args, no standard input; it returns
// stdout, stderr and the exit status.
func runIn(t *testing.T, dir string, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// snapshotDir is what dir holds: each name with its type, and a link's
// target or a file's size and SHA-256 (read as a stream: a copy of the
// binary is 60 MB, and a test process that grows makes the RSS its
// children report, measured by other tests, grow with it).
func snapshotDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		fi, _ := os.Lstat(p)
		v := fi.Mode().Type().String()
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			v += " -> " + l
		case fi.Mode().IsRegular():
			h := sha256.New()
			if f, err := os.Open(p); err == nil {
				io.Copy(h, f)
				f.Close()
			}
			v += fmt.Sprintf(" %d %x", fi.Size(), h.Sum(nil))
		}
		out[e.Name()] = v
	}
	return out
}

// copyFile copies src to dst (mode 0755) as a stream.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// quick is a short headless run.
var quick = []string{"run", "memory", "--headless", "-p", "recordcount=100", "-p", "operationcount=500"}

// Every case of issue 25 that wrote where it must not: one line, exit
// status 2, and nothing in the folder changed, before the database is
// touched.
func TestOutputsRefusedOnTheBinary(t *testing.T) {
	t.Parallel()
	bin := builtBenchtop(t)
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
		args  []string
		want  []string
	}{
		{"symlink", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "target.txt"), []byte("keep"), 0o644)
			os.Symlink("target.txt", filepath.Join(dir, "link.json"))
		}, []string{"--json", "link.json"}, []string{"--json link.json", "is a symbolic link (to target.txt)"}},
		{"fifo", func(t *testing.T, dir string) { syscall.Mkfifo(filepath.Join(dir, "f"), 0o644) },
			[]string{"--timeseries", "f"}, []string{"--timeseries f", "is a FIFO"}},
		{"directory", func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, "d"), 0o755) },
			[]string{"--html", "d"}, []string{"--html d", "is a directory"}},
		{"-P wa.P --json wa.P", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "wa.P"), []byte("recordcount=100\noperationcount=500\n"), 0o644)
		}, []string{"-P", "wa.P", "--json", "wa.P"}, []string{"--json wa.P", "is the -P file", "never writes over an input"}},
		{"a hard link of the -P file", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "wa.P"), []byte("recordcount=100\noperationcount=500\n"), 0o644)
			os.Link(filepath.Join(dir, "wa.P"), filepath.Join(dir, "out.json"))
		}, []string{"-P", "wa.P", "--json", "out.json"}, []string{"--json out.json", "is the -P file (wa.P)"}},
		{"--json s --timeseries s", nil, []string{"--json", "s", "--timeseries", "s"}, []string{"--timeseries s", "is also --json's file (s)"}},
		{"--json s --log ./s", nil, []string{"--json", "s", "--log", "./s"}, []string{"--log ./s", "is also --json's file (s)"}},
		{"exportfile and --hdr-log", func(t *testing.T, dir string) { os.Mkdir(filepath.Join(dir, "sub"), 0o755) },
			[]string{"--hdr-log", "x", "-p", "exportfile=sub/../x"}, []string{"exportfile sub/../x", "is also --hdr-log's file"}},
		{"--baseline b.json --json b.json", func(t *testing.T, dir string) {
			_, errb, code := runIn(t, dir, bin, append(quick, "--json", "b.json")...)
			if code != 0 {
				t.Fatalf("baseline run: %d %s", code, errb)
			}
		}, []string{"--baseline", "b.json", "--json", "b.json"}, []string{"--json b.json", "is the --baseline file"}},
		{"the running program", func(t *testing.T, dir string) { copyFile(t, bin, filepath.Join(dir, "benchtop")) },
			[]string{"--json", "./benchtop"}, []string{"--json ./benchtop", "is the running program"}},
		{"two outputs on standard output", nil, []string{"--json", "-", "--hdr-log", "/dev/stdout"},
			[]string{"--hdr-log /dev/stdout", "standard output is already --json's"}},
		{"HDR files over the -P file", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "h-READ.hdr"), []byte("recordcount=100\n"), 0o644)
		}, []string{"-P", "h-READ.hdr", "-p", "hdrhistogram.fileoutput=true", "-p", "hdrhistogram.output.path=h-"},
			[]string{"hdrhistogram.output.path h-READ.hdr", "is the -P file"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if c.setup != nil {
				c.setup(t, dir)
			}
			before := snapshotDir(t, dir)
			bin := bin
			if c.name == "the running program" {
				bin = filepath.Join(dir, "benchtop")
			}
			_, stderr, code := runIn(t, dir, bin, append(append([]string(nil), quick...), c.args...)...)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, stderr)
			}
			oneLineOf(t, stderr, c.want...)
			if after := snapshotDir(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
				t.Errorf("the folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// A socket at an output's path is refused (in a folder of its own: a
// socket's path is short).
func TestOutputOnASocketRefused(t *testing.T) {
	t.Parallel()
	bin := builtBenchtop(t)
	dir, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, stderr, code := runIn(t, dir, bin, append(quick, "--hdr-log", "s")...)
	if code != 2 {
		t.Fatalf("exit %d; %s", code, stderr)
	}
	oneLineOf(t, stderr, "--hdr-log s", "is a socket")
}

// benchtop report -o over its input is refused; -o - writes the page on
// standard output.
func TestReportOutputRules(t *testing.T) {
	t.Parallel()
	bin := builtBenchtop(t)
	dir := t.TempDir()
	if _, errb, code := runIn(t, dir, bin, append(quick, "--json", "run.json")...); code != 0 {
		t.Fatal(errb)
	}
	before := snapshotDir(t, dir)
	_, stderr, code := runIn(t, dir, bin, "report", "run.json", "-o", "./run.json")
	if code != 2 {
		t.Fatalf("exit %d; %s", code, stderr)
	}
	oneLineOf(t, stderr, "-o ./run.json", "is the report's input file (run.json)")
	if after := snapshotDir(t, dir); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Error("the folder changed")
	}
	out, stderr, code := runIn(t, dir, bin, "report", "run.json", "-o", "-")
	if code != 0 || !strings.HasPrefix(out, "<!DOCTYPE html>") || stderr != "" {
		t.Errorf("report -o -: exit %d, stdout %.40q, stderr %q", code, out, stderr)
	}
}

// --json - writes the JSON alone on standard output (the report goes to
// standard error), so that it can be piped; /dev/stdout is the same.
func TestJSONOnStandardOutput(t *testing.T) {
	t.Parallel()
	bin := builtBenchtop(t)
	for _, path := range []string{"-", "/dev/stdout"} {
		dir := t.TempDir()
		out, stderr, code := runIn(t, dir, bin, append(quick, "--json", path, "--timeseries", "x.csv")...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var doc struct {
			Tool       string `json:"tool"`
			Operations []any  `json:"operations"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Tool != "benchtop" || len(doc.Operations) == 0 {
			t.Errorf("--json %s: stdout is not the JSON summary alone (%v): %.200q", path, err, out)
		}
		if !strings.Contains(stderr, "[OVERALL], Throughput(ops/sec)") || !strings.Contains(stderr, "wrote x.csv") {
			t.Errorf("--json %s: the report is not on stderr: %q", path, stderr)
		}
		if got := snapshotDir(t, dir); len(got) != 1 {
			t.Errorf("--json %s: files %v", path, got)
		}
	}
}

// unshareScript runs a shell script as root in a private mount
// namespace (unshare -m), so that the tmpfs it mounts and the device
// nodes it makes are seen by nothing else and vanish with it; it skips
// the test elsewhere.
func unshareScript(t *testing.T, script string, args ...string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root: a private mount namespace with a tmpfs (device nodes, a full disk)")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("needs unshare (util-linux)")
	}
	cmd := exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-euc", script, "sh"}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("unshare: %v\n%s", err, out)
	}
	return string(out)
}

// Device nodes (a scratch /dev: a tmpfs over a folder of the test's, in
// a private mount namespace, never the real /dev) are refused for every
// output, and stay device nodes.
func TestOutputsRefuseDevices(t *testing.T) {
	t.Parallel()
	bin := builtBenchtop(t)
	scratch := filepath.Join(t.TempDir(), "dev")
	os.Mkdir(scratch, 0o755)
	out := unshareScript(t, `
bin=$1; dev=$2
mount -t tmpfs -o size=1m tmpfs "$dev"
mknod -m 666 "$dev/full" c 1 7
mknod -m 666 "$dev/null" c 1 3
q="run memory --headless -p recordcount=100 -p operationcount=500"
for node in full null; do
  for flag in --json --timeseries --hdr-log --html --log -p; do
    if [ "$flag" = -p ]; then a="-p exportfile=$dev/$node"; else a="$flag $dev/$node"; fi
    set +e; "$bin" $q $a >/dev/null 2>"$dev/../err"; code=$?; set -e
    echo "case $flag $node exit=$code kind=$(stat -c %F "$dev/$node") err=$(cat "$dev/../err" | tr '\n' '|')"
  done
done
echo "files: $(ls -A "$dev" | tr '\n' ' ')"
`, bin, scratch)
	lines := 0
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "case ") {
			continue
		}
		lines++
		if !strings.Contains(l, "exit=2 kind=character special file") || !strings.Contains(l, "is a character device, not a regular file") ||
			strings.Count(l, "|") != 1 {
			t.Errorf("%s", l)
		}
	}
	if lines != 12 {
		t.Errorf("%d cases ran, want 12:\n%s", lines, out)
	}
	if !regexp.MustCompile(`(?m)^files: full null $`).MatchString(out) {
		t.Errorf("the scratch /dev holds more than its nodes:\n%s", out)
	}
}

// A write that fails (a full disk: a size-limited tmpfs) is told with
// the flag, the path and the cause, exit status 1, and no temporary file
// is left.
func TestOutputWriteErrorOnAFullDisk(t *testing.T) {
	t.Parallel()
	bin := builtBenchtop(t)
	mnt := filepath.Join(t.TempDir(), "full")
	os.Mkdir(mnt, 0o755)
	out := unshareScript(t, `
bin=$1; d=$2
mount -t tmpfs -o size=64k tmpfs "$d"
# Fill it: the files can be created, nothing more can be written.
head -c 1000000 /dev/zero >"$d/fill" 2>/dev/null || true
set +e
"$bin" run memory --headless -p recordcount=100 -p operationcount=2000 --json "$d/x.json" --timeseries "$d/x.csv" --hdr-log "$d/x.hlog" -p exportfile="$d/x.txt" >/dev/null 2>"$d/../err"
echo "exit=$?"
set -e
cat "$d/../err"
echo "files: $(ls -A "$d" | tr '\n' ' ')"
`, bin, mnt)
	if !strings.Contains(out, "exit=1\n") {
		t.Fatalf("want exit status 1:\n%s", out)
	}
	for _, want := range []string{"--json " + mnt + "/x.json: no space left on device", "--timeseries " + mnt + "/x.csv: no space left on device",
		"--hdr-log " + mnt + "/x.hlog: no space left on device", "exportfile " + mnt + "/x.txt: no space left on device"} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr does not say %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "files: fill \n") {
		t.Errorf("files left on the full disk:\n%s", out)
	}
}
