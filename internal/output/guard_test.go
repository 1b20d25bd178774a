package output

import (
	"bytes"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// write makes a file holding text.
func write(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// refused wants err to name the flag, the path and the reason.
func refused(t *testing.T, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want an error saying %q", want)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("error on more than one line: %q", err)
	}
}

// noTemp fails if dir holds a temporary file.
func noTemp(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// Files that exist and are not regular files, and links, are refused,
// and left as they were.
func TestGuardRefusesWhatIsNotARegularFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	target := write(t, filepath.Join(dir, "target.txt"), "keep")
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink("target.txt", link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for _, c := range []struct{ path, why string }{
		{link, "is a symbolic link (to target.txt)"},
		{fifo, "is a FIFO"},
		{sock, "is a socket"},
		{sub, "is a directory"},
	} {
		err := NewGuard().Output("--json", c.path)
		refused(t, err, "--json", c.path, c.why)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target now holds %q", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is gone: %v", err)
	}
	noTemp(t, dir)
}

// An output that is an input is refused, whatever names it: the same
// path, another path through a link to its folder, a hard link; so is
// the running program.
func TestGuardRefusesAnInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wa := write(t, filepath.Join(dir, "wa.P"), "recordcount=10\n")
	hard := filepath.Join(dir, "hard.P")
	if err := os.Link(wa, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dir, filepath.Join(dir, "via")); err != nil {
		t.Fatal(err)
	}
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	g := NewGuard()
	g.Input("-P", wa)
	for _, p := range []string{wa, hard, filepath.Join(dir, "via", "wa.P"), dir + "/sub/../wa.P"} {
		refused(t, g.Output("--json", p), "--json "+p, "is the -P file", "never writes over an input")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	refused(t, NewGuard().Output("--html", exe), "is the running program")
	if b, _ := os.ReadFile(wa); string(b) != "recordcount=10\n" {
		t.Errorf("the input now holds %q", b)
	}
}

// Two outputs that are one file are refused, by identity: a file that
// does not exist yet is its folder and its name.
func TestGuardRefusesTwoOutputsInOneFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	if err := os.Symlink(dir, filepath.Join(dir, "via")); err != nil {
		t.Fatal(err)
	}
	s := filepath.Join(dir, "s")
	for _, other := range []string{s, dir + "/sub/../s", filepath.Join(dir, "via", "s")} {
		g := NewGuard()
		if err := g.Output("--json", s); err != nil {
			t.Fatal(err)
		}
		refused(t, g.Output("--timeseries", other), "--timeseries", "is also --json's file", "each output needs a file of its own")
	}
	// ".." after a link is the link's target's parent, as the kernel
	// reads it: l/../s is a/s, not s.
	os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755)
	os.Symlink(filepath.Join(dir, "a", "b"), filepath.Join(dir, "l"))
	g0 := NewGuard()
	if err := g0.Output("--json", dir+"/l/../s"); err != nil { // not filepath.Join: it cleans ".." away
		t.Fatal(err)
	}
	if err := g0.Output("--timeseries", s); err != nil {
		t.Errorf("%s is not l/../s: %v", s, err)
	}
	refused(t, g0.Output("--html", filepath.Join(dir, "a", "s")), "is also --json's file")

	// Existing files: a hard link is the same file.
	x := write(t, filepath.Join(dir, "x.json"), "{}")
	os.Link(x, filepath.Join(dir, "y.csv"))
	g := NewGuard()
	if err := g.Output("--json", x); err != nil {
		t.Fatal(err)
	}
	refused(t, g.Output("--timeseries", filepath.Join(dir, "y.csv")), "is also --json's file")
	// Different names in one folder are different files.
	if err := g.Output("--html", filepath.Join(dir, "x.html")); err != nil {
		t.Errorf("x.html: %v", err)
	}
	noTemp(t, dir)
}

