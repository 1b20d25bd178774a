package cassandra

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
	"benchtop/adapters/sqlbase/sqlbasetest"
)

// testProps are the server's address and credentials from the
// environment, or a skip.
func testProps(t testing.TB) adapters.Properties {
	t.Helper()
	hosts := os.Getenv("BENCHTOP_CASSANDRA_HOSTS")
	if hosts == "" {
		t.Skip("integration test: needs a Cassandra node; enable with " +
			"`eval \"$(BENCHTOP_CASSANDRA_PORT=32042 bash .ci/servers/cassandra.sh start)\"` " +
			"(it sets BENCHTOP_CASSANDRA_HOSTS, _PORT, _USERNAME and _PASSWORD)")
	}
	p := adapters.Properties{PropHosts: hosts, PropPort: os.Getenv("BENCHTOP_CASSANDRA_PORT"), PropKeyspace: "benchtop_test",
		PropReadCL: "ONE", PropWriteCL: "ONE"}
	if u := os.Getenv("BENCHTOP_CASSANDRA_USERNAME"); u != "" {
		p[PropUsername], p[PropPassword] = u, os.Getenv("BENCHTOP_CASSANDRA_PASSWORD")
	}
	return p
}

// tableName is a table of its own for one test.
func tableName(what string) string {
	return fmt.Sprintf("bt_%s_%08x", what, rand.Uint32())
}

