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
	cfg, hosts := os.Getenv("BENCHTOP_SSH_CONFIG"), os.Getenv("BENCHTOP_SSH_HOSTS")
	if cfg == "" || hosts == "" {
		t.Skip("BENCHTOP_SSH_CONFIG and BENCHTOP_SSH_HOSTS are not set: as root, eval \"$(bash .ci/servers/sshd.sh start)\" to run the ssh launcher test")
	}
	bin := buildBenchtop(t)
	b, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	copied := "/tmp/benchtop-agent-" + hex.EncodeToString(sum[:])[:16]
	t.Cleanup(func() { os.Remove(copied) }) // the hosts are this machine
	js := filepath.Join(t.TempDir(), "ssh.json")
	out, errs, code := runBenchtop(t, bin, "run", "memory", "-p", "recordcount=1000", "-p", "operationcount=4000",
		"--ssh", hosts, "--ssh-config", cfg, "--ssh-copy", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, errs, out)
	}
	if _, err := os.Stat(copied); err != nil {
		t.Errorf("--ssh-copy: %v", err)
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
}
