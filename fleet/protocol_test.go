package fleet

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/workload"
)

func TestNoTokenOnlyLoopback(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"0.0.0.0:0", ":0", "10.1.2.3:7070"} {
		if _, err := Listen(addr, "", nil); !errors.Is(err, ErrNeedToken) {
			t.Errorf("Listen(%q) without a token: %v, want ErrNeedToken", addr, err)
		}
	}
	ln, err := Listen("127.0.0.1:0", "", nil)
	if err != nil {
		t.Fatalf("loopback without a token: %v", err)
	}
	ln.Close()
}

func TestLoadToken(t *testing.T) {
	t.Setenv(TokenEnv, "short")
	if _, err := LoadToken(""); err == nil || !strings.Contains(err.Error(), "at least 16") {
		t.Errorf("short token: %v", err)
	}
	t.Setenv(TokenEnv, "  "+testToken+"\n")
	if tok, err := LoadToken(""); err != nil || tok != testToken {
		t.Errorf("env token: %q, %v", tok, err)
	}
	if _, err := LoadToken("/nonexistent/token"); err == nil || !strings.Contains(err.Error(), "--token-file /nonexistent/token") {
		t.Errorf("missing file: %v", err)
	}
}

// pipeEndpoint serves one agent session over an in-memory pipe, as
// stdio does.
func pipeEndpoint(name string, cfg AgentConfig, served chan<- error) Endpoint {
	return Endpoint{Name: name, Open: func(ctx context.Context) (io.ReadWriteCloser, error) {
		a, b := net.Pipe()
		go func() { served <- ServeStdio(ctx, b, b, cfg) }()
		return a, nil
	}}
}

func TestStdioSessionRunsWithoutToken(t *testing.T) {
	t.Parallel()
	served := make(chan error, 1)
	cfg, props := memoryRun(t, "run", map[string]string{"operationcount": "300"})
	c, err := Connect(context.Background(), CoordConfig{Config: cfg, Props: props, Agents: []Endpoint{pipeEndpoint("ssh1", AgentConfig{}, served)}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.Snapshots() {
		}
	}()
	res, err := c.Run(context.Background())
	if err != nil || res[len(res)-1].Set.Ops != 300 {
		t.Fatalf("run over stdio: %v", err)
	}
	if err := <-served; err != nil {
		t.Errorf("agent: %v", err)
	}
}

func TestRunHashMismatchRefused(t *testing.T) {
	t.Parallel()
	served := make(chan error, 1)
	cfg, props := memoryRun(t, "run", nil)
	// The coordinator's binary resolved the run otherwise: another hash.
	props2 := map[string]string{}
	for k, v := range props {
		props2[k] = v
	}
	props2["fieldcount"] = "3"
	_, err := Connect(context.Background(), CoordConfig{Config: cfg, Props: props2, Agents: []Endpoint{pipeEndpoint("a", AgentConfig{}, served)}})
	if err == nil || !strings.Contains(err.Error(), "run configuration hash") {
		t.Fatalf("err = %v, want a hash refusal", err)
	}
	if aerr := <-served; aerr == nil || !strings.Contains(aerr.Error(), "run configuration hash") {
		t.Errorf("agent side: %v, want the same line", aerr)
	}
}

func TestProtocolMismatchRefused(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- ServeStdio(context.Background(), b, b, AgentConfig{}) }()
	conn := NewConn(a, a, a)
	var h Hello
	if err := conn.Expect(TypeHello, &h); err != nil {
		t.Fatal(err)
	}
	_ = conn.Send(TypeAuth, Auth{Protocol: Protocol + 1, Range: LocalRange()})
	err := conn.Expect(TypeWelcome, nil)
	var re *RefusedError
	if !errors.As(err, &re) || !strings.Contains(re.Reason, fmt.Sprintf("protocol version %d; this agent speaks %d", Protocol+1, Protocol)) {
		t.Errorf("coordinator got %v, want a protocol refusal", err)
	}
	if aerr := <-done; aerr == nil || !strings.Contains(aerr.Error(), "protocol version") {
		t.Errorf("agent: %v", aerr)
	}
}

func TestOversizedFrameBeforeAuth(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	go func() {
		// A length prefix far over the limit, as a port scanner's bytes
		// would read.
		_, _ = a.Write([]byte{0x7f, 0xff, 0xff, 0xff})
	}()
	_, err := NewConn(b, b, b).Recv()
	if !errors.Is(err, ErrFrameTooLarge) {
		t.Errorf("err = %v, want ErrFrameTooLarge", err)
	}
}

// selfSigned makes a certificate for 127.0.0.1.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
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
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

