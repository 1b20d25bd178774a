//go:build unix

package keyfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Real files with real modes: what is refused says the fix.
func TestModes(t *testing.T) {
	cases := []struct {
		file, dir os.FileMode
		secret    bool
		want      string // "" = accepted
	}{
		{0o600, 0o700, true, ""},
		{0o400, 0o755, true, ""},
		{0o644, 0o700, true, "permissions 0644 are too open"},
		{0o640, 0o700, true, "chmod 600"},
		{0o666, 0o777, true, "too open"},
		{0o600, 0o777, true, "lets anyone replace it"},
		{0o600, os.ModeSticky | 0o777, true, ""}, // sticky, as /tmp
		{0o644, 0o755, false, ""},
		{0o646, 0o755, false, "let anyone write it"},
		{0o644, 0o777, false, "chmod o-w"},
	}
	for _, c := range cases {
		base := t.TempDir()
		dir := filepath.Join(base, "keys")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, "key")
		if err := os.WriteFile(f, []byte("k"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(f, c.file); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, c.dir); err != nil {
			t.Fatal(err)
		}
		check := Public
		if c.secret {
			check = Secret
		}
		err := check("the key", f)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("file %04o in folder %04o (secret %v): refused: %v", c.file, c.dir, c.secret, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), f)):
			t.Errorf("file %04o in folder %04o (secret %v): %v, want an error naming the file with %q", c.file, c.dir, c.secret, err, c.want)
		}
		// Through a symbolic link, the file it points to is checked.
		link := filepath.Join(base, "link")
		if err := os.Symlink(f, link); err != nil {
			t.Fatal(err)
		}
		if lerr := check("the key", link); (lerr == nil) != (err == nil) {
			t.Errorf("file %04o through a link: %v, directly: %v", c.file, lerr, err)
		}
		os.Chmod(dir, 0o700)
	}
	// A file not there yet: only its folders are checked.
	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o777)
	os.Chmod(open, 0o777)
	if err := Secret("the key", filepath.Join(open, "new")); err == nil || !strings.Contains(err.Error(), "lets anyone replace it") {
		t.Errorf("a key to be made in a folder anyone writes: %v", err)
	}
	if err := Secret("the key", filepath.Join(t.TempDir(), "new")); err != nil {
		t.Errorf("a key to be made in a private folder: %v", err)
	}
}
