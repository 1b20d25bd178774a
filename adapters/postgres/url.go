package postgres

import (
	"net/url"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// The JDBC driver's URL parameter that makes a batch one multi-row INSERT
// (pgjdbc's reWriteBatchedInserts); accepted in any form of db.url and
// taken out of it before the URL reaches pgx.
const rewriteParam = "reWriteBatchedInserts"

// jdbcParams are the pgjdbc URL parameters a jdbc:postgresql:// URL may
// carry, with the libpq name each becomes ("" for one benchtop takes
// itself).
var jdbcParams = map[string]string{
	"user":            "user",
	"password":        "password",
	"sslmode":         "sslmode",
	"ApplicationName": "application_name",
	"connectTimeout":  "connect_timeout",
	"currentSchema":   "search_path",
	"options":         "options",
	rewriteParam:      "",
	prepareParam:      "",
}

// prepareParam is pgjdbc's prepareThreshold: accepted in a
// jdbc:postgresql:// URL, not honoured, warned about (urlWarnings).
const prepareParam = "prepareThreshold"

// urlWarnings are the warning lines of the pgjdbc parameters of a
// jdbc:postgresql:// db.url that benchtop accepts but does not honour.
func urlWarnings(raw string) []string {
	return sqlbase.URLWarnings(raw, map[string]string{prepareParam: "benchtop prepares each statement on the server at its first use on a connection " +
		"(pgjdbc at its " + prepareParam + "-th execution, 5 by default, never with 0), so only the first few executions per statement and connection differ from YCSB's"})
}

// connConfig turns db.url (a postgres:// URL, a libpq keyword/value string,
// or YCSB's jdbc:postgresql:// URL) with db.user and db.passwd into pgx's
// connection settings, and says whether the URL asked for rewritten
// batches. Its errors are *adapters.ConfigError with the URL masked.
func connConfig(c sqlbase.Config) (*pgconn.Config, bool, error) {
	s := c.URL
	bad := func(why string) error {
		return &adapters.ConfigError{Key: sqlbase.PropURL, Value: c.Where(), Allowed: why}
	}
	rewrite := false
	if len(s) > 5 && strings.EqualFold(s[:5], "jdbc:") {
		rest := s[5:]
		if !strings.HasPrefix(rest, "postgresql://") {
			return nil, false, bad("a jdbc:postgresql://host:port/database URL (YCSB's form), a postgres:// URL or a libpq keyword/value string")
		}
		var err error
		if s, rewrite, err = fromJDBC(rest); err != nil {
			return nil, false, bad(err.Error())
		}
	} else if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			return nil, false, bad("a postgres://user@host:port/database URL, YCSB's jdbc:postgresql:// URL or a libpq keyword/value string")
		}
		q := u.Query()
		for k, v := range q {
			if strings.EqualFold(k, rewriteParam) {
				rewrite = len(v) > 0 && strings.EqualFold(v[len(v)-1], "true")
				q.Del(k)
			}
		}
		u.RawQuery = q.Encode()
		s = u.String()
	}
	cfg, err := pgconn.ParseConfig(s)
	if err != nil {
		return nil, false, bad("a URL pgx can read: " + sqlbase.Scrub(err, c.Password).Error())
	}
	if c.User != "" {
		cfg.User = c.User
	}
	if c.Password != "" {
		cfg.Password = c.Password
	}
	return cfg, rewrite, nil
}

// fromJDBC turns a pgjdbc URL (after "jdbc:") into a libpq URL.
func fromJDBC(rest string) (string, bool, error) {
	u, err := url.Parse(rest)
	if err != nil {
		return "", false, err
	}
	rewrite := false
	q := url.Values{}
	for k, vs := range u.Query() {
		to, ok := jdbcParams[k]
		if !ok {
			names := make([]string, 0, len(jdbcParams))
			for n := range jdbcParams {
				names = append(names, n)
			}
			sort.Strings(names)
			return "", false, &paramError{name: k, known: names}
		}
		v := vs[len(vs)-1]
		if k == prepareParam {
			continue
		}
		if to == "" {
			rewrite = strings.EqualFold(v, "true")
			continue
		}
		q.Set(to, v)
	}
	u.Scheme = "postgres"
	u.RawQuery = q.Encode()
	return u.String(), rewrite, nil
}

type paramError struct {
	name  string
	known []string
}

func (e *paramError) Error() string {
	return "a jdbc:postgresql:// URL whose parameters benchtop knows (" + strings.Join(e.known, ", ") + "), not " + e.name
}
