package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFleetSSH drives two agents through a real OpenSSH server (started by
// .ci/servers/sshd.sh): --ssh runs `benchtop agent --stdio` on each host
// alias, --ssh-copy puts this build there first.
func TestFleetSSH(t *testing.T) {
	t.Parallel()
	cfg, hosts := os.Getenv("BENCHTOP_SSH_CONFIG"), os.Getenv("BENCHTOP_SSH_HOSTS")
	if cfg == "" || hosts == "" {
		t.Skip("BENCHTOP_SSH_CONFIG and BENCHTOP_SSH_HOSTS are not set: as root, eval \"$(bash .ci/servers/sshd.sh start)\" to run the ssh launcher test")
	}
	bin := builtBenchtop(t)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	// Each session's copy: /tmp/benchtop-agent-HASH-RANDOM (the hosts are
	// this machine), removed when the run ends.
	copies := "/tmp/benchtop-agent-" + hex.EncodeToString(sum[:])[:16] + "-*"
	t.Cleanup(func() {
		left, _ := filepath.Glob(copies)
		for _, f := range left {
			os.Remove(f)
		}
	})
	js := filepath.Join(t.TempDir(), "ssh.json")
	out, errs, code := runBenchtop(t, bin, "run", "memory", "-p", "recordcount=1000", "-p", "operationcount=4000",
		"--ssh", hosts, "--ssh-config", cfg, "--ssh-copy", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errs, out)
	}
	if left, _ := filepath.Glob(copies); len(left) != 0 {
		t.Errorf("--ssh-copy left %v on the hosts after the run", left)
	}
	if !strings.Contains(errs, "benchtop agent: listening") && !strings.Contains(errs, "[bt-agent1] benchtop agent:") {
		t.Errorf("the copied agents did not run:\n%s", errs)
	}
	f := readFleetJSON(t, js)
	if len(f.Agents) != 2 {
		t.Fatalf("%d agents in the JSON, want 2", len(f.Agents))
	}
	var runOps int64
	for _, a := range f.Agents {
		if a.State != "done" || !strings.Contains(hosts, a.Name) {
			t.Errorf("agent %q ended %s (%s)", a.Name, a.State, a.Reason)
		}
		for _, p := range a.Phases {
			if p.Phase == "run" {
				runOps += p.Operations
			}
		}
	}
	merged := ycsbValue(t, out, "READ", "Operations") + ycsbValue(t, out, "UPDATE", "Operations")
	if runOps != 4000 || merged != runOps {
		t.Errorf("agents ran %d operations, merged %d, want 4000", runOps, merged)
	}
	if !strings.Contains(errs, "[bt-agent1] benchtop agent: run from") {
		t.Errorf("the agents' stderr is not relayed with their names:\n%s", errs)
	}
	// A host ssh cannot reach: ssh's own message, every time.
	for i := range 4 {
		_, errs, code := runBenchtop(t, bin, "run", "memory", "-p", "operationcount=10", "--ssh", "nosuchalias.invalid", "--ssh-config", cfg)
		if code != exitFailure || !strings.Contains(errs, "agent nosuchalias.invalid: ssh: exit status 255: ssh: Could not resolve hostname nosuchalias.invalid") {
			t.Fatalf("run %d: exit %d, stderr:\n%s\nwant exit 1 with ssh's own message", i, code, errs)
		}
	}
}
