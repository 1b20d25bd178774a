package cassandra

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"benchtop/adapters"
)

// The statements are YCSB's, as the Java driver 3.x's QueryBuilder
// renders them for its binding (printed by that driver for these cases).
func TestStatementsAreYCSBs(t *testing.T) {
	for got, want := range map[string]string{
		readStmt("usertable", nil):                            "SELECT * FROM usertable WHERE y_id=? LIMIT 1;",
		readStmt("usertable", []string{"field1", "field3"}):   "SELECT field1,field3 FROM usertable WHERE y_id=? LIMIT 1;",
		scanStmt("usertable", nil):                            "SELECT * FROM usertable WHERE token(y_id) >= token(?) LIMIT ?",
		scanStmt("usertable", []string{"field1"}):             "SELECT y_id,field1 FROM usertable WHERE token(y_id) >= token(?) LIMIT ?",
		updateStmt("usertable", []string{"field1", "field2"}): "UPDATE usertable SET field1=?,field2=? WHERE y_id=?;",
		insertStmt("usertable", []string{"field0", "field1"}): "INSERT INTO usertable (y_id,field0,field1) VALUES (?,?,?);",
		deleteStmt("usertable"):                               "DELETE FROM usertable WHERE y_id=?;",
	} {
		if got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
}

// A write's fields are put in column order whatever order they came in,
// so that one statement serves every order; an unknown or repeated field
// is refused.
func TestColumnsOf(t *testing.T) {
	db := &DB{cols: newColumns("field", 12)}
	db.stmts.init("usertable")
	sc := new(scratch)
	vals := []adapters.Field{{Name: "field10"}, {Name: "field2"}, {Name: "field0"}}
	if err := db.columnsOf(sc, vals); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(sc.idx, sc.from) != "[0 2 10] [2 1 0]" {
		t.Errorf("idx %v from %v, want [0 2 10] [2 1 0]", sc.idx, sc.from)
	}
	sc.key = statementKey(sc.key, kindInsert, sc.idx)
	if st := db.stmts.get(sc.key, kindInsert, sc.idx, &db.cols); st != "INSERT INTO usertable (y_id,field0,field2,field10) VALUES (?,?,?,?);" {
		t.Errorf("statement %q", st)
	}
	if err := db.columnsOf(sc, []adapters.Field{{Name: "field12"}}); err == nil || !strings.Contains(err.Error(), "field0 to field11") {
		t.Errorf("an unknown field: %v", err)
	}
	if err := db.columnsOf(sc, []adapters.Field{{Name: "field1"}, {Name: "field1"}}); err == nil {
		t.Error("a field given twice was taken")
	}
}

func TestReadConfig(t *testing.T) {
	c, err := ReadConfig(adapters.Properties{PropHosts: "127.0.0.1, 127.0.0.2"})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(c.Hosts) != "[127.0.0.1 127.0.0.2]" || c.Port != 9042 || c.Keyspace != "ycsb" || c.Table != "usertable" ||
		c.ReadCL != gocql.Quorum || c.WriteCL != gocql.Quorum || c.ConnsPerHost != 1 ||
		c.ConnectTimeout != 5*time.Second || c.ReadTimeout != 12*time.Second || c.Tracing || c.UseSSL ||
		c.Replication != "{'class': 'SimpleStrategy', 'replication_factor': 1}" {
		t.Errorf("defaults: %+v", c)
	}
	c, err = ReadConfig(adapters.Properties{PropHosts: "h1", PropReadCL: "local_one", PropWriteCL: "ALL", PropMaxConns: "4",
		PropCoreConns: "2", PropConnectTimeout: "700", PropReadTimeout: "900", PropReplication: "{'class': 'NetworkTopologyStrategy', 'dc1': 3}"})
	if err != nil {
		t.Fatal(err)
	}
	if c.ReadCL != gocql.LocalOne || c.WriteCL != gocql.All || c.ConnsPerHost != 4 || c.ConnectTimeout != 700*time.Millisecond ||
		c.ReadTimeout != 900*time.Millisecond || c.Replication != "{'class': 'NetworkTopologyStrategy', 'dc1': 3}" {
		t.Errorf("set: %+v", c)
	}
	if c, _ := ReadConfig(adapters.Properties{PropHosts: "h", PropCoreConns: "3"}); c.ConnsPerHost != 3 {
		t.Errorf("coreconnections alone: %d connections, want 3", c.ConnsPerHost)
	}
	for props, key := range map[*adapters.Properties]string{
		{}:                                                        PropHosts,
		{PropHosts: "a,,b"}:                                       PropHosts,
		{PropHosts: "h:9042"}:                                     PropHosts,
		{PropHosts: "h", PropPort: "0"}:                           PropPort,
		{PropHosts: "h", PropReadCL: "MOST"}:                      PropReadCL,
		{PropHosts: "h", PropWriteCL: "one!"}:                     PropWriteCL,
		{PropHosts: "h", PropKeyspace: "Ycsb"}:                    PropKeyspace,
		{PropHosts: "h", "table": "a.b"}:                          "table",
		{PropHosts: "h", PropPassword: "pw"}:                      PropUsername,
		{PropHosts: "h", PropReplication: "0"}:                    PropReplication,
		{PropHosts: "h", PropReplication: "{'class': 'X'); DROP"}: PropReplication,
		{PropHosts: "h", PropMaxConns: "2", PropCoreConns: "3"}:   PropCoreConns,
	} {
		_, err := ReadConfig(*props)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != key {
			t.Errorf("%v: %v, want a ConfigError on %s", *props, err, key)
		}
	}
}

// YCSB names accepted but not honoured as YCSB does are told.
func TestNotes(t *testing.T) {
	notes := strings.Join(Notes(adapters.Properties{PropHosts: "h", PropMaxConns: "4", PropCoreConns: "2", PropTracing: "true"}), "\n")
	for _, want := range []string{"cassandra.coreconnections=2 has no effect beside cassandra.maxconnections=4", "cassandra.tracing=true"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes %q lack %q", notes, want)
		}
	}
	if n := Notes(adapters.Properties{PropHosts: "h"}); len(n) != 0 {
		t.Errorf("notes for plain properties: %q", n)
	}
}

