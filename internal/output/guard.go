package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Guard holds the rules of every file a command writes, checked before
// anything touches the database: an output is a regular file that is not
// an input and not another output, or standard output ("-" or
// /dev/stdout) for one output at a time. A path that exists and is not a
// regular file (a device, a FIFO, a socket, a directory) is refused, and
// so is a symbolic link: benchtop never writes through a link, so that a
// link planted where a file is expected (benchtop often runs as root)
// cannot turn an export into a write over another file. "The same file"
// is file identity, never a comparison of names: os.SameFile for files
// that exist (hard links included), and for a file that does not exist
// yet the identity of its folder (symbolic links in it resolved) and its
// name.
type Guard struct {
	inputs  []guarded
	outputs []guarded
	stdout  string // the flag of the output that is standard output
}

// guarded is one file of the Guard: the flag that named it and its
// identity.
type guarded struct {
	flag, path string
	info       fs.FileInfo // the file, nil when it does not exist (yet)
	dir        fs.FileInfo // its folder, for a file that does not exist
	base       string
	family     string // a family of files: names base+"*"+family (YCSB's HDR files)
}

// NewGuard is a Guard with no file; the running program is an input
// (benchtop never writes over itself).
func NewGuard() *Guard {
	g := &Guard{}
	if exe, err := os.Executable(); err == nil {
		g.Input("the running program", exe)
	}
	return g
}

// IsStdout tells whether path means standard output: "-" or /dev/stdout.
func IsStdout(path string) bool { return path == "-" || path == "/dev/stdout" }

// Input records a file the command reads; one that cannot be found is
// left to its reader to report.
func (g *Guard) Input(flag, path string) {
	if path == "" || IsStdout(path) {
		return
	}
	info, err := os.Stat(path)
	if err != nil {
		return
	}
	g.inputs = append(g.inputs, guarded{flag: flag, path: path, info: info})
}

// Stdout is the flag of the output that goes to standard output, "" when
// none does.
func (g *Guard) Stdout() string { return g.stdout }

// Output checks path as an output named by flag and records it; the
// error names the flag, the path and why. It leaves nothing behind.
func (g *Guard) Output(flag, path string) error {
	if path == "" {
		return nil
	}
	if IsStdout(path) {
		if g.stdout != "" {
			return fmt.Errorf("%s %s: standard output is already %s's; one output at a time may go to standard output", flag, path, g.stdout)
		}
		g.stdout = flag
		return nil
	}
	f, err := g.check(flag, path)
	if err != nil {
		return err
	}
	g.outputs = append(g.outputs, f)
	return nil
}

// Check checks path as Output does, without recording it: a file written
// later (the s key's report) must not be an input or an output either.
func (g *Guard) Check(flag, path string) error {
	if g == nil {
		g = NewGuard()
	}
	_, err := g.check(flag, path)
	return err
}

// OutputFamily checks and records a family of outputs: the files named
// prefix + NAME + suffix for any NAME (YCSB's HDR files,
// hdrhistogram.output.path + READ.hdr, ...). Every file of the family
// that exists is checked as an output, and the family must hold no
// input and no other output.
func (g *Guard) OutputFamily(flag, prefix, suffix string) error {
	dir, base := filepath.Split(prefix)
	if dir == "" {
		dir = "."
	}
	where := prefix + "NAME" + suffix
	di, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: folder %s: %v", flag, where, dir, PathCause(err))
	}
	if !di.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flag, where, dir)
	}
	fam := guarded{flag: flag, path: where, dir: di, base: base, family: suffix}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("%s %s: folder %s: %v", flag, where, dir, PathCause(err))
	}
	for _, e := range entries {
		if fam.holds(e.Name()) {
			f, err := g.check(flag, filepath.Join(dir, e.Name()))
			if err != nil {
				return err
			}
			g.outputs = append(g.outputs, f)
		}
	}
	for _, in := range g.inputs {
		if fam.holdsFile(in) {
			return fmt.Errorf("%s %s: %s is %s; benchtop never writes over an input", flag, where, in.path, in.what())
		}
	}
	for _, out := range g.outputs {
		if out.flag != flag && fam.holdsFile(out) {
			return fmt.Errorf("%s %s: %s is also %s's file; each output needs a file of its own", flag, where, out.path, out.flag)
		}
	}
	if err := CheckWritable(prefix + "READ" + suffix); err != nil {
		return fmt.Errorf("%s %s: %v", flag, where, err)
	}
	g.outputs = append(g.outputs, fam)
	return nil
}