func TestTLSSession(t *testing.T) {
	t.Parallel()
	cert, pool := selfSigned(t)
	ln, err := Listen("127.0.0.1:0", testToken, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go ServeListener(ctx, ln, AgentConfig{Token: testToken})
	cfg, props := memoryRun(t, "run", map[string]string{"operationcount": "200"})
	ep := TCPEndpoint("tls1", ln.Addr().String(), &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12})
	c, err := Connect(ctx, CoordConfig{Config: cfg, Props: props, Token: testToken, Agents: []Endpoint{ep}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.Snapshots() {
		}
	}()
	if res, err := c.Run(ctx); err != nil || res[len(res)-1].Set.Ops != 200 {
		t.Fatalf("run over TLS: %v", err)
	}
	// Without the CA the coordinator refuses the agent's certificate.
	_, err = Connect(ctx, CoordConfig{Config: cfg, Props: props, Token: testToken,
		Agents: []Endpoint{TCPEndpoint("tls2", ln.Addr().String(), &tls.Config{MinVersion: tls.VersionTLS12})}})
	if err == nil || !strings.Contains(err.Error(), "certificate") {
		t.Errorf("unverified agent: %v, want a certificate error", err)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	var sum int64
	for i := range 7 {
		if workload.PortionStart(100, i, 7) != sum {
			t.Errorf("start of %d = %d, want %d", i, workload.PortionStart(100, i, 7), sum)
		}
		sum += workload.Portion(100, i, 7)
	}
	if sum != 100 {
		t.Errorf("portions add up to %d", sum)
	}
	base := map[string]string{"recordcount": "10", "insertstart": "5", "insertcount": "5", "target": "3000", "threadcount": "50", "operationcount": "10"}
	props, sh := SplitProps("load", "core", base, 1, 3, adapters.Capabilities{})
	if sh.InsertStart != 7 || sh.InsertCount != 2 || props["insertstart"] != "7" || props["insertcount"] != "2" || sh.Target != 1000 || sh.Threads != 50 {
		t.Errorf("load share %+v, props %v", sh, props)
	}
	if _, sh := SplitProps("load", "core", base, 1, 3, adapters.Capabilities{StartsEmpty: true}); sh.InsertCount != -1 {
		t.Errorf("an in-process store's load is split: %+v", sh)
	}
	if _, sh := SplitProps("run", "core", base, 2, 3, adapters.Capabilities{}); sh.OperationCount != 3 || sh.InsertCount != -1 {
		t.Errorf("run share %+v", sh)
	}
	sp := map[string]string{"partitions": "64"}
	var parts int
	for i := range 3 {
		props, sh := SplitProps("run", "stream", sp, i, 3, adapters.Capabilities{})
		if want := []int{22, 21, 21}[i]; sh.Partitions != want || props["partitions"] != fmt.Sprint(want) {
			t.Errorf("agent %d of 3: partitions %d (props %q), want %d", i, sh.Partitions, props["partitions"], want)
		}
		parts += sh.Partitions
	}
	if parts != 64 {
		t.Errorf("divided partitions add up to %d, want 64", parts)
	}
	if props, sh := SplitProps("run", "stream", sp, 1, 3, adapters.Capabilities{SharedPartitions: true}); sh.Partitions != -1 || props["partitions"] != "64" {
		t.Errorf("server-side partitions divided: %+v %v", sh, props)
	}
	if props, sh := SplitProps("run", "core", sp, 1, 3, adapters.Capabilities{}); sh.Partitions != -1 || props["partitions"] != "64" {
		t.Errorf("core workload's partitions divided: %+v %v", sh, props)
	}
	if _, sh := SplitProps("run", "stream", map[string]string{"partitions": "2"}, 2, 3, adapters.Capabilities{}); sh.Partitions != 0 {
		t.Errorf("agent 3 of 3 with 2 partitions: %d", sh.Partitions)
	}
	if CheckPartitions(2, 3) == nil || CheckPartitions(3, 3) != nil {
		t.Errorf("CheckPartitions(2, 3) / (3, 3) wrong")
	}
	if err := CheckSplit("run", map[string]string{"operationcount": "2"}, 3); err == nil {
		t.Errorf("2 operations over 3 agents accepted")
	}
	if err := CheckSplit("run", map[string]string{"load.before.run": "true"}, 3); err == nil {
		t.Errorf("load.before.run accepted")
	}
}

func TestOnceEndsAfterOneRun(t *testing.T) {
	t.Parallel()
	ln, err := Listen("127.0.0.1:0", testToken, nil)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- ServeListener(context.Background(), ln, AgentConfig{Token: testToken, Once: true}) }()
	cfg, props := memoryRun(t, "run", map[string]string{"operationcount": "100"})
	c, err := Connect(context.Background(), CoordConfig{Config: cfg, Props: props, Token: testToken,
		Agents: []Endpoint{TCPEndpoint("once", ln.Addr().String(), nil)}})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range c.Snapshots() {
		}
	}()
	if _, err := c.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("ServeListener: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent still serves after its one run")
	}
}
