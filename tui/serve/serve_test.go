package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNote(t *testing.T) {
	for _, a := range []string{"127.0.0.1:2222", "[::1]:2222", "localhost:2222"} {
		if n := Note(a, false); n != "" {
			t.Errorf("Note(%q) = %q, want none for loopback", a, n)
		}
	}
	if n := Note("0.0.0.0:2222", false); !strings.Contains(n, "anyone who reaches 0.0.0.0:2222 may watch") {
		t.Errorf("Note(0.0.0.0) = %q", n)
	}
	if n := Note("10.0.0.5:2222", true); !strings.Contains(n, "only the listed keys") {
		t.Errorf("Note with viewer keys = %q", n)
	}
}

func TestLoadKeys(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	key := "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMXn0V4ERMV9m7iYzFYTq0v0YpXjSE5T4oWl8oQd4v6u test\n"
	if err := os.WriteFile(good, []byte("# a comment\n\n"+key), 0o600); err != nil {
		t.Fatal(err)
	}
	ks, err := loadKeys(good)
	if err != nil || len(ks) != 1 {
		t.Fatalf("loadKeys = %d keys, %v", len(ks), err)
	}
	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte(key+"not a key\n"), 0o600)
	if _, err := loadKeys(bad); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("bad file: %v, want an error naming line 2", err)
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, []byte("# nothing\n"), 0o600)
	if _, err := loadKeys(empty); err == nil {
		t.Error("an empty key file is accepted")
	}
}