// check applies the rules to one path.
func (g *Guard) check(flag, path string) (guarded, error) {
	dir, base := splitPath(path)
	f := guarded{flag: flag, path: path, base: base}
	bad := func(format string, a ...any) (guarded, error) {
		return f, fmt.Errorf("%s %s: "+format, append([]any{flag, path}, a...)...)
	}
	if IsStdout(path) {
		return bad("standard output cannot take this file")
	}
	if base == "" || base == "." || base == ".." {
		return bad("is a folder's name; give a file's")
	}
	li, err := os.Lstat(path)
	switch {
	case err == nil && li.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return bad("is a symbolic link (to %s); benchtop writes only regular files and never through a link: give the target's path, or remove the link", target)
	case err == nil && li.IsDir():
		return bad("is a directory")
	case err == nil && !li.Mode().IsRegular():
		return bad("is %s, not a regular file; benchtop writes only regular files%s", kindOf(li.Mode()), kindHint(li.Mode()))
	case err == nil:
		f.info = li
	case !errors.Is(err, fs.ErrNotExist):
		return bad("%v", PathCause(err))
	}
	di, err := os.Stat(dir)
	if err != nil {
		return bad("folder %s: %v", dir, PathCause(err))
	}
	if !di.IsDir() {
		return bad("%s is not a directory", dir)
	}
	f.dir = di
	for _, in := range g.inputs {
		if f.same(in) {
			if in.path == path {
				return bad("is %s; benchtop never writes over an input", in.what())
			}
			return bad("is %s (%s); benchtop never writes over an input", in.what(), in.path)
		}
	}
	for _, out := range g.outputs {
		if f.same(out) {
			if out.family != "" {
				return bad("is one of %s's files (%s); each output needs a file of its own", out.flag, out.path)
			}
			return bad("is also %s's file (%s); each output needs a file of its own", out.flag, out.path)
		}
	}
	if err := CheckWritable(path); err != nil {
		return bad("%v", err)
	}
	return f, nil
}

// same tells whether f and o are one file: both exist and are the same
// file, or neither exists and both name the same entry of the same
// folder; o may be a family.
func (f guarded) same(o guarded) bool {
	if o.family != "" {
		return o.holdsFile(f)
	}
	switch {
	case f.info != nil && o.info != nil:
		return os.SameFile(f.info, o.info)
	case f.info == nil && o.info == nil:
		return f.base == o.base && os.SameFile(f.dir, o.dir)
	}
	return false
}

// holds tells whether a family holds the name.
func (f guarded) holds(name string) bool {
	return len(name) > len(f.base)+len(f.family) && strings.HasPrefix(name, f.base) && strings.HasSuffix(name, f.family)
}

// holdsFile tells whether the family holds o: o's name in the family's
// folder.
func (f guarded) holdsFile(o guarded) bool {
	dir, base := splitPath(o.path)
	if !f.holds(base) {
		return false
	}
	di, err := os.Stat(dir)
	return err == nil && os.SameFile(di, f.dir)
}

// splitPath splits path into its folder and name as the kernel reads
// them: "link/../x" is x in the parent of link's target, so no ".." is
// taken away (filepath.Dir would, and name another folder).
func splitPath(path string) (dir, base string) {
	i := strings.LastIndex(path, "/")
	switch {
	case i < 0:
		return ".", path
	case i == 0:
		return "/", path[1:]
	}
	return path[:i], path[i+1:]
}

// what names an input in a message.
func (f guarded) what() string {
	if f.flag == "the running program" {
		return "the running program"
	}
	return "the " + f.flag + " file"
}

// kindOf names a file's type.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}

// kindHint is what to do instead, for the kinds a user may mean.
func kindHint(m fs.FileMode) string {
	switch {
	case m&fs.ModeCharDevice != 0:
		return " (leave the flag out to write nothing; - is standard output)"
	case m&fs.ModeNamedPipe != 0:
		return " (- writes to standard output, for a pipe)"
	}
	return ""
}

// CheckOutputFile is the rule of one output alone: a path that exists
// must be a regular file, not a link. A file about to be renamed over is
// checked again with it, so that what was checked before the run is what
// is replaced.
func CheckOutputFile(path string) error {
	li, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case li.Mode()&fs.ModeSymlink != 0:
		return errors.New("is now a symbolic link; not replaced")
	case !li.Mode().IsRegular():
		return fmt.Errorf("is now %s; not replaced", kindOf(li.Mode()))
	}
	return nil
}
