package mongodb

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
)

// Property names and defaults, as YCSB's mongodb binding reads them.
const (
	PropURL            = "mongodb.url"
	PropBatchSize      = "mongodb.batchsize"
	PropBatchSizeYCSB  = "batchsize" // the name YCSB's binding actually reads
	PropUpsert         = "mongodb.upsert"
	PropMaxConnections = "mongodb.maxconnections" // YCSB legacy: maxPoolSize
	PropWriteConcern   = "mongodb.writeConcern"   // YCSB legacy: w / journal
	PropReadPreference = "mongodb.readPreference" // YCSB legacy: readPreference
	// PropWaitQueue is YCSB's legacy waitQueueMultiple, refused: the Go
	// driver has no such limit.
	PropWaitQueue = "mongodb.threadsAllowedToBlockForConnectionMultiplier"

	// DefaultURL is YCSB's default mongodb.url.
	DefaultURL = "mongodb://localhost:27017/ycsb?w=1"
	// DefaultDatabase is used when the URL names none (or names admin, or
	// mongodb.url is not given), as in YCSB.
	DefaultDatabase = "ycsb"
	// DefaultTable is YCSB's default table, the collection name.
	DefaultTable = "usertable"
)

// selectTimeout bounds how long one operation waits for a usable server,
// and how long Open waits for the first one. The driver's default is 30 s;
// a live benchmark should show an outage as errors within seconds. A
// serverSelectionTimeoutMS in the URL overrides it.
const selectTimeout = 5 * time.Second

// config is the adapter's view of the run's properties.
type config struct {
	url       string // effective URL, with YCSB's legacy options folded in; secret
	masked    string // url with secrets masked, for screens and errors
	database  string
	batchSize int
	upsert    bool
	// selectSet: the URL sets serverSelectionTimeoutMS itself.
	selectSet bool
	// redact masks the URL's secrets in a message.
	redact *strings.Replacer
}

// Keys are the properties the adapter reads (the Driver's Keys).
var Keys = []string{
	PropURL, PropBatchSize, PropBatchSizeYCSB, PropUpsert,
	PropMaxConnections, PropWriteConcern, PropReadPreference, PropWaitQueue,
}

