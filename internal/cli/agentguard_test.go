package cli

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"benchtop/fleet"
)

// startAgentWith starts `benchtop agent --listen 127.0.0.1:0 ARGS...` as
// startAgentProc does.
func startAgentWith(t *testing.T, bin string, args ...string) *agentProc {
	t.Helper()
	return startAgentArgs(t, bin, append([]string{"agent", "--listen", "127.0.0.1:0"}, args...))
}

// coordinate runs the binary as a coordinator with the fleet's token and
// returns its stdout, stderr and exit status.
func coordinate(t *testing.T, bin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), fleet.TokenEnv+"="+fleetToken)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

// writeCert writes a self-signed certificate for 127.0.0.1 and its key
// (mode 0600) into dir.
func writeCert(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "agent"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "agent.crt"), filepath.Join(dir, "agent.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// Issue 25: idle sockets (more than the bound) open on a real agent
// process, plain and TLS; a real coordinator process runs all the same,
// and the agent never calls itself busy.
func TestAgentIdleSocketsCannotHoldIt(t *testing.T) {
	if testing.Short() {
		t.Skip("idle sockets held against an agent for seconds (go test -short skips it)")
	}
	t.Parallel()
	bin := builtBenchtop(t)
	cert, key := writeCert(t, t.TempDir())
	for name, tls := range map[string]bool{"plain": false, "tls": true} {
		t.Run(name, func(t *testing.T) {
			args := []string{"--auth-timeout", "2m", "--max-unauthenticated", "8"}
			if tls {
				args = append(args, "--tls-cert", cert, "--tls-key", key)
			}
			a := startAgentWith(t, bin, args...)
			for range 40 {
				c, err := net.Dial("tcp", a.addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
			}
			run := []string{"run", "memory", "-p", "recordcount=200", "-p", "operationcount=500", "--headless", "--agents", a.addr}
			if tls {
				run = append(run, "--tls-ca", cert)
			}
			out, errOut, code := coordinate(t, bin, run...)
			if code != 0 || !strings.Contains(out, "[OVERALL], Throughput") {
				t.Fatalf("coordinator with 40 idle sockets open on its agent: exit %d\n%s\nagent:\n%s", code, errOut, a.log)
			}
			if strings.Contains(a.log.String(), "busy") {
				t.Errorf("the agent called itself busy:\n%s", a.log)
			}
		})
	}
}

// Issue 25: a coordinator in plain text against a TLS agent, and with
// --tls-ca against a plain one, says which in one line (exit 1: the agent
// could not be brought into the run).
func TestAgentTLSMismatchSaid(t *testing.T) {
	if testing.Short() {
		t.Skip("agents and coordinators that mismatch TLS, for seconds (go test -short skips it)")
	}
	t.Parallel()
	bin := builtBenchtop(t)
	cert, key := writeCert(t, t.TempDir())
	tlsAgent := startAgentWith(t, bin, "--tls-cert", cert, "--tls-key", key)
	plainAgent := startAgentWith(t, bin)
	run := []string{"run", "memory", "-p", "recordcount=100", "-p", "operationcount=100", "--headless", "--agents"}
	_, errOut, code := coordinate(t, bin, append(run, tlsAgent.addr)...)
	if code != exitFailure || !strings.Contains(errOut, tlsAgent.addr+" speaks TLS: give --tls-ca") {
		t.Errorf("plain coordinator, TLS agent: exit %d\n%s", code, errOut)
	}
	_, errOut, code = coordinate(t, bin, append(run, plainAgent.addr, "--tls-ca", cert)...)
	if code != exitFailure || !strings.Contains(errOut, plainAgent.addr+" does not speak TLS") {
		t.Errorf("TLS coordinator, plain agent: exit %d\n%s", code, errOut)
	}
	if !waitForLog(plainAgent.log, "speaks TLS; this agent listens in plain text") {
		t.Errorf("the plain agent does not say its coordinator spoke TLS:\n%s", plainAgent.log)
	}
}

// Issue 25: a readiness probe (connect, close) leaves no line in the
// agent's log.
func TestAgentProbesNotLogged(t *testing.T) {
	t.Parallel()
	bin := builtBenchtop(t)
	a := startAgentWith(t, bin)
	for range 5 {
		c, err := net.Dial("tcp", a.addr)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	// A coordinator run after them: its lines follow the probes'.
	if _, errOut, code := coordinate(t, bin, "run", "memory", "-p", "recordcount=100", "-p", "operationcount=100", "--headless", "--agents", a.addr); code != 0 {
		t.Fatalf("coordinator: exit %d\n%s", code, errOut)
	}
	waitForLog(a.log, " done")
	for _, line := range strings.Split(strings.TrimSpace(a.log.String()), "\n") {
		if strings.Contains(line, "hello") || strings.Contains(line, "EOF") || strings.Contains(line, "ended") {
			t.Errorf("a probe was logged: %q", line)
		}
	}
}

// Issue 25: bad agent addresses are bad input (2), said in one line,
// before anything runs; --agents ” no longer runs locally.
func TestBadAgentAddresses(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:99999", "", ",", "127.0.0.1:0", "127.0.0.1:http x", "a b:7070", "-x:7070"} {
		var out, errb bytes.Buffer
		code := run([]string{"run", "memory", "-p", "operationcount=10", "--headless", "--agents", addr}, &out, &errb)
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		if code != exitUsage || len(lines) != 1 || !strings.Contains(lines[0], "--agents") || out.Len() > 0 {
			t.Errorf("--agents %q: exit %d, stderr %q, stdout %d bytes; want 2, one line naming --agents, nothing run", addr, code, errb.String(), out.Len())
		}
	}
	for _, args := range [][]string{{"--ssh", ""}, {"--agents-file", "/nonexistent/agents"}} {
		var out, errb bytes.Buffer
		code := run(append([]string{"run", "memory", "-p", "operationcount=10", "--headless"}, args...), &out, &errb)
		if code != exitUsage || !strings.Contains(errb.String(), args[0]) {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
}

func waitForLog(l *lockedBuf, s string) bool {
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if strings.Contains(l.String(), s) {
			return true
		}
	}
	return false
}
