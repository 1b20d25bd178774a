package postgres

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// db.url's forms: a postgres:// URL, YCSB's jdbc:postgresql:// URL (its
// parameters translated), a libpq keyword/value string; db.user and
// db.passwd over the URL's; reWriteBatchedInserts taken out in any form.
func TestConnConfig(t *testing.T) {
	for _, tc := range []struct {
		url, user, pass          string
		host, db, wantUser, want string
		port                     uint16
		rewrite                  bool
		params                   map[string]string
	}{
		{url: "postgres://bob:pw@10.0.0.1:6543/ycsb?sslmode=disable", host: "10.0.0.1", port: 6543, db: "ycsb", wantUser: "bob", want: "pw"},
		{url: "postgresql://127.0.0.1/ycsb?sslmode=disable&reWriteBatchedInserts=true", user: "al", pass: "x1", host: "127.0.0.1", port: 5432, db: "ycsb", wantUser: "al", want: "x1", rewrite: true},
		{url: "jdbc:postgresql://127.0.0.1:5433/ycsb?user=u&password=p&reWriteBatchedInserts=true&sslmode=disable&ApplicationName=bt&currentSchema=s1",
			host: "127.0.0.1", port: 5433, db: "ycsb", wantUser: "u", want: "p", rewrite: true,
			params: map[string]string{"application_name": "bt", "search_path": "s1"}},
		{url: "host=127.0.0.1 port=5434 dbname=d user=k password=secret sslmode=disable", host: "127.0.0.1", port: 5434, db: "d", wantUser: "k", want: "secret"},
	} {
		cfg, rewrite, err := connConfig(sqlbase.Config{URL: tc.url, User: tc.user, Password: tc.pass})
		if err != nil {
			t.Errorf("%s: %v", tc.url, err)
			continue
		}
		if cfg.Host != tc.host || cfg.Port != tc.port || cfg.Database != tc.db || cfg.User != tc.wantUser || cfg.Password != tc.want || rewrite != tc.rewrite {
			t.Errorf("%s: host %s port %d db %s user %s password %s rewrite %v", tc.url, cfg.Host, cfg.Port, cfg.Database, cfg.User, cfg.Password, rewrite)
		}
		for k, v := range tc.params {
			if cfg.RuntimeParams[k] != v {
				t.Errorf("%s: runtime parameter %s = %q, want %q", tc.url, k, cfg.RuntimeParams[k], v)
			}
		}
		if _, ok := cfg.RuntimeParams[rewriteParam]; ok {
			t.Errorf("%s: %s would reach the server", tc.url, rewriteParam)
		}
	}
	for _, bad := range []string{
		"jdbc:mysql://127.0.0.1/ycsb",
		"jdbc:postgresql://127.0.0.1/ycsb?password=s3cret&preferQueryMode=simple",
		"mysql://u:s3cret@127.0.0.1/ycsb",
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

// Errors are classified by SQLSTATE, or by what broke.
func TestClassify(t *testing.T) {
	db := &DB{pgcfg: &pgconn.Config{Password: "s3cret"}, cfg: sqlbase.Config{Password: "s3cret"}}
	for _, tc := range []struct {
		err  error
		kind string
	}{
		{&pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"}, adapters.KindTimeout},
		{&pgconn.PgError{Code: "40001"}, adapters.KindThrottled},
		{&pgconn.PgError{Code: "40P01"}, adapters.KindThrottled},
		{&pgconn.PgError{Code: "53300", Message: "sorry, too many clients already"}, adapters.KindUnavailable},
		{&pgconn.PgError{Code: "57P01"}, adapters.KindUnavailable},
		{&pgconn.PgError{Code: "23505"}, adapters.KindDuplicate},
		{&pgconn.PgError{Code: "28P01", Message: "password authentication failed"}, adapters.KindOther},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), adapters.KindUnavailable},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), adapters.KindUnavailable},
		{sqlbase.ErrClosed, adapters.KindUnavailable},
	} {
		if got := adapters.Kind(db.classify(tc.err)); got != tc.kind {
			t.Errorf("%v: kind %q, want %q", tc.err, got, tc.kind)
		}
	}
	if err := db.classify(errors.New("auth s3cret refused")); strings.Contains(err.Error(), "s3cret") {
		t.Errorf("the password is in %q", err)
	}
}

// The DDL of a table made at load.
func TestCreateSQL(t *testing.T) {
	got := CreateSQL(sqlbase.Config{Table: "usertable", Fields: 2, FieldPrefix: "field", Partitions: 3, Layout: sqlbase.LayoutBinary})
	want := `SELECT pg_advisory_xact_lock(hashtext('benchtop:' || 'usertable'));
CREATE TABLE IF NOT EXISTS usertable (YCSB_KEY VARCHAR(255) COLLATE "C" PRIMARY KEY, FIELD0 BYTEA, FIELD1 BYTEA) PARTITION BY HASH (YCSB_KEY);
CREATE TABLE IF NOT EXISTS usertable_p0 PARTITION OF usertable FOR VALUES WITH (MODULUS 3, REMAINDER 0);
CREATE TABLE IF NOT EXISTS usertable_p1 PARTITION OF usertable FOR VALUES WITH (MODULUS 3, REMAINDER 1);
CREATE TABLE IF NOT EXISTS usertable_p2 PARTITION OF usertable FOR VALUES WITH (MODULUS 3, REMAINDER 2);
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got := CreateSQL(sqlbase.Config{Table: "t", Fields: 1, FieldPrefix: "field", Partitions: 1}); strings.Contains(got, "PARTITION") {
		t.Errorf("one partition is no partitioning: %s", got)
	}
	// By default YCSB's documented DDL: VARCHAR key, TEXT fields, the
	// database's collation.
	got = CreateSQL(sqlbase.Config{Table: "usertable", Fields: 2, FieldPrefix: "field", Partitions: 1, Layout: sqlbase.LayoutYCSB})
	if want := "CREATE TABLE IF NOT EXISTS usertable (YCSB_KEY VARCHAR(255) PRIMARY KEY, FIELD0 TEXT, FIELD1 TEXT);\n"; !strings.HasSuffix(got, want) {
		t.Errorf("got\n%s\nwant it to end with\n%s", got, want)
	}
}

// pgjdbc's prepareThreshold is accepted, kept from libpq, and draws one
// warning naming it.
func TestPrepareThresholdWarned(t *testing.T) {
	t.Parallel()
	const u = "jdbc:postgresql://127.0.0.1:5432/ycsb?prepareThreshold=0&reWriteBatchedInserts=true"
	cfg, rewrite, err := connConfig(sqlbase.Config{URL: u})
	if err != nil || !rewrite {
		t.Fatalf("connConfig: rewrite %v, %v", rewrite, err)
	}
	if _, ok := cfg.RuntimeParams[prepareParam]; ok {
		t.Errorf("%s would reach the server as a setting", prepareParam)
	}
	got := urlWarnings(u)
	if len(got) != 1 || !strings.HasPrefix(got[0], "warning: db.url's prepareThreshold=0 has no effect: ") {
		t.Errorf("warnings %q, want one for prepareThreshold", got)
	}
	if got := urlWarnings("postgres://u@h/db"); got != nil {
		t.Errorf("a libpq URL: warnings %q, want none", got)
	}
}
