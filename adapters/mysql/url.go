package mysql

import (
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// Connector/J's URL parameters that change what the server receives,
// accepted in any form of db.url and taken out of it before the URL
// reaches the Go driver (which would send them to the server as session
// variables): rewriteBatchedStatements makes a batch one multi-row
// INSERT; useServerPrepStmts=true prepares each statement on the server
// (its default, false, sends each as text with the values inlined).
const (
	rewriteParam    = "rewriteBatchedStatements"
	serverPrepParam = "useServerPrepStmts"
)

// jdbcFlags are what Connector/J's parameters say of the statements.
type jdbcFlags struct {
	rewrite    bool // rewriteBatchedStatements=true
	serverPrep bool // useServerPrepStmts=true
}

// take reads one of the parameters jdbcFlags holds, saying whether k was
// one.
func (f *jdbcFlags) take(k, v string) bool {
	switch {
	case strings.EqualFold(k, rewriteParam):
		f.rewrite = strings.EqualFold(v, "true")
	case strings.EqualFold(k, serverPrepParam):
		f.serverPrep = strings.EqualFold(v, "true")
	default:
		return false
	}
	return true
}

// jdbcParams are the Connector/J (and MariaDB Connector/J) URL parameters
// a jdbc:mysql:// URL may carry, each applied by a function to the Go
// driver's settings.
var jdbcParams = map[string]func(c *gomysql.Config, v string) error{
	"user":     func(c *gomysql.Config, v string) error { c.User = v; return nil },
	"password": func(c *gomysql.Config, v string) error { c.Passwd = v; return nil },
	"useSSL": func(c *gomysql.Config, v string) error {
		if strings.EqualFold(v, "true") {
			c.TLSConfig = "preferred"
		} else {
			c.TLSConfig = "false"
		}
		return nil
	},
	"sslMode": func(c *gomysql.Config, v string) error {
		c.TLSConfig = map[string]string{"DISABLED": "false", "PREFERRED": "preferred", "REQUIRED": "skip-verify",
			"VERIFY_CA": "true", "VERIFY_IDENTITY": "true"}[strings.ToUpper(v)]
		if c.TLSConfig == "" {
			return errBadValue
		}
		return nil
	},
	"connectTimeout": func(c *gomysql.Config, v string) error { return millis(&c.Timeout, v) },
	"socketTimeout": func(c *gomysql.Config, v string) error {
		if err := millis(&c.ReadTimeout, v); err != nil {
			return err
		}
		c.WriteTimeout = c.ReadTimeout
		return nil
	},
	// Read by jdbcFlags.
	serverPrepParam: func(*gomysql.Config, string) error { return nil },
	rewriteParam:    func(*gomysql.Config, string) error { return nil },
	// Accepted, not honoured as Connector/J does: a warning each
	// (unhonoured).
	"cachePrepStmts":          func(*gomysql.Config, string) error { return nil },
	"prepStmtCacheSize":       func(*gomysql.Config, string) error { return nil },
	"prepStmtCacheSqlLimit":   func(*gomysql.Config, string) error { return nil },
	"characterEncoding":       func(*gomysql.Config, string) error { return nil },
	"useUnicode":              func(*gomysql.Config, string) error { return nil },
	"serverTimezone":          func(*gomysql.Config, string) error { return nil },
	"allowPublicKeyRetrieval": func(*gomysql.Config, string) error { return nil },
}

// unhonoured are the Connector/J parameters benchtop accepts but does not
// honour as Connector/J does, and what it does instead: each draws one
// warning line naming it (Notes).
var unhonoured = map[string]string{
	"cachePrepStmts": "YCSB's binding keeps each statement it prepares for its connection, and so does benchtop: " +
		"Connector/J's cache of prepared statements changes nothing the server receives",
	"prepStmtCacheSize":       "there is no Connector/J statement cache: each connection keeps up to 64 statements",
	"prepStmtCacheSqlLimit":   "there is no Connector/J statement cache: each connection keeps up to 64 statements",
	"characterEncoding":       "the connection's character set is the Go driver's utf8mb4, whatever the value",
	"useUnicode":              "the connection's character set is the Go driver's utf8mb4, whatever the value",
	"serverTimezone":          "benchtop reads and writes no date or time values",
	"allowPublicKeyRetrieval": "the Go driver asks the server for its public key whenever caching_sha2_password needs it",
}

// urlWarnings are the warning lines of the Connector/J parameters of a
// jdbc:mysql:// db.url that benchtop accepts but does not honour.
func urlWarnings(raw string) []string { return sqlbase.URLWarnings(raw, unhonoured) }

type badValue struct{}

func (badValue) Error() string { return "bad value" }

var errBadValue error = badValue{}

func millis(d *time.Duration, v string) error {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return errBadValue
	}
	*d = time.Duration(n) * time.Millisecond
	return nil
}