// Standard output takes one output; - and /dev/stdout are both it.
func TestGuardStdoutOnce(t *testing.T) {
	t.Parallel()
	g := NewGuard()
	if err := g.Output("--json", "-"); err != nil {
		t.Fatal(err)
	}
	if g.Stdout() != "--json" {
		t.Errorf("Stdout() = %q", g.Stdout())
	}
	refused(t, g.Output("--timeseries", "/dev/stdout"), "--timeseries /dev/stdout", "standard output is already --json's")
	var b bytes.Buffer
	if err := WriteFile("-", &b, func(w io.Writer) error { _, err := io.WriteString(w, "{}\n"); return err }); err != nil || b.String() != "{}\n" {
		t.Errorf("WriteFile(-): %q, %v", b.String(), err)
	}
}

// YCSB's HDR files are a family (PREFIX + NAME + .hdr): one of them may
// be no input and no other output.
func TestGuardFamily(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	prefix := filepath.Join(dir, "run1-")
	in := write(t, filepath.Join(dir, "run1-READ.hdr"), "mine")
	g := NewGuard()
	g.Input("-P", in)
	refused(t, g.OutputFamily("hdrhistogram.output.path", prefix, ".hdr"), "hdrhistogram.output.path", in, "is the -P file")

	g = NewGuard()
	if err := g.Output("--json", filepath.Join(dir, "run1-UPDATE.hdr")); err != nil {
		t.Fatal(err)
	}
	refused(t, g.OutputFamily("hdrhistogram.output.path", prefix, ".hdr"), "is also --json's file")

	g = NewGuard()
	if err := g.OutputFamily("hdrhistogram.output.path", filepath.Join(dir, "run2-"), ".hdr"); err != nil {
		t.Fatal(err)
	}
	refused(t, g.Output("--hdr-log", filepath.Join(dir, "run2-Intended-READ.hdr")), "is one of hdrhistogram.output.path's files")

	os.Symlink(in, filepath.Join(dir, "run3-READ.hdr"))
	refused(t, NewGuard().OutputFamily("hdrhistogram.output.path", filepath.Join(dir, "run3-"), ".hdr"), "is a symbolic link")
}

// What is renamed over at the end is what was checked: a link put at the
// name since is left alone, and the temporary file removed.
func TestCommitLeavesALinkPutThereSince(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	final := filepath.Join(dir, "x.json")
	target := write(t, filepath.Join(dir, "target"), "keep")
	tf, err := newTempFile(final)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(tf.w, "{}")
	if err := os.Symlink(target, final); err != nil {
		t.Fatal(err)
	}
	err = tf.commit()
	if err == nil || !strings.Contains(err.Error(), "is now a symbolic link") {
		t.Fatalf("commit over a new link: %v", err)
	}
	if fi, _ := os.Lstat(final); fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the link was replaced")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("target holds %q", b)
	}
	noTemp(t, dir)
}

// A folder that cannot be found is named.
func TestGuardMissingFolder(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "nope", "x.json")
	err := NewGuard().Output("--json", p)
	refused(t, err, "--json "+p, "folder", "no such file or directory")
}

// CreateRegular (the profiles' files) empties a regular file and creates
// a new one, and refuses a link (the file behind it untouched) and a
// FIFO (never opened: a FIFO without a reader would block).
func TestCreateRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	old := write(t, filepath.Join(dir, "old.prof"), "old profile")
	for _, path := range []string{old, filepath.Join(dir, "new.prof")} {
		f, err := CreateRegular(path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		f.WriteString("new")
		f.Close()
		if b, _ := os.ReadFile(path); string(b) != "new" {
			t.Errorf("%s holds %q, want %q", path, b, "new")
		}
	}
	victim := write(t, filepath.Join(dir, "victim"), "keep me")
	link := filepath.Join(dir, "link.prof")
	os.Symlink(victim, link)
	if f, err := CreateRegular(link); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		f.Close()
		t.Errorf("a link: %v", err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep me" {
		t.Errorf("the file behind the link holds %q", b)
	}
	fifo := filepath.Join(dir, "fifo.prof")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := CreateRegular(fifo); err == nil || !strings.Contains(err.Error(), "a FIFO") {
		f.Close()
		t.Errorf("a FIFO: %v", err)
	}
}