func parseConfig(props adapters.Properties) (*config, error) {
	r := adapters.NewReader(props)
	c := readConfig(r)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// readConfig reads every property even after a bad one, so that the
// Reader knows them all; the first error is the Reader's.
func readConfig(r *adapters.Reader) *config {
	given := r.Has(PropURL)
	raw := strings.TrimSpace(r.String(PropURL, DefaultURL))
	if !strings.HasPrefix(raw, "mongodb://") && !strings.HasPrefix(raw, "mongodb+srv://") {
		r.Fail(&adapters.ConfigError{Key: PropURL, Value: adapters.MaskURL(raw),
			Allowed: "a connection string mongodb://host[:port][,host...]/database?options or mongodb+srv://host/database?options"})
		raw = DefaultURL
	}
	u := legacyOptions(raw, r)
	c := &config{url: u, masked: adapters.MaskURL(u)}

	// YCSB: the URL's database, unless mongodb.url was defaulted or the
	// database is empty or admin (the usual authentication database).
	c.database = DefaultDatabase
	if db := databaseOf(u); given && db != "" && db != "admin" {
		c.database = db
	}

	// mongodb.batchsize wins over YCSB's un-prefixed batchsize.
	key := PropBatchSizeYCSB
	if r.Has(PropBatchSize) {
		key = PropBatchSize
	}
	r.Has(PropBatchSizeYCSB)
	c.batchSize = r.Int(key, 1, 1, 1<<20)

	c.upsert = r.Bool(PropUpsert, false)
	c.selectSet = hasQueryOption(u, "serverSelectionTimeoutMS")
	c.redact = redactor(u, c.masked)
	return c
}

// legacyOptions folds YCSB's legacy properties into the URL, each only when
// the URL does not set that option already (as YCSB's OptionsSupport does).
// Unlike YCSB, which warns and goes on, an unknown value is a ConfigError.
func legacyOptions(u string, r *adapters.Reader) string {
	if r.Has(PropMaxConnections) {
		n := r.Int(PropMaxConnections, 0, 0, math.MaxInt32)
		u = addQueryOption(u, "maxPoolSize", strconv.Itoa(n))
	}
	if r.Has(PropWaitQueue) {
		r.Bad(PropWaitQueue, "no value (the MongoDB Go driver has no wait queue limit, YCSB's waitQueueMultiple: remove it; mongodb.maxconnections sets the pool size)")
	}
	wc := r.Choice(PropWriteConcern, "", "unacknowledged", "acknowledged", "journaled", "replica_acknowledged", "majority", "errors_ignored")
	switch wc {
	case "errors_ignored", "unacknowledged":
		u = addQueryOption(u, "w", "0")
	case "acknowledged":
		u = addQueryOption(u, "w", "1")
	case "journaled":
		u = addQueryOption(u, "journal", "true")
	case "replica_acknowledged":
		u = addQueryOption(u, "w", "2")
	case "majority":
		u = addQueryOption(u, "w", "majority")
	}
	modes := map[string]string{
		"primary":             "primary",
		"primary_preferred":   "primaryPreferred",
		"secondary":           "secondary",
		"secondary_preferred": "secondaryPreferred",
		"nearest":             "nearest",
	}
	if m := r.Choice(PropReadPreference, "", "primary", "primary_preferred", "secondary", "secondary_preferred", "nearest"); m != "" {
		u = addQueryOption(u, "readPreference", modes[m])
	}
	return u
}

// queryOf returns the query part of a connection string.
func queryOf(u string) string {
	if i := strings.IndexByte(u, '?'); i >= 0 {
		return u[i+1:]
	}
	return ""
}

// hasQueryOption reports whether the connection string sets name (option
// names are case-insensitive in MongoDB connection strings).
func hasQueryOption(u, name string) bool {
	for _, kv := range strings.FieldsFunc(queryOf(u), func(r rune) bool { return r == '&' || r == ';' }) {
		k, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

func addQueryOption(u, name, value string) string {
	if hasQueryOption(u, name) {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
		if strings.HasSuffix(u, "?") || strings.HasSuffix(u, "&") {
			sep = ""
		}
	} else if !hasPath(u) {
		sep = "/?" // mongodb://host?x=y is not valid; mongodb://host/?x=y is
	}
	return u + sep + name + "=" + url.QueryEscape(value)
}

// hostsEnd returns the index where the userinfo and host list of a
// connection string end: the first '/' or '?' after the scheme (the
// connection string spec requires both to be escaped in userinfo), or
// len(u).
func hostsEnd(u string) int {
	start := strings.Index(u, "://") + 3
	if i := strings.IndexAny(u[start:], "/?"); i >= 0 {
		return start + i
	}
	return len(u)
}

func hasPath(u string) bool {
	e := hostsEnd(u)
	return e < len(u) && u[e] == '/'
}

// databaseOf returns the database named by the connection string's path.
func databaseOf(u string) string {
	e := hostsEnd(u)
	if e >= len(u) || u[e] != '/' {
		return ""
	}
	db := u[e+1:]
	if i := strings.IndexByte(db, '?'); i >= 0 {
		db = db[:i]
	}
	if d, err := url.PathUnescape(db); err == nil {
		db = d
	}
	return db
}

// redactor builds the replacer that masks, in any message, the URL and
// its secrets: the password (raw and unescaped) and the values of
// secret-looking query options.
func redactor(u, masked string) *strings.Replacer {
	pairs := []string{u, masked}
	add := func(v string) {
		// Very short strings would mangle every message they happen to
		// appear in; the URL and user:password@ forms still catch them.
		if len(v) >= 4 {
			pairs = append(pairs, v, "****")
		}
	}
	start := strings.Index(u, "://") + 3
	end := hostsEnd(u)
	if at := strings.LastIndexByte(u[start:end], '@'); at >= 0 {
		userinfo := u[start : start+at]
		if user, pass, ok := strings.Cut(userinfo, ":"); ok {
			pairs = append(pairs, userinfo+"@", user+":****@")
			if un, err := url.PathUnescape(user); err == nil {
				if p, err := url.PathUnescape(pass); err == nil {
					pairs = append(pairs, un+":"+p+"@", un+":****@")
					add(p)
				}
			}
			add(pass)
		}
	}
	for _, kv := range strings.FieldsFunc(queryOf(u), func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		lk := strings.ToLower(k)
		if strings.Contains(lk, "password") || strings.Contains(lk, "secret") || strings.Contains(lk, "token") || lk == "authmechanismproperties" {
			d, err := url.QueryUnescape(v)
			if err == nil && d != v {
				add(d)
			}
			add(v)
			if lk == "authmechanismproperties" && err == nil {
				// KEY:value,KEY:value; the values may be tokens.
				for _, p := range strings.Split(d, ",") {
					if _, pv, ok := strings.Cut(p, ":"); ok {
						add(pv)
					}
				}
			}
		}
	}
	return strings.NewReplacer(pairs...)
}

// describe is the one line shown for the target: the masked URL, and the
// database when the URL does not say it.
func (c *config) describe() string {
	if databaseOf(c.url) == c.database {
		return c.masked
	}
	return fmt.Sprintf("%s (database %s)", c.masked, c.database)
}