// connConfig turns db.url (YCSB's jdbc:mysql:// or jdbc:mariadb:// URL, a
// mysql://user@host:port/database URL, or a Go driver DSN such as
// user@tcp(host:3306)/database) with db.user and db.passwd into the Go
// driver's settings, and says what Connector/J's rewriteBatchedStatements
// and useServerPrepStmts asked for (in any form of the URL). Without
// useServerPrepStmts=true the driver interpolates the values into the
// statement's text, as Connector/J does by default. Its errors are
// *adapters.ConfigError with the URL masked.
func connConfig(c sqlbase.Config) (*gomysql.Config, jdbcFlags, error) {
	bad := func(why string) error {
		return &adapters.ConfigError{Key: sqlbase.PropURL, Value: c.Where(), Allowed: why}
	}
	const forms = "YCSB's jdbc:mysql://host:port/database URL, a mysql://user@host:port/database URL or a Go driver DSN (user@tcp(host:port)/database)"
	var (
		cfg   *gomysql.Config
		flags jdbcFlags
		err   error
	)
	s := c.URL
	switch {
	case len(s) > 5 && strings.EqualFold(s[:5], "jdbc:"):
		rest := s[5:]
		if !strings.HasPrefix(rest, "mysql://") && !strings.HasPrefix(rest, "mariadb://") {
			return nil, flags, bad(forms)
		}
		cfg, flags, err = fromJDBC(rest)
	case strings.HasPrefix(s, "mysql://") || strings.HasPrefix(s, "mariadb://"):
		cfg, flags, err = fromURL(s)
	default:
		var dsn string
		dsn, flags = stripFlags(s)
		cfg, err = gomysql.ParseDSN(dsn)
	}
	if err != nil {
		return nil, flags, bad(forms + ": " + sqlbase.Scrub(err, c.Password).Error())
	}
	if c.User != "" {
		cfg.User = c.User
	}
	if c.Password != "" {
		cfg.Passwd = c.Password
	}
	// An UPDATE's count is of the rows it found, not only of those it
	// changed, as Connector/J counts them: writing a value a row already
	// holds is no "not found".
	cfg.ClientFoundRows = true
	// Connector/J's default: the values go inlined in the statement's
	// text (COM_QUERY), no Prepare; useServerPrepStmts=true: prepared on
	// the server, executed with binary values.
	cfg.InterpolateParams = !flags.serverPrep
	return cfg, flags, nil
}

// stripFlags takes Connector/J's parameters jdbcFlags holds out of a
// DSN's parameters.
func stripFlags(dsn string) (string, jdbcFlags) {
	var flags jdbcFlags
	q := strings.LastIndexByte(dsn, '?')
	if q < 0 {
		return dsn, flags
	}
	var keep []string
	for _, kv := range strings.Split(dsn[q+1:], "&") {
		k, v, _ := strings.Cut(kv, "=")
		if flags.take(k, v) {
			continue
		}
		keep = append(keep, kv)
	}
	if len(keep) == 0 {
		return dsn[:q], flags
	}
	return dsn[:q+1] + strings.Join(keep, "&"), flags
}

// fromURL reads mysql://user:password@host:port/database?params, whose
// parameters are the Go driver's.
func fromURL(s string) (*gomysql.Config, jdbcFlags, error) {
	var flags jdbcFlags
	u, err := url.Parse(s)
	if err != nil {
		return nil, flags, err
	}
	q := u.Query()
	for k, v := range q {
		if flags.take(k, v[len(v)-1]) {
			q.Del(k)
		}
	}
	dsn := "tcp(" + hostPort(u) + ")" + pathOf(u)
	if enc := q.Encode(); enc != "" {
		dsn += "?" + enc
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, flags, err
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	return cfg, flags, nil
}

// fromJDBC reads a Connector/J URL (after "jdbc:").
func fromJDBC(rest string) (*gomysql.Config, jdbcFlags, error) {
	var flags jdbcFlags
	u, err := url.Parse(rest)
	if err != nil {
		return nil, flags, err
	}
	cfg, err := gomysql.ParseDSN("tcp(" + hostPort(u) + ")" + pathOf(u))
	if err != nil {
		return nil, flags, err
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	for k, vs := range u.Query() {
		apply, ok := jdbcParams[k]
		if !ok {
			names := make([]string, 0, len(jdbcParams))
			for n := range jdbcParams {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, flags, &paramError{name: k, known: names}
		}
		v := vs[len(vs)-1]
		flags.take(k, v)
		if err := apply(cfg, v); err != nil {
			return nil, flags, &paramError{name: k + "=" + v, known: []string{"a value Connector/J takes"}}
		}
	}
	return cfg, flags, nil
}

func hostPort(u *url.URL) string {
	host, port := u.Hostname(), u.Port()
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "3306"
	}
	return net.JoinHostPort(host, port)
}

func pathOf(u *url.URL) string {
	if u.Path == "" {
		return "/"
	}
	return u.Path
}

type paramError struct {
	name  string
	known []string
}

func (e *paramError) Error() string {
	return "parameters benchtop knows (" + strings.Join(e.known, ", ") + "), not " + e.name
}
