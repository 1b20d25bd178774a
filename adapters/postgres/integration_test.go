package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
	"benchtop/adapters/sqlbase"
	"benchtop/adapters/sqlbase/sqlbasetest"
)

// testProps are the server's address from the environment, or a skip.
func testProps(t testing.TB) adapters.Properties {
	t.Helper()
	u := os.Getenv("BENCHTOP_POSTGRES_URL")
	if u == "" {
		t.Skip("integration test: needs a PostgreSQL server; enable with " +
			"`eval \"$(BENCHTOP_POSTGRES_PORT=31432 bash .ci/servers/postgres.sh start)\"` " +
			"(it sets BENCHTOP_POSTGRES_URL and BENCHTOP_POSTGRES_PASSWORD)")
	}
	return adapters.Properties{sqlbase.PropURL: u, sqlbase.PropPasswd: os.Getenv("BENCHTOP_POSTGRES_PASSWORD")}
}

// tableName is a table of its own for one test.
func tableName(what string) string {
	return fmt.Sprintf("bt_%s_%08x", what, rand.Uint32())
}

// admin is a plain connection for what the tests check behind the
// adapter's back.
func admin(t testing.TB) *pgconn.PgConn {
	t.Helper()
	p := testProps(t)
	cfg, _, err := connConfig(sqlbase.Config{URL: p[sqlbase.PropURL], Password: p[sqlbase.PropPasswd]})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

// query runs sql and returns its rows as strings.
func query(t testing.TB, c *pgconn.PgConn, sql string) [][]string {
	t.Helper()
	res, err := c.Exec(context.Background(), sql).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	var rows [][]string
	for _, r := range res {
		for _, row := range r.Rows {
			var s []string
			for _, v := range row {
				s = append(s, string(v))
			}
			rows = append(rows, s)
		}
	}
	return rows
}

// dropTable drops a test's table (and its partitions) at the end.
func dropTable(t testing.TB, table string) {
	c := admin(t)
	t.Cleanup(func() {
		if _, err := c.Exec(context.Background(), "DROP TABLE IF EXISTS "+table).ReadAll(); err != nil {
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
	// The conformance checks write any bytes (0x00 included), which only
	// the binary layout holds; YCSB's TEXT layout, the default, is what
	// the workloads and statements tests load.
	props[sqlbase.PropLayout] = sqlbase.LayoutBinary
	for k, v := range extra {
		props[k] = v
	}
	dropTable(t, table)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
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

// On a table of 4 hash partitions, made by benchtop: the suite passes, and
// the server holds the table as partitions.
func TestIntegrationConformancePartitioned(t *testing.T) {
	table := tableName("parts")
	db := openTest(t, table, adapters.Properties{"fieldcount": "4", "partitions": "4"})
	adaptertest.Run(t, db, adaptertest.Options{Table: table, FixedColumns: true})
	rows := query(t, admin(t), fmt.Sprintf("SELECT count(*) FROM pg_inherits WHERE inhparent = '%s'::regclass", table))
	if rows[0][0] != "4" {
		t.Errorf("%s has %s partitions, want 4", table, rows[0][0])
	}
	if n := db.Partitions(); n != 4 {
		t.Errorf("Partitions() = %d, want 4", n)
	}
	if d := db.Describe(); !strings.Contains(d, "4 hash partitions") {
		t.Errorf("Describe() = %q, want it to name the 4 hash partitions", d)
	}
}

// Every batching mode of the load inserts every record once.
func TestIntegrationBatchModes(t *testing.T) {
	for name, extra := range map[string]adapters.Properties{
		"rewritten":        {sqlbase.PropBatchSize: "7", sqlbase.PropBatchUpdate: "true", sqlbase.PropURL: os.Getenv("BENCHTOP_POSTGRES_URL") + "&reWriteBatchedInserts=true"},
		"pipelined":        {sqlbase.PropBatchSize: "7", sqlbase.PropBatchUpdate: "true"},
		"in a transaction": {sqlbase.PropBatchSize: "7", sqlbase.PropAutoCommit: "false"},
	} {
		t.Run(name, func(t *testing.T) {
			table := tableName("batch")
			extra["fieldcount"] = "4"
			db := openTest(t, table, extra)
			if db.BatchSize() != 7 {
				t.Fatalf("BatchSize() = %d, want 7", db.BatchSize())
			}
			adaptertest.Run(t, db, adaptertest.Options{Table: table, FixedColumns: true})
		})
	}
}

// tables counts and drops the tests' tables.
type tables struct{ c *pgconn.PgConn }

func (tb tables) Rows(t testing.TB, table string) int64 {
	n, _ := strconv.ParseInt(query(t, tb.c, "SELECT count(*) FROM "+table)[0][0], 10, 64)
	return n
}

func (tables) Drop(t testing.TB, table string) { dropTable(t, table) }

// YCSB's workloads A to F through the engine, with dataintegrity.
func TestIntegrationWorkloadsAtoF(t *testing.T) {
	sqlbasetest.WorkloadsAtoF(t, Name, testProps(t), tables{admin(t)})
}

// An existing table is used as it is, or refused in one line when its
// columns do not match fieldcount; a run on an absent table is refused.
func TestIntegrationExistingTable(t *testing.T) {
	table := tableName("exist")
	openTest(t, table, adapters.Properties{"fieldcount": "3"})
	props := testProps(t)
	props["table"] = table
	ctx := context.Background()

	props["fieldcount"] = "5"
	_, err := Open(ctx, props)
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != "fieldcount" || !strings.Contains(ce.Allowed, "3, the field columns") {
		t.Errorf("Open with fieldcount=5 on a table of 3 fields: %v, want a ConfigError saying 3", err)
	}
	props["fieldcount"] = "3"
	props["partitions"] = "4"
	_, err = Open(ctx, props)
	if !errors.As(err, &ce) || ce.Key != "partitions" {
		t.Errorf("Open with partitions=4 on an unpartitioned table: %v, want a ConfigError on partitions", err)
	}
	delete(props, "partitions")
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
	query(t, admin(t), "CREATE TABLE "+foreign+" (id int PRIMARY KEY, name text)")
	other["table"] = foreign
	if _, err := Open(ctx, other); !errors.As(err, &ce) || ce.Key != "table" || !strings.Contains(ce.Allowed, "id, name") {
		t.Errorf("Open on a table of another layout: %v, want a ConfigError naming its columns", err)
	}
}

// A wrong password is refused at Open, an error of its own kind whose
// text holds neither password, whichever way it was given.
func TestIntegrationWrongPasswordMasked(t *testing.T) {
	base := testProps(t)
	const wrong = "not-the-password-42"
	for name, props := range map[string]adapters.Properties{
		"db.passwd": {sqlbase.PropURL: base[sqlbase.PropURL], sqlbase.PropPasswd: wrong},
		"in db.url": {sqlbase.PropURL: strings.Replace(base[sqlbase.PropURL], "postgres@", "postgres:"+wrong+"@", 1)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Open(context.Background(), props)
			if err == nil {
				t.Fatal("Open with a wrong password worked")
			}
			if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), base[sqlbase.PropPasswd]) {
				t.Errorf("the error shows a password: %v", err)
			}
			if !strings.Contains(err.Error(), "28P01") {
				t.Errorf("the error does not give the server's reason (SQLSTATE 28P01): %v", err)
			}
			if k := adapters.Kind(err); k != adapters.KindOther {
				t.Errorf("kind %q, want %q: a refused password is no outage", k, adapters.KindOther)
			}
		})
	}
}

// The statements the server ran are YCSB's, as docs/adapters/postgres.md
// lists them: pg_stat_statements (the CI server preloads it) holds every
// statement on the table after a load and a run of every operation type.
func TestIntegrationStatementsAsDocumented(t *testing.T) {
	props := testProps(t)
	c := admin(t)
	if rows := query(t, c, "SELECT count(*) FROM pg_extension WHERE extname = 'pg_stat_statements'"); rows[0][0] != "1" {
		t.Skip("pg_stat_statements is not installed in this database (.ci/servers/postgres.sh installs it)")
	}
	table := tableName("stmt")
	dropTable(t, table)
	for k, v := range map[string]string{"table": table, "recordcount": "200", "operationcount": "2000", "threadcount": "2",
		"readproportion": "0.3", "updateproportion": "0.2", "insertproportion": "0.2", "scanproportion": "0.2", "deleteproportion": "0.1",
		"requestdistribution": "uniform", "status.interval": "100ms", "workload": "core"} {
		props[k] = v
	}
	sqlbasetest.Run(t, Name, "load", props)
	// YCSB's documented DDL, as \d shows it: character varying(255) key
	// and text fields, of the database's default collation.
	cols := query(t, c, fmt.Sprintf("SELECT column_name, data_type, coalesce(character_maximum_length::text, ''), coalesce(collation_name, 'default') FROM information_schema.columns WHERE table_name = '%s' ORDER BY ordinal_position", table))
	if len(cols) != 11 || strings.Join(cols[0], " ") != "ycsb_key character varying 255 default" || strings.Join(cols[1], " ") != "field0 text  default" {
		t.Errorf("columns %q: want YCSB's DDL (ycsb_key character varying(255), field0..field9 text, the default collation)", cols)
	}
	sqlbasetest.Run(t, Name, "run", props)
	var ran []string
	for _, r := range query(t, c, fmt.Sprintf("SELECT query FROM pg_stat_statements WHERE query LIKE '%%%s%%'", table)) {
		if s := r[0]; !strings.HasPrefix(s, "CREATE") && !strings.HasPrefix(s, "SELECT pg_advisory") && !strings.HasPrefix(s, "DROP") {
			ran = append(ran, s)
		}
	}
	sqlbasetest.CompareStatements(t, "../../docs/adapters/postgres.md", table, ran, []string{
		"INSERT INTO usertable (YCSB_KEY,field0,field1,field2,field3,field4,field5,field6,field7,field8,field9) VALUES($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)",
		"SELECT * FROM usertable WHERE YCSB_KEY = $1",
		"SELECT * FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY LIMIT $2",
		"UPDATE usertable SET FIELD=$1 WHERE YCSB_KEY = $2",
		"DELETE FROM usertable WHERE YCSB_KEY = $1",
	})
}
