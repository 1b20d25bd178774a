package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
	"benchtop/adapters/sqlbase"
	"benchtop/adapters/sqlbase/sqlbasetest"
)

// testProps are the server's address from the environment, or a skip.
func testProps(t testing.TB) adapters.Properties {
	t.Helper()
	u := os.Getenv("BENCHTOP_MYSQL_URL")
	if u == "" {
		t.Skip("integration test: needs a MySQL or MariaDB server; enable with " +
			"`eval \"$(BENCHTOP_MARIADB_PORT=31306 bash .ci/servers/mariadb.sh start)\"` " +
			"(it sets BENCHTOP_MYSQL_URL and BENCHTOP_MYSQL_PASSWORD)")
	}
	return adapters.Properties{sqlbase.PropURL: u, sqlbase.PropPasswd: os.Getenv("BENCHTOP_MYSQL_PASSWORD")}
}

func tableName(what string) string {
	return fmt.Sprintf("bt_%s_%08x", what, rand.Uint32())
}

// admin is a database/sql handle for what the tests check behind the
// adapter's back.
func admin(t testing.TB) *sql.DB {
	t.Helper()
	p := testProps(t)
	cfg, _, err := connConfig(sqlbase.Config{URL: p[sqlbase.PropURL], Password: p[sqlbase.PropPasswd]})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := gomysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t testing.TB, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

type tables struct{ db *sql.DB }

func (tb tables) Rows(t testing.TB, table string) int64 {
	return count(t, tb.db, "SELECT COUNT(*) FROM "+table)
}

func (tb tables) Drop(t testing.TB, table string) {
	t.Cleanup(func() {
		if _, err := tb.db.Exec("DROP TABLE IF EXISTS " + table); err != nil {
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
	tables{admin(t)}.Drop(t, table)
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

// On a table of 4 partitions (PARTITION BY KEY), made by benchtop.
func TestIntegrationConformancePartitioned(t *testing.T) {
	table := tableName("parts")
	db := openTest(t, table, adapters.Properties{"fieldcount": "4", "partitions": "4"})
	adaptertest.Run(t, db, adaptertest.Options{Table: table, FixedColumns: true})
	n := count(t, admin(t), fmt.Sprintf("SELECT COUNT(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '%s' AND PARTITION_METHOD = 'KEY'", table))
	if n != 4 {
		t.Errorf("%s has %d KEY partitions, want 4", table, n)
	}
	if n := db.Partitions(); n != 4 {
		t.Errorf("Partitions() = %d, want 4", n)
	}
	if d := db.Describe(); !strings.Contains(d, "4 key partitions") {
		t.Errorf("Describe() = %q, want it to name the 4 key partitions", d)
	}
}

// Every batching mode of the load inserts every record once.
func TestIntegrationBatchModes(t *testing.T) {
	url := testProps(t)[sqlbase.PropURL]
	for name, extra := range map[string]adapters.Properties{
		"rewritten":        {sqlbase.PropBatchSize: "7", sqlbase.PropBatchUpdate: "true", sqlbase.PropURL: url + "?rewriteBatchedStatements=true"},
		"one by one":       {sqlbase.PropBatchSize: "7", sqlbase.PropBatchUpdate: "true"},
		"server-prepared":  {sqlbase.PropBatchSize: "7", sqlbase.PropBatchUpdate: "true", sqlbase.PropURL: url + "?useServerPrepStmts=true&rewriteBatchedStatements=true"},
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
	if _, err = Open(ctx, props); !errors.As(err, &ce) || ce.Key != "partitions" {
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

	foreign := tableName("foreign")
	a := admin(t)
	tables{a}.Drop(t, foreign)
	if _, err := a.Exec("CREATE TABLE " + foreign + " (id INT PRIMARY KEY, name TEXT)"); err != nil {
		t.Fatal(err)
	}
	other["table"] = foreign
	if _, err := Open(ctx, other); !errors.As(err, &ce) || ce.Key != "table" || !strings.Contains(ce.Allowed, "id, name") {
		t.Errorf("Open on a table of another layout: %v, want a ConfigError naming its columns", err)
	}
}

// A wrong password is refused at Open, an error whose text holds neither
// password, whichever way it was given.
func TestIntegrationWrongPasswordMasked(t *testing.T) {
	base := testProps(t)
	const wrong = "not-the-password-42"
	for name, props := range map[string]adapters.Properties{
		"db.passwd": {sqlbase.PropURL: base[sqlbase.PropURL], sqlbase.PropPasswd: wrong},
		"in db.url": {sqlbase.PropURL: strings.Replace(base[sqlbase.PropURL], "benchtop@", "benchtop:"+wrong+"@", 1)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Open(context.Background(), props)
			if err == nil {
				t.Fatal("Open with a wrong password worked")
			}
			if strings.Contains(err.Error(), wrong) || strings.Contains(err.Error(), base[sqlbase.PropPasswd]) {
				t.Errorf("the error shows a password: %v", err)
			}
			if !strings.Contains(err.Error(), "1045") {
				t.Errorf("the error does not give the server's reason (error 1045): %v", err)
			}
			if k := adapters.Kind(err); k != adapters.KindOther {
				t.Errorf("kind %q, want %q: a refused password is no outage", k, adapters.KindOther)
			}
		})
	}
}

// The statements the server ran are YCSB's, as docs/adapters/mysql.md
// lists them, in both of Connector/J's modes: MariaDB's general log, on
// for the test, holds after a load and a run of every operation type
//   - by default (useServerPrepStmts=false), text queries with the values
//     inlined, which are YCSB's statements once each value is a '?' again,
//     and no Prepare or Execute on the table;
//   - with useServerPrepStmts=true, YCSB's statements prepared, executed,
//     and no text query on the table.
func TestIntegrationStatementsAsDocumented(t *testing.T) {
	base := testProps(t)
	a := admin(t)
	a.SetMaxOpenConns(1) // the session that turns the log on and off
	for _, q := range []string{"SET GLOBAL log_output = 'TABLE'"} {
		if _, err := a.Exec(q); err != nil {
			t.Skipf("the general log cannot be turned on (%v): the test needs a user allowed SET GLOBAL", err)
		}
	}
	t.Cleanup(func() { a.Exec("SET GLOBAL general_log = 0") })
	for _, serverPrep := range []bool{false, true} {
		t.Run(fmt.Sprintf("useServerPrepStmts=%v", serverPrep), func(t *testing.T) {
			props := adapters.Properties{}
			for k, v := range base {
				props[k] = v
			}
			if serverPrep {
				sep := "?"
				if strings.Contains(props[sqlbase.PropURL], "?") {
					sep = "&"
				}
				props[sqlbase.PropURL] += sep + "useServerPrepStmts=true"
			}
			table := tableName("stmt")
			tables{a}.Drop(t, table)
			if _, err := a.Exec("SET GLOBAL general_log = 1"); err != nil {
				t.Fatal(err)
			}
			for k, v := range map[string]string{"table": table, "recordcount": "200", "operationcount": "2000", "threadcount": "2",
				"readproportion": "0.3", "updateproportion": "0.2", "insertproportion": "0.2", "scanproportion": "0.2", "deleteproportion": "0.1",
				"requestdistribution": "uniform", "status.interval": "100ms", "workload": "core"} {
				props[k] = v
			}
			sqlbasetest.Run(t, Name, "load", props)
			checkYCSBDDL(t, a, table)
			sqlbasetest.Run(t, Name, "run", props)
			if _, err := a.Exec("SET GLOBAL general_log = 0"); err != nil {
				t.Fatal(err)
			}
			byCommand := map[string][]string{}
			rows, err := a.Query("SELECT command_type, CONVERT(argument USING utf8mb4) FROM mysql.general_log WHERE argument LIKE ?", "%"+table+"%")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var cmd, s string
				if err := rows.Scan(&cmd, &s); err != nil {
					t.Fatal(err)
				}
				if isOperation(s) {
					byCommand[cmd] = append(byCommand[cmd], s)
				}
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			ran := byCommand["Prepare"]
			if serverPrep {
				if n := len(byCommand["Query"]); n > 0 {
					t.Errorf("useServerPrepStmts=true: %d text queries on the table, e.g. %q; want Prepare and Execute only", n, byCommand["Query"][0])
				}
				if len(byCommand["Execute"]) < 2000 {
					t.Errorf("useServerPrepStmts=true: %d Execute, want one per operation (2,000 run, 200 loaded)", len(byCommand["Execute"]))
				}
			} else {
				if n := len(byCommand["Prepare"]) + len(byCommand["Execute"]); n > 0 {
					t.Errorf("default: %d Prepare and Execute on the table, want none (Connector/J's useServerPrepStmts=false sends text)", n)
				}
				if n := len(byCommand["Query"]); n < 2200 {
					t.Errorf("default: %d text queries on the table, want one per operation (2,000 run, 200 loaded)", n)
				}
				ran = ran[:0]
				seen := map[string]bool{}
				for _, q := range byCommand["Query"] {
					if p := sqlbasetest.Parameterize(q); !seen[p] {
						seen[p] = true
						ran = append(ran, p)
					}
				}
			}
			sqlbasetest.CompareStatements(t, "../../docs/adapters/mysql.md", table, ran, ycsbStatements)
		})
	}
}

// checkYCSBDDL checks that the table the load made is YCSB's documented
// DDL, as SHOW CREATE TABLE shows it: a VARCHAR(255) key and TEXT fields,
// the database's default collation (no utf8mb4_bin, no LONGBLOB).
func checkYCSBDDL(t *testing.T, a *sql.DB, table string) {
	t.Helper()
	var name, ddl string
	if err := a.QueryRow("SHOW CREATE TABLE "+table).Scan(&name, &ddl); err != nil {
		t.Fatal(err)
	}
	low := strings.ToLower(ddl)
	if !strings.Contains(low, "`ycsb_key` varchar(255)") || !strings.Contains(low, "`field0` text") || !strings.Contains(low, "`field9` text") ||
		strings.Contains(low, "_bin") || strings.Contains(low, "blob") {
		t.Errorf("SHOW CREATE TABLE: want YCSB's DDL (VARCHAR(255) key, TEXT fields, the default collation), got\n%s", ddl)
	}
}

// ycsbStatements are YCSB's DefaultDBFlavor statements for fieldcount=10
// (an UPDATE of one field normalized), as a run of every operation type
// sends them.
var ycsbStatements = []string{
	"INSERT INTO usertable (YCSB_KEY,field0,field1,field2,field3,field4,field5,field6,field7,field8,field9) VALUES(?,?,?,?,?,?,?,?,?,?,?)",
	"SELECT * FROM usertable WHERE YCSB_KEY = ?",
	"SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?",
	"UPDATE usertable SET FIELD=? WHERE YCSB_KEY = ?",
	"DELETE FROM usertable WHERE YCSB_KEY = ?",
}

// isOperation says whether a statement is one of a workload's operations
// (not the adapter's look at the table or its creation).
func isOperation(s string) bool {
	for _, p := range []string{"INSERT ", "SELECT * ", "UPDATE ", "DELETE "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
