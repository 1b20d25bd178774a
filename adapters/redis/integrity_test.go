package redis

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// buildBinary builds the benchtop command into a temporary folder.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "benchtop")
	cmd := exec.Command("go", "build", "-o", bin, "benchtop")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// A value changed behind benchtop's back (with redis-cli, mid-run) is a
// data-integrity mismatch: the report counts it and the exit status is 1.
// The real binary runs against the real server.
func TestIntegrityMismatchFromRedisCLI(t *testing.T) {
	db := openTestServer(t)
	cli, err := exec.LookPath("redis-cli")
	if err != nil {
		t.Skip("redis-cli is not installed (Debian's redis-tools)")
	}
	bin := buildBinary(t)
	table := fmt.Sprintf("bt_verify_%d", time.Now().UnixNano())
	t.Cleanup(func() { dropTable(t, db, table) })
	host, port, _ := strings.Cut(db.cfg.Addr, ":")
	args := []string{"-P", filepath.Join("..", "..", "workloads", "workloadc"), "-p", "redis.addr=" + db.cfg.Addr,
		"-p", "table=" + table, "-p", "recordcount=100", "-p", "dataintegrity=true", "--headless"}
	if db.cfg.Password != "" {
		args = append(args, "-p", "redis.password="+db.cfg.Password)
	}
	load := exec.Command(bin, append([]string{"load", "redis"}, args...)...)
	if out, err := load.CombinedOutput(); err != nil {
		t.Fatalf("load: %v\n%s", err, out)
	}

	// The run reads at 200/s for 800 reads; once the server has seen some
	// of them, every record's field3 is changed.
	var stdout, stderr bytes.Buffer
	run := exec.Command(bin, append([]string{"run", "redis"}, append(args, "-p", "operationcount=800", "-target", "200")...)...)
	run.Stdout, run.Stderr = &stdout, &stderr
	// With dataintegrity a read names every field (as YCSB's): HMGET.
	before := commandStats(t, db.client)["hmget"]
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- run.Wait() }()
	deadline := time.Now().Add(time.Minute)
	for commandStats(t, db.client)["hmget"]-before < 40 {
		if time.Now().After(deadline) {
			t.Fatal("the run did not start reading within a minute")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var script strings.Builder
	keys, err := db.client.ZRange(context.Background(), indexKey(table), 0, -1).Result()
	if err != nil || len(keys) != 100 {
		t.Fatalf("index: %d keys, %v", len(keys), err)
	}
	for _, k := range keys {
		fmt.Fprintf(&script, "HSET %s:%s field3 changed-by-redis-cli\n", table, k)
	}
	cliArgs := []string{"-h", host, "-p", port}
	if db.cfg.Password != "" {
		cliArgs = append(cliArgs, "--no-auth-warning", "-a", db.cfg.Password)
	}
	edit := exec.Command(cli, cliArgs...)
	edit.Stdin = strings.NewReader(script.String())
	if out, err := edit.CombinedOutput(); err != nil {
		t.Fatalf("redis-cli: %v\n%s", err, out)
	}

	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(2 * time.Minute):
		_ = run.Process.Kill()
		t.Fatal("the run did not finish within 2 minutes")
	}
	code := -1
	if ee, ok := runErr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if runErr == nil {
		code = 0
	}
	if code != 1 {
		t.Errorf("exit status %d, want 1\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
	}
	out := stdout.String()
	m := regexp.MustCompile(`(?m)^\[VERIFY\], Mismatches, (\d+)$`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no [VERIFY] line in the report:\n%s", out)
	}
	mismatches, _ := strconv.Atoi(m[1])
	ok := regexp.MustCompile(`(?m)^\[READ\], Return=OK, (\d+)$`).FindStringSubmatch(out)
	if mismatches == 0 || ok == nil {
		t.Fatalf("%d mismatches, READ OK line %v: want reads that passed before the change and mismatches after\n%s", mismatches, ok, out)
	}
	if okN, _ := strconv.Atoi(ok[1]); okN+mismatches != 800 {
		t.Errorf("READ OK %d + mismatches %d != 800 reads", okN, mismatches)
	}
}