// admin is a plain session for what the tests check behind the adapter's
// back.
func admin(t testing.TB) *gocql.Session {
	t.Helper()
	cfg, err := ReadConfig(testProps(t))
	if err != nil {
		t.Fatal(err)
	}
	db := &DB{cfg: cfg}
	cl, _ := db.cluster("")
	cl.Timeout = 30 * time.Second
	s, err := cl.CreateSession()
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// exec runs a statement on the admin session.
func exec(t testing.TB, s *gocql.Session, stmt string, values ...any) {
	t.Helper()
	if err := s.Query(stmt, values...).Exec(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// dropTable drops a test's table at the end.
func dropTable(t testing.TB, table string) {
	s := admin(t)
	ks := testProps(t)[PropKeyspace]
	t.Cleanup(func() {
		if err := s.Query("DROP TABLE IF EXISTS " + ks + "." + table).Exec(); err != nil {
			t.Errorf("drop %s: %v", table, err)
		}
	})
}

// openTest opens the adapter on a table of its own (dropped at the end)
// with extra properties, and prepares it for a load.
func openTest(t testing.TB, table string, extra adapters.Properties) *DB {
	t.Helper()
	props := testProps(t)
	props["table"] = table
	for k, v := range extra {
		props[k] = v
	}
	dropTable(t, table)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := Open(ctx, props)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Prepare(ctx, true); err != nil {
		t.Fatalf("Prepare(load): %v", err)
	}
	return db
}

func TestIntegrationConformance(t *testing.T) {
	table := tableName("conf")
	db := openTest(t, table, adapters.Properties{"fieldcount": "4"})
	adaptertest.Run(t, db, adaptertest.Options{Table: table, FixedColumns: true})
}

// The same on a table made as YCSB's README makes it: varchar fields.
func TestIntegrationConformanceVarchar(t *testing.T) {
	table := tableName("varchar")
	ks := testProps(t)[PropKeyspace]
	s := admin(t)
	exec(t, s, "CREATE KEYSPACE IF NOT EXISTS "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
	dropTable(t, table)
	exec(t, s, "CREATE TABLE "+ks+"."+table+" (y_id varchar PRIMARY KEY, field0 varchar, field1 varchar, field2 varchar, field3 varchar)")
	props := testProps(t)
	props["table"], props["fieldcount"] = table, "4"
	db, err := Open(context.Background(), props)
	if err != nil {
		t.Fatalf("Open on a varchar table: %v", err)
	}
	defer db.Close()
	if err := db.Prepare(context.Background(), false); err != nil {
		t.Fatalf("Prepare(run): %v", err)
	}
	if d := db.Describe(); !strings.Contains(d, "varchar") && !strings.Contains(d, "text") {
		t.Errorf("Describe() = %q, want the fields' type", d)
	}
	// Text columns take UTF-8 only: the suite's binary values are refused
	// by the server, so only the printable values a workload writes go.
	key := "bt-varchar-k1"
	vals := []adapters.Field{{Name: "field0", Value: []byte("a:b")}, {Name: "field3", Value: []byte("")}}
	if err := db.Insert(context.Background(), table, key, vals); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	got, err := db.Read(context.Background(), table, key, nil, nil)
	if err != nil || len(got) != 2 || string(got[0].Value) != "a:b" || got[1].Name != "field3" || len(got[1].Value) != 0 {
		t.Errorf("Read = %q, %v; want field0=a:b and an empty field3", got, err)
	}
}

// A read of chosen fields of a row that holds none of them is not found;
// a row holding some of them returns those.
func TestIntegrationReadNoneOfTheFields(t *testing.T) {
	table := tableName("none")
	db := openTest(t, table, adapters.Properties{"fieldcount": "4"})
	ctx := context.Background()
	if err := db.Insert(ctx, table, "k", []adapters.Field{{Name: "field0", Value: []byte("v0")}}); err != nil {
		t.Fatal(err)
	}
	_, err := db.Read(ctx, table, "k", []string{"field1", "field2"}, nil)
	if !errors.Is(err, adapters.ErrNotFound) || adapters.Kind(err) != adapters.KindNotFound {
		t.Errorf("Read of two fields the row does not hold: %v, want not found", err)
	}
	got, err := db.Read(ctx, table, "k", []string{"field0", "field2"}, nil)
	if err != nil || len(got) != 1 || got[0].Name != "field0" || string(got[0].Value) != "v0" {
		t.Errorf("Read of field0 and field2 = %q, %v; want field0 alone", got, err)
	}
	got, err = db.Read(ctx, table, "k", nil, nil)
	if err != nil || len(got) != 1 {
		t.Errorf("Read of all fields = %q, %v; want field0 alone (null columns are absent)", got, err)
	}
}

// tables counts and drops the tests' tables.
type tables struct {
	s  *gocql.Session
	ks string
}

func (tb tables) Rows(t testing.TB, table string) int64 {
	var n int64
	if err := tb.s.Query("SELECT count(*) FROM " + tb.ks + "." + table).Consistency(gocql.All).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

func (tables) Drop(t testing.TB, table string) { dropTable(t, table) }

// YCSB's workloads A to F through the engine, with dataintegrity.
func TestIntegrationWorkloadsAtoF(t *testing.T) {
	p := testProps(t)
	sqlbasetest.WorkloadsAtoF(t, Name, p, tables{admin(t), p[PropKeyspace]})
}

// An existing table is used as it is, or refused in one line when its
// columns do not match fieldcount; a run on an absent table is refused.
func TestIntegrationExistingTable(t *testing.T) {
	table := tableName("exist")
	openTest(t, table, adapters.Properties{"fieldcount": "3"})
	props := testProps(t)
	props["table"] = table
	ctx := context.Background()

	var ce *adapters.ConfigError
	for fc, says := range map[string]string{"5": "field3, field4 missing", "2": "field2 more"} {
		props["fieldcount"] = fc
		_, err := Open(ctx, props)
		if !errors.As(err, &ce) || ce.Key != "fieldcount" || !strings.Contains(ce.Allowed, says) {
			t.Errorf("Open with fieldcount=%s on a table of 3 fields: %v, want a ConfigError saying %q", fc, err, says)
		}
	}
	props["fieldcount"] = "3"
	db, err := Open(ctx, props)
	if err != nil {
		t.Fatalf("Open on the table as it is: %v", err)
	}
	defer db.Close()
	if err := db.Prepare(ctx, false); err != nil {
		t.Errorf("Prepare(run) on an existing table: %v", err)
	}

	other := testProps(t)
	other["table"] = tableName("absent")
	db2, err := Open(ctx, other)
	if err != nil {
		t.Fatalf("Open on an absent table: %v", err)
	}
	defer db2.Close()
	if err := db2.Prepare(ctx, false); !errors.As(err, &ce) || ce.Key != "table" || !strings.Contains(ce.Allowed, "load it first") {
		t.Errorf("Prepare(run) on an absent table: %v, want a ConfigError telling to load first", err)
	}

	// A table of another layout altogether.
	foreign := tableName("foreign")
	dropTable(t, foreign)
	exec(t, admin(t), "CREATE TABLE "+other[PropKeyspace]+"."+foreign+" (id int PRIMARY KEY, name text)")
	other["table"] = foreign
	if _, err := Open(ctx, other); !errors.As(err, &ce) || ce.Key != "fieldcount" || !strings.Contains(ce.Allowed, "no y_id key column") {
		t.Errorf("Open on a table of another layout: %v, want a ConfigError saying it has no y_id", err)
	}
}

// A wrong password is refused at Open, an error of its own kind whose
// text holds neither password.
func TestIntegrationWrongPasswordMasked(t *testing.T) {
	props := testProps(t)
	if props[PropUsername] == "" {
		t.Skip("the server takes no password (BENCHTOP_CASSANDRA_USERNAME is unset)")
	}
	right := props[PropPassword]
	const wrong = "not-the-password-42"
	props[PropPassword] = wrong
	_, err := Open(context.Background(), props)
	if err == nil {
		t.Fatal("Open with a wrong password worked")
	}
	// The CI server's password is its user's name (cassandra/cassandra),
	// which the message names as the user.
	if strings.Contains(err.Error(), wrong) || (right != props[PropUsername] && strings.Contains(err.Error(), right)) {
		t.Errorf("the error shows a password: %v", err)
	}
	if !strings.Contains(err.Error(), "password are incorrect") {
		t.Errorf("the error does not give the server's reason: %v", err)
	}
	if k := adapters.Kind(err); k != adapters.KindOther {
		t.Errorf("kind %q, want %q: a refused password is no outage", k, adapters.KindOther)
	}
}

// Nothing listens: the error is unavailable, and says where.
func TestIntegrationNoServer(t *testing.T) {
	props := testProps(t)
	props[PropPort] = "1"
	props[PropConnectTimeout] = "2000"
	_, err := Open(context.Background(), props)
	if err == nil {
		t.Fatal("Open on port 1 worked")
	}
	if k := adapters.Kind(err); k != adapters.KindUnavailable {
		t.Errorf("kind %q, want unavailable: %v", k, err)
	}
	if !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("the error does not say where: %v", err)
	}
}

// The statements the server ran are YCSB's, as docs/adapters/cassandra.md
// lists them: system.prepared_statements holds every statement the
// adapter prepared on the table after a load and a run of every
// operation type.
func TestIntegrationStatementsAsDocumented(t *testing.T) {
	props := testProps(t)
	s := admin(t)
	table := tableName("stmt")
	dropTable(t, table)
	for k, v := range map[string]string{"table": table, "recordcount": "200", "operationcount": "2000", "threadcount": "2",
		"readproportion": "0.3", "updateproportion": "0.2", "insertproportion": "0.2", "scanproportion": "0.2", "deleteproportion": "0.1",
		"requestdistribution": "uniform", "status.interval": "100ms", "workload": "core"} {
		props[k] = v
	}
	sqlbasetest.Run(t, Name, "load", props)
	sqlbasetest.Run(t, Name, "run", props)
	iter := s.Query("SELECT logged_keyspace, query_string FROM system.prepared_statements").Iter()
	var ks, q string
	var ran []string
	for iter.Scan(&ks, &q) {
		if ks == props[PropKeyspace] && strings.Contains(q, table) {
			ran = append(ran, q)
		}
	}
	if err := iter.Close(); err != nil {
		t.Fatalf("system.prepared_statements: %v", err)
	}
	sqlbasetest.CompareStatements(t, "../../docs/adapters/cassandra.md", table, ran, []string{
		"INSERT INTO usertable (y_id,field0,field1,field2,field3,field4,field5,field6,field7,field8,field9) VALUES (?,?,?,?,?,?,?,?,?,?,?);",
		"SELECT * FROM usertable WHERE y_id=? LIMIT 1;",
		"SELECT * FROM usertable WHERE token(y_id) >= token(?) LIMIT ?",
		"UPDATE usertable SET FIELD=? WHERE y_id=?;",
		"DELETE FROM usertable WHERE y_id=?;",
	})
}