// reqErr is a server's error frame for classify.
type reqErr struct{ code int }

func (e reqErr) Code() int       { return e.code }
func (e reqErr) Message() string { return fmt.Sprintf("code %#x", e.code) }
func (e reqErr) Error() string   { return e.Message() }

func TestClassify(t *testing.T) {
	db := &DB{cfg: Config{Table: "usertable", Password: "s3cret-pw"}}
	for err, want := range map[error]string{
		reqErr{gocql.ErrCodeReadTimeout}:                    adapters.KindTimeout,
		reqErr{gocql.ErrCodeWriteTimeout}:                   adapters.KindTimeout,
		reqErr{gocql.ErrCodeUnavailable}:                    adapters.KindUnavailable,
		reqErr{gocql.ErrCodeOverloaded}:                     adapters.KindThrottled,
		reqErr{gocql.ErrCodeInvalid}:                        adapters.KindOther,
		reqErr{gocql.ErrCodeReadFailure}:                    adapters.KindOther,
		fmt.Errorf("x: %w", context.DeadlineExceeded):       adapters.KindTimeout,
		gocql.ErrTimeoutNoResponse:                          adapters.KindTimeout,
		context.Canceled:                                    adapters.KindCanceled,
		gocql.ErrNoConnections:                              adapters.KindUnavailable,
		gocql.ErrConnectionClosed:                           adapters.KindUnavailable,
		&net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}: adapters.KindUnavailable,
		io.EOF: adapters.KindUnavailable,
		errors.New("gocql: unable to create session: dial tcp: connection refused"): adapters.KindUnavailable,
		errors.New("Provided username u and/or password are incorrect"):             adapters.KindOther,
	} {
		if got := adapters.Kind(db.classify(err)); got != want {
			t.Errorf("%v: kind %q, want %q", err, got, want)
		}
	}
	err := db.opError("read", errors.New("auth as u with s3cret-pw failed"))
	if strings.Contains(err.Error(), "s3cret-pw") || !strings.Contains(err.Error(), "****") {
		t.Errorf("the password is not scrubbed: %v", err)
	}
}

// batchConn delivers every write whole and in order, from concurrent
// writers, and a failed connection fails later writes.
func TestBatchConn(t *testing.T) {
	a, b := net.Pipe()
	bc := newBatchConn(a, time.Second)
	got := make(chan []byte, 1)
	go func() {
		all, _ := io.ReadAll(b)
		got <- all
	}()
	const writers, each = 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				msg := fmt.Sprintf("<%d:%03d>", w, i)
				if n, err := bc.Write([]byte(msg)); err != nil || n != len(msg) {
					t.Errorf("Write: %d, %v", n, err)
				}
			}
		})
	}
	wg.Wait()
	// Everything written reaches the peer before Close cuts it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		bc.mu.Lock()
		n := len(bc.pending)
		bc.mu.Unlock()
		if n == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	bc.Close()
	all := string(<-got)
	for w := range writers {
		last := -1
		for i := range each {
			msg := fmt.Sprintf("<%d:%03d>", w, i)
			at := strings.Index(all, msg)
			if at < 0 {
				t.Fatalf("writer %d's message %d is missing (%d bytes arrived)", w, i, len(all))
			}
			if at < last {
				t.Fatalf("writer %d's message %d arrived before its message %d", w, i, i-1)
			}
			last = at
		}
	}
	if len(all) != writers*each*len("<0:000>") {
		t.Errorf("%d bytes arrived, want %d", len(all), writers*each*len("<0:000>"))
	}
	if _, err := bc.Write([]byte("late")); err == nil {
		t.Error("a write after Close worked")
	}
}

func TestBatchConnWriteFails(t *testing.T) {
	a, b := net.Pipe()
	b.Close()
	bc := newBatchConn(a, time.Second)
	defer bc.Close()
	_, _ = bc.Write([]byte("x")) // queued; the writer finds the peer gone
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := bc.Write([]byte("y")); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("writes still succeed 5 s after the peer closed")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A peer that stops reading fails the writes within the timeout.
func TestBatchConnWriteTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			time.Sleep(10 * time.Second) // never reads
		}
	}()
	d := &batchDialer{timeout: 300 * time.Millisecond}
	c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 1<<20)
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		_ = c.SetWriteDeadline(time.Now().Add(time.Minute)) // as gocql does
		if _, err = c.Write(buf); err != nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("writes to a peer that does not read: %v, want a timeout", err)
	}
}

// cassandra.useSSL checks the node's certificate chain against the
// system's roots: a self-signed certificate is refused, saying so.
func TestTLSRefusesAnUntrustedChain(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "node"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	err = tlsConfig().VerifyPeerCertificate([][]byte{der}, nil)
	if err == nil || !strings.Contains(err.Error(), "not trusted") {
		t.Errorf("a self-signed certificate: %v, want it refused as not trusted", err)
	}
	if err := tlsConfig().VerifyPeerCertificate(nil, nil); err == nil {
		t.Error("no certificate at all was taken")
	}
}
