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

// The JDBC driver's URL parameter that makes a batch one multi-row INSERT
// (Connector/J's rewriteBatchedStatements); accepted in any form of db.url
// and taken out of it before the URL reaches the Go driver (which would
// send it to the server as a session variable).
const rewriteParam = "rewriteBatchedStatements"

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
	// Connector/J's names for what the Go driver does anyway: server-side
	// prepared statements, cached; UTF-8.
	"useServerPrepStmts": func(*gomysql.Config, string) error { return nil },
	"cachePrepStmts":     func(*gomysql.Config, string) error { return nil },
	"characterEncoding":  func(*gomysql.Config, string) error { return nil },
	"useUnicode":         func(*gomysql.Config, string) error { return nil },
	"serverTimezone":     func(*gomysql.Config, string) error { return nil },
	"allowPublicKeyRetrieval": func(c *gomysql.Config, v string) error {
		return nil // the Go driver asks for the server's key when it needs it
	},
	rewriteParam: func(*gomysql.Config, string) error { return nil },
}

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
// driver's settings, and says whether the URL asked for rewritten batches.
// Its errors are *adapters.ConfigError with the URL masked.
func connConfig(c sqlbase.Config) (*gomysql.Config, bool, error) {
	bad := func(why string) error {
		return &adapters.ConfigError{Key: sqlbase.PropURL, Value: c.Where(), Allowed: why}
	}
	const forms = "YCSB's jdbc:mysql://host:port/database URL, a mysql://user@host:port/database URL or a Go driver DSN (user@tcp(host:port)/database)"
	var (
		cfg     *gomysql.Config
		rewrite bool
		err     error
	)
	s := c.URL
	switch {
	case len(s) > 5 && strings.EqualFold(s[:5], "jdbc:"):
		rest := s[5:]
		if !strings.HasPrefix(rest, "mysql://") && !strings.HasPrefix(rest, "mariadb://") {
			return nil, false, bad(forms)
		}
		cfg, rewrite, err = fromJDBC(rest)
	case strings.HasPrefix(s, "mysql://") || strings.HasPrefix(s, "mariadb://"):
		cfg, rewrite, err = fromURL(s)
	default:
		var dsn string
		dsn, rewrite = stripRewrite(s)
		cfg, err = gomysql.ParseDSN(dsn)
	}
	if err != nil {
		return nil, false, bad(forms + ": " + sqlbase.Scrub(err, c.Password).Error())
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
	cfg.InterpolateParams = false
	return cfg, rewrite, nil
}

// stripRewrite takes rewriteBatchedStatements out of a DSN's parameters.
func stripRewrite(dsn string) (string, bool) {
	q := strings.LastIndexByte(dsn, '?')
	if q < 0 {
		return dsn, false
	}
	var keep []string
	rewrite := false
	for _, kv := range strings.Split(dsn[q+1:], "&") {
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, rewriteParam) {
			rewrite = strings.EqualFold(v, "true")
			continue
		}
		keep = append(keep, kv)
	}
	if len(keep) == 0 {
		return dsn[:q], rewrite
	}
	return dsn[:q+1] + strings.Join(keep, "&"), rewrite
}

// fromURL reads mysql://user:password@host:port/database?params, whose
// parameters are the Go driver's.
func fromURL(s string) (*gomysql.Config, bool, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, false, err
	}
	q := u.Query()
	rewrite := false
	for k, v := range q {
		if strings.EqualFold(k, rewriteParam) {
			rewrite = strings.EqualFold(v[len(v)-1], "true")
			q.Del(k)
		}
	}
	dsn := "tcp(" + hostPort(u) + ")" + pathOf(u)
	if enc := q.Encode(); enc != "" {
		dsn += "?" + enc
	}
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, false, err
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	return cfg, rewrite, nil
}

// fromJDBC reads a Connector/J URL (after "jdbc:").
func fromJDBC(rest string) (*gomysql.Config, bool, error) {
	u, err := url.Parse(rest)
	if err != nil {
		return nil, false, err
	}
	cfg, err := gomysql.ParseDSN("tcp(" + hostPort(u) + ")" + pathOf(u))
	if err != nil {
		return nil, false, err
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	rewrite := false
	for k, vs := range u.Query() {
		apply, ok := jdbcParams[k]
		if !ok {
			names := make([]string, 0, len(jdbcParams))
			for n := range jdbcParams {
				names = append(names, n)
			}
			sort.Strings(names)
			return nil, false, &paramError{name: k, known: names}
		}
		v := vs[len(vs)-1]
		if k == rewriteParam {
			rewrite = strings.EqualFold(v, "true")
		}
		if err := apply(cfg, v); err != nil {
			return nil, false, &paramError{name: k + "=" + v, known: []string{"a value Connector/J takes"}}
		}
	}
	return cfg, rewrite, nil
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
