package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// The screen's flags: one clear line for bad input, exit status 2.
func TestScreenFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	o, err := parseArgs([]string{"run", "memory", "--serve-ssh", "127.0.0.1:2222", "--log", filepath.Join(dir, "lib.log")})
	if err != nil || o.Screen.ServeSSH != "127.0.0.1:2222" || o.Screen.Log == "" {
		t.Fatalf("good flags: %+v %v", o, err)
	}
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "--serve-ssh", "2222"}, `--serve-ssh "2222": expected HOST:PORT, e.g. 127.0.0.1:2222`},
		{[]string{"run", "--serve-ssh", "127.0.0.1:ssh"}, `--serve-ssh "127.0.0.1:ssh": expected HOST:PORT`},
		{[]string{"run", "--serve-ssh"}, "flag --serve-ssh needs a value"},
		{[]string{"run", "--serve-ssh", ":2222", "--ssh-authorized-keys", filepath.Join(dir, "none")}, "--ssh-authorized-keys " + filepath.Join(dir, "none") + ": no such file or directory"},
		{[]string{"run", "--ssh-viewer-keys", dir}, "--ssh-viewer-keys given without --serve-ssh ADDR"},
		{[]string{"run", "--log", filepath.Join(dir, "no", "such", "x.log")}, "--log " + filepath.Join(dir, "no", "such", "x.log") + ": directory"},
	}
	for _, c := range cases {
		_, err := parseArgs(c.args)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("parseArgs(%q) = %v, want %q", c.args, err, c.want)
		}
	}
}

func TestRunRefusesABadSSHAddress(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	var out, errb strings.Builder
	code := run([]string{"run", "memory", "--headless", "-p", "maxexecutiontime=1", "--serve-ssh", "127.0.0.1:notaport"}, &out, &errb)
	if code != 2 || strings.Count(strings.TrimSpace(errb.String()), "\n") != 0 {
		t.Errorf("exit %d, stderr %q: want 2 and one line", code, errb.String())
	}
}
