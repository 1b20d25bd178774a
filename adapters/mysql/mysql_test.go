package mysql

import (
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// db.url's forms: YCSB's jdbc:mysql:// (and jdbc:mariadb://) URL with
// Connector/J's parameters, a mysql:// URL, a Go driver DSN; db.user and
// db.passwd over the URL's; rewriteBatchedStatements taken out of each.
func TestConnConfig(t *testing.T) {
	for _, tc := range []struct {
		url, user, pass              string
		addr, db, wantUser, wantPass string
		rewrite, serverPrep          bool
		timeout                      time.Duration
	}{
		{url: "jdbc:mysql://127.0.0.1/ycsb?useServerPrepStmts=true&cachePrepStmts=true", addr: "127.0.0.1:3306", db: "ycsb", serverPrep: true},
		{url: "jdbc:mysql://127.0.0.1/ycsb?useServerPrepStmts=false", addr: "127.0.0.1:3306", db: "ycsb"},
		{url: "mysql://bob@127.0.0.1/d?useServerPrepStmts=true", addr: "127.0.0.1:3306", db: "d", wantUser: "bob", serverPrep: true},
		{url: "root@tcp(127.0.0.1:3309)/e?useServerPrepStmts=true&rewriteBatchedStatements=true", addr: "127.0.0.1:3309", db: "e", wantUser: "root", rewrite: true, serverPrep: true},
		{url: "jdbc:mysql://10.0.0.1:3307/ycsb?rewriteBatchedStatements=true&connectTimeout=2500&useSSL=false", user: "admin", pass: "admin",
			addr: "10.0.0.1:3307", db: "ycsb", wantUser: "admin", wantPass: "admin", rewrite: true, timeout: 2500 * time.Millisecond},
		{url: "jdbc:mariadb://u:p@127.0.0.1/ycsb", addr: "127.0.0.1:3306", db: "ycsb", wantUser: "u", wantPass: "p"},
		{url: "jdbc:mysql://127.0.0.1/ycsb?user=q&password=w", addr: "127.0.0.1:3306", db: "ycsb", wantUser: "q", wantPass: "w"},
		{url: "mysql://bob:pw@127.0.0.1:3308/d?rewriteBatchedStatements=true&timeout=3s", addr: "127.0.0.1:3308", db: "d", wantUser: "bob", wantPass: "pw", rewrite: true, timeout: 3 * time.Second},
		{url: "root:pw@tcp(127.0.0.1:3309)/e?rewriteBatchedStatements=true", addr: "127.0.0.1:3309", db: "e", wantUser: "root", wantPass: "pw", rewrite: true},
		{url: "root@tcp(127.0.0.1:3309)/e", pass: "x9", addr: "127.0.0.1:3309", db: "e", wantUser: "root", wantPass: "x9"},
	} {
		cfg, flags, err := connConfig(sqlbase.Config{URL: tc.url, User: tc.user, Password: tc.pass})
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		if cfg.Addr != tc.addr || cfg.DBName != tc.db || cfg.User != tc.wantUser || cfg.Passwd != tc.wantPass || flags.rewrite != tc.rewrite || cfg.Timeout != tc.timeout {
			t.Errorf("%s: addr %s db %s user %s password %s rewrite %v timeout %v", tc.url, cfg.Addr, cfg.DBName, cfg.User, cfg.Passwd, flags.rewrite, cfg.Timeout)
		}
		// Connector/J's default is text with the values inlined; the
		// driver does that with InterpolateParams.
		if flags.serverPrep != tc.serverPrep || cfg.InterpolateParams == tc.serverPrep {
			t.Errorf("%s: useServerPrepStmts read as %v, driver interpolates %v; want %v, %v", tc.url, flags.serverPrep, cfg.InterpolateParams, tc.serverPrep, !tc.serverPrep)
		}
		if !cfg.ClientFoundRows {
			t.Errorf("%s: an UPDATE would count the rows it changed, not those it found", tc.url)
		}
		for _, p := range []string{rewriteParam, serverPrepParam} {
			if _, ok := cfg.Params[p]; ok {
				t.Errorf("%s: %s would reach the server as a session variable", tc.url, p)
			}
		}
	}
	for _, bad := range []string{
		"jdbc:postgresql://127.0.0.1/ycsb",
		"jdbc:mysql://u:s3cret@127.0.0.1/ycsb?autoReconnect=true",
		"jdbc:mysql://u:s3cret@127.0.0.1/ycsb?sslMode=sometimes",
		"postgres://u:s3cret@127.0.0.1/ycsb",
	} {
		_, _, err := connConfig(sqlbase.Config{URL: bad})
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != sqlbase.PropURL {
			t.Errorf("%s: %v, want a ConfigError on db.url", bad, err)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: the error shows the password: %v", bad, err)
		}
	}
}

// The Connector/J parameters benchtop accepts but does not honour draw
// one warning each, by name; the honoured ones none.
func TestURLWarnings(t *testing.T) {
	t.Parallel()
	got := urlWarnings("jdbc:mysql://127.0.0.1/ycsb?useServerPrepStmts=true&cachePrepStmts=true&rewriteBatchedStatements=true&serverTimezone=UTC&useSSL=false")
	if len(got) != 2 || !strings.HasPrefix(got[0], "warning: db.url's cachePrepStmts=true has no effect: ") ||
		!strings.HasPrefix(got[1], "warning: db.url's serverTimezone=UTC has no effect: ") {
		t.Errorf("warnings %q, want one for cachePrepStmts and one for serverTimezone", got)
	}
	if got := urlWarnings("mysql://u@127.0.0.1/ycsb?timeout=3s"); got != nil {
		t.Errorf("a Go driver URL: warnings %q, want none", got)
	}
	for name := range unhonoured {
		if _, ok := jdbcParams[name]; !ok {
			t.Errorf("%s is warned about but refused", name)
		}
	}
}

// Errors are classified by the server's number, or by what broke.
func TestClassify(t *testing.T) {
	db := &DB{mycfg: &gomysql.Config{Passwd: "s3cret"}, cfg: sqlbase.Config{Password: "s3cret"}}
	ctx := t.Context()
	for _, tc := range []struct {
		err  error
		kind string
	}{
		{&gomysql.MySQLError{Number: 1205}, adapters.KindTimeout},
		{&gomysql.MySQLError{Number: 1969}, adapters.KindTimeout},
		{&gomysql.MySQLError{Number: 1213}, adapters.KindThrottled},
		{&gomysql.MySQLError{Number: 1040}, adapters.KindUnavailable},
		{&gomysql.MySQLError{Number: 1062}, adapters.KindDuplicate},
		{&gomysql.MySQLError{Number: 1045}, adapters.KindOther},
		{gomysql.ErrInvalidConn, adapters.KindUnavailable},
		{driver.ErrBadConn, adapters.KindUnavailable},
		{fmt.Errorf("read: %w", io.EOF), adapters.KindUnavailable},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), adapters.KindUnavailable},
	} {
		if got := adapters.Kind(db.classify(ctx, tc.err)); got != tc.kind {
			t.Errorf("%v: kind %q, want %q", tc.err, got, tc.kind)
		}
	}
	if err := db.classify(ctx, errors.New("auth s3cret refused")); strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the password is in %q", err)
	}
}

func TestCreateSQL(t *testing.T) {
	got := CreateSQL(sqlbase.Config{Table: "usertable", Fields: 2, FieldPrefix: "field", Partitions: 4, Layout: sqlbase.LayoutBinary})
	want := "CREATE TABLE IF NOT EXISTS usertable (YCSB_KEY VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin PRIMARY KEY, FIELD0 LONGBLOB, FIELD1 LONGBLOB) PARTITION BY KEY (YCSB_KEY) PARTITIONS 4"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// By default YCSB's documented DDL: VARCHAR key, TEXT fields, the
	// database's character set and collation.
	got = CreateSQL(sqlbase.Config{Table: "usertable", Fields: 2, FieldPrefix: "field", Partitions: 1, Layout: sqlbase.LayoutYCSB})
	want = "CREATE TABLE IF NOT EXISTS usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, FIELD1 TEXT)"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
