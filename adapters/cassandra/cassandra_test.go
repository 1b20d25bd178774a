package cassandra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
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

// recConn records the deadlines set on it.
type recConn struct {
	net.Conn
	writes, reads int
}

func (r *recConn) SetWriteDeadline(time.Time) error { r.writes++; return nil }
func (r *recConn) SetReadDeadline(time.Time) error  { r.reads++; return nil }

// quietConn applies no read deadline and a write deadline only when the
// one applied is less than half the timeout away.
func TestQuietConnDeadlines(t *testing.T) {
	rec := &recConn{}
	q := &quietConn{Conn: rec, timeout: time.Hour}
	for range 1000 {
		_ = q.SetReadDeadline(time.Now().Add(time.Second))
		_ = q.SetReadDeadline(time.Time{})
		_ = q.SetWriteDeadline(time.Now().Add(time.Second))
	}
	if rec.reads != 0 || rec.writes != 1 {
		t.Errorf("%d read and %d write deadlines applied, want 0 and 1", rec.reads, rec.writes)
	}
	q.until.Store(time.Now().Add(10 * time.Minute).UnixNano()) // less than half an hour left
	_ = q.SetWriteDeadline(time.Time{})
	if rec.writes != 2 {
		t.Errorf("a write deadline near its end was not moved: %d applied", rec.writes)
	}
	if left := time.Until(time.Unix(0, q.until.Load())); left < 59*time.Minute {
		t.Errorf("the new write deadline is %v away, want an hour", left)
	}
}

// A peer that stops reading fails a write within the timeout.
func TestQuietConnWriteTimesOut(t *testing.T) {
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
	d := &quietDialer{timeout: 300 * time.Millisecond}
	c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 1<<20)
	for range 200 {
		_ = c.SetWriteDeadline(time.Now().Add(time.Minute)) // as gocql does
		if _, err = c.Write(buf); err != nil {
			break
		}
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("writes to a peer that does not read: %v, want a timeout", err)
	}
}
