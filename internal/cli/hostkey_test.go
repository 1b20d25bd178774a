package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 25: the SSH viewers' host key, and the keys that say who may
// control the run, are refused when others can read or replace them, in
// one line that says the fix (exit 2, before anything runs); a fresh
// state folder gets a key only its owner can read.
func TestSSHKeysRefusedWhenOpen(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	dir := filepath.Join(state, "benchtop")
	key := filepath.Join(dir, "ssh_host_ed25519")
	runWith := func(extra ...string) (int, string) {
		var out, errb bytes.Buffer
		args := append([]string{"run", "memory", "--headless", "-p", "recordcount=50", "-p", "operationcount=100", "--serve-ssh", "127.0.0.1:0"}, extra...)
		code := run(args, &out, &errb)
		return code, errb.String()
	}
	// A fresh state folder: the key is made, 0600 in a 0700 folder.
	if code, errOut := runWith(); code != exitOK {
		t.Fatalf("fresh state folder: exit %d\n%s", code, errOut)
	}
	if fi, err := os.Stat(key); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the host key made: %v, mode %v; want 0600", err, fi.Mode())
	}
	if fi, _ := os.Stat(dir); fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("the state folder made is %04o", fi.Mode().Perm())
	}
	// The case: the key 0666 in a folder 0777.
	os.Chmod(key, 0o666)
	os.Chmod(dir, 0o777)
	code, errOut := runWith()
	if code != exitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "too open") || !strings.Contains(errOut, "chmod 600 "+key) {
		t.Errorf("key 0666, folder 0777: exit %d, %q; want 2 and one line with chmod 600", code, errOut)
	}
	os.Chmod(key, 0o644)
	os.Chmod(dir, 0o700)
	if code, errOut := runWith(); code != exitUsage || !strings.Contains(errOut, "permissions 0644 are too open") {
		t.Errorf("key 0644: exit %d, %q", code, errOut)
	}
	os.Chmod(key, 0o600)
	os.Chmod(dir, 0o777)
	if code, errOut := runWith(); code != exitUsage || !strings.Contains(errOut, "lets anyone replace it") {
		t.Errorf("key 0600 in a folder 0777: exit %d, %q", code, errOut)
	}
	os.Chmod(dir, 0o700)
	// Who may control the run: a file anyone can write is refused.
	ak := filepath.Join(t.TempDir(), "authorized_keys")
	os.WriteFile(ak, []byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGb7rZ2lYcXWtKjv7ZsAWGPGmbvZ0VqV7j0QqZJk9i5c test\n"), 0o644)
	if code, errOut := runWith("--ssh-authorized-keys", ak); code != exitOK {
		t.Errorf("authorized keys 0644: exit %d, %q", code, errOut)
	}
	os.Chmod(ak, 0o666)
	if code, errOut := runWith("--ssh-authorized-keys", ak); code != exitUsage || !strings.Contains(errOut, "--ssh-authorized-keys "+ak) || !strings.Contains(errOut, "chmod o-w") {
		t.Errorf("authorized keys 0666: exit %d, %q", code, errOut)
	}
}

// The agent's TLS key and the fleet's token file are held to the same
// rule: readable by others, refused with the fix (exit 2).
func TestAgentKeysRefusedWhenOpen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cert, key := writeCert(t, dir)
	os.Chmod(key, 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"agent", "--listen", "127.0.0.1:0", "--tls-cert", cert, "--tls-key", key}, &out, &errb)
	if code != exitUsage || !strings.Contains(errb.String(), "--tls-key "+key+": permissions 0644 are too open") {
		t.Errorf("--tls-key 0644: exit %d, %q", code, errb.String())
	}
	tok := filepath.Join(dir, "token")
	os.WriteFile(tok, []byte(fleetToken), 0o644)
	for _, args := range [][]string{
		{"agent", "--listen", "127.0.0.1:0", "--token-file", tok},
		{"run", "memory", "--headless", "--agents", "127.0.0.1:1", "--token-file", tok},
	} {
		errb.Reset()
		code := run(args, &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), "--token-file "+tok+": permissions 0644 are too open") || !strings.Contains(errb.String(), "chmod 600") {
			t.Errorf("%s with a token file 0644: exit %d, %q", args[0], code, errb.String())
		}
	}
}
