// Package influx is benchtop's adapter for databases that take InfluxDB
// line protocol over HTTP: InfluxDB 1.x and openGemini through the 1.x
// write API (POST /write?db=...&precision=...), and InfluxDB 2 and 3
// through the v2 API (POST /api/v2/write?org=...&bucket=...).
//
// It is not a key-value store: the adapters.DB methods return an error
// wrapping ErrKeyValue, and Open refuses the YCSB core workload. What it
// offers is adapters.LineWriter (send one batch of line protocol) and
// adapters.PointCounter (count the points of a measurement back), which
// the timeseries workload (-p workload=timeseries) finds by type assertion.
//
// Credentials (influx.password, influx.token, or a password in influx.url)
// travel in the Authorization header only, never in a URL, and are never
// shown: Describe and every error carry the URL through adapters.MaskURL.
//
// Errors are classified for counting by adapters.Kind: HTTP 429 and 503 are
// "throttled", 408 and 504 "timeout", 502 "unavailable", other statuses
// "error"; a refused or reset connection is "unavailable", a deadline
// "timeout". The status itself stays visible: every error of a request
// that got an answer wraps an *HTTPError, whose HTTPStatus method the
// timeseries workload uses to count errors by status.
package influx

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"benchtop/adapters"
)

// Property names.
const (
	PropURL       = "influx.url"       // base URL, default http://127.0.0.1:8086
	PropAPI       = "influx.api"       // v1 (default) or v2
	PropDB        = "influx.db"        // v1 database, default "benchtop"
	PropRP        = "influx.rp"        // v1 retention policy, default the database's default
	PropOrg       = "influx.org"       // v2 organisation
	PropBucket    = "influx.bucket"    // v2 bucket, default influx.db
	PropUsername  = "influx.username"  // v1 user (HTTP basic auth)
	PropPassword  = "influx.password"  // v1 password; never shown
	PropToken     = "influx.token"     // API token (Authorization: Token ...); never shown
	PropPrecision = "influx.precision" // ns (default), us, ms or s
	PropGzip      = "influx.gzip"      // gzip request bodies, default false
	PropTimeout   = "influx.timeout"   // per request, default 30s
	PropCreateDB  = "influx.createdb"  // v1: create the database when missing, default true
)

// DefaultURL is where the adapter connects when influx.url is not given.
const DefaultURL = "http://127.0.0.1:8086"

// ErrKeyValue is wrapped by the errors of the key-value methods.
var ErrKeyValue = errors.New("not supported by the influx adapter: use -p workload=timeseries")

func init() {
	adapters.Register(adapters.Driver{
		Name:        "influx",
		Description: "InfluxDB line protocol over HTTP (InfluxDB 1.x/2/3, openGemini); -p workload=timeseries",
		Prefixes:    []string{"influx."},
		Keys:        Keys,
		Open: func(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(ctx, props)
		},
	})
}

// Config is the adapter's validated configuration.
type Config struct {
	// URL is the base URL without credentials or trailing slash.
	URL       string
	API       string // "v1" or "v2"
	DB        string
	RP        string
	Org       string
	Bucket    string
	Username  string
	Password  string
	Token     string
	Precision time.Duration
	Gzip      bool
	Timeout   time.Duration
	CreateDB  bool
}

// coreWorkloads are the workload property values that select YCSB's core
// workload, which the adapter cannot serve.
var coreWorkloads = map[string]bool{
	"":                                      true,
	"core":                                  true,
	"site.ycsb.workloads.CoreWorkload":      true,
	"com.yahoo.ycsb.workloads.CoreWorkload": true,
}

var precisions = map[string]time.Duration{
	"ns": time.Nanosecond, "n": time.Nanosecond,
	"us": time.Microsecond, "u": time.Microsecond, "µs": time.Microsecond,
	"ms": time.Millisecond,
	"s":  time.Second,
}

// Keys are the influx.* properties the adapter reads (the Driver's Keys).
var Keys = []string{
	PropURL, PropAPI, PropDB, PropRP, PropOrg, PropBucket, PropUsername,
	PropPassword, PropToken, PropPrecision, PropGzip, PropTimeout, PropCreateDB,
}

// ParseConfig reads the influx.* properties. Bad values are
// *adapters.ConfigError; the value of a secret is never repeated in one.
func ParseConfig(props adapters.Properties) (*Config, error) {
	r := adapters.NewReader(props)
	c := readConfig(r)
	if err := r.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// readConfig reads every property even after a bad one; the first error is
// the Reader's.
func readConfig(r *adapters.Reader) *Config {
	c := &Config{
		API:      strings.ToLower(strings.TrimSpace(r.String(PropAPI, "v1"))),
		DB:       strings.TrimSpace(r.String(PropDB, "benchtop")),
		RP:       strings.TrimSpace(r.String(PropRP, "")),
		Org:      strings.TrimSpace(r.String(PropOrg, "")),
		Username: r.String(PropUsername, ""),
		Password: r.String(PropPassword, ""),
		Token:    r.String(PropToken, ""),
	}
	if c.API != "v1" && c.API != "v2" {
		r.Bad(PropAPI, "v1 (InfluxDB 1.x, openGemini) or v2 (InfluxDB 2 and 3)")
	}
	raw := strings.TrimSpace(r.String(PropURL, DefaultURL))
	u, err := url.Parse(raw)
	switch {
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		r.Fail(&adapters.ConfigError{Key: PropURL, Value: adapters.MaskURL(raw), Allowed: "an http:// or https:// URL such as " + DefaultURL})
		u, _ = url.Parse(DefaultURL)
	case u.RawQuery != "" || u.Fragment != "":
		r.Fail(&adapters.ConfigError{Key: PropURL, Value: adapters.MaskURL(raw), Allowed: "a base URL without query or fragment (database, org and bucket have properties of their own)"})
	}
	if u.User != nil {
		// Credentials in the URL move to the Authorization header.
		if c.Username == "" {
			c.Username = u.User.Username()
		}
		if p, ok := u.User.Password(); ok && c.Password == "" {
			c.Password = p
		}
		u.User = nil
	}
	c.URL = strings.TrimRight(u.String(), "/")
	if c.DB == "" {
		r.Bad(PropDB, "a database name")
	}
	c.Bucket = strings.TrimSpace(r.String(PropBucket, c.DB))
	if c.Token != "" && (c.Username != "" || c.Password != "") {
		r.Fail(&adapters.ConfigError{Key: PropToken, Value: "(set)", Allowed: "either influx.token or influx.username/influx.password, not both"})
	}
	if c.Password != "" && c.Username == "" {
		r.Fail(&adapters.ConfigError{Key: PropUsername, Value: "", Allowed: "a user name when influx.password is set"})
	}
	ps := strings.ToLower(strings.TrimSpace(r.String(PropPrecision, "ns")))
	prec, ok := precisions[ps]
	if !ok {
		r.Bad(PropPrecision, "ns, us, ms or s")
	}
	c.Precision = prec
	c.Gzip = r.Bool(PropGzip, false)
	c.CreateDB = r.Bool(PropCreateDB, true)
	c.Timeout = r.Duration(PropTimeout, 30*time.Second, time.Second, time.Millisecond, 24*time.Hour)
	return c
}

// precisionParam is the precision query parameter of the write API: the
// 1.x API takes n/u/ms/s (it reads an unknown value such as "us" as
// nanoseconds), the v2 API ns/us/ms/s.
func (c *Config) precisionParam() string {
	v1 := c.API == "v1"
	switch c.Precision {
	case time.Microsecond:
		if v1 {
			return "u"
		}
		return "us"
	case time.Millisecond:
		return "ms"
	case time.Second:
		return "s"
	}
	if v1 {
		return "n"
	}
	return "ns"
}

// precisionName is the precision as users write it.
func precisionName(d time.Duration) string {
	switch d {
	case time.Microsecond:
		return "us"
	case time.Millisecond:
		return "ms"
	case time.Second:
		return "s"
	}
	return "ns"
}

// DB is the influx adapter. It is safe for concurrent use.
type DB struct {
	cfg      Config
	client   *http.Client
	writeURL string
	auth     string // Authorization header value, "" for none
}

var (
	_ adapters.DB           = (*DB)(nil)
	_ adapters.Describer    = (*DB)(nil)
	_ adapters.LineWriter   = (*DB)(nil)
	_ adapters.PointCounter = (*DB)(nil)
)

// Open validates the properties, checks that the server answers /ping and,
// for the v1 API, creates the database when it is missing (unless
// influx.createdb=false). The YCSB core workload is refused with a
// *adapters.ConfigError.
func Open(ctx context.Context, props adapters.Properties) (*DB, error) {
	if wl := strings.TrimSpace(props.String("workload", "")); coreWorkloads[wl] {
		if wl == "" {
			wl = "core"
		}
		return nil, fmt.Errorf("influx: %w", &adapters.ConfigError{Key: "workload", Value: wl,
			Allowed: "timeseries (the influx adapter writes line protocol only: use -p workload=timeseries)"})
	}
	cfg, err := ParseConfig(props)
	if err != nil {
		return nil, fmt.Errorf("influx: %w", err)
	}
	db := New(*cfg)
	if err := db.ping(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if cfg.API == "v1" && cfg.CreateDB {
		if err := db.ensureDatabase(ctx); err != nil {
			db.Close()
			return nil, err
		}
	}
	return db, nil
}

// New returns an adapter for cfg without contacting the server.
func New(cfg Config) *DB {
	tr := &http.Transport{
		// No proxy: a benchmark measures the database, not a proxy that
		// HTTP_PROXY happens to name.
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024, // the default (2) would reconnect for most batches of >2 writers
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true,
		ForceAttemptHTTP2:   false,
	}
	db := &DB{cfg: cfg, client: &http.Client{Transport: tr}}
	q := url.Values{}
	if cfg.API == "v2" {
		if cfg.Org != "" {
			q.Set("org", cfg.Org)
		}
		q.Set("bucket", cfg.Bucket)
		q.Set("precision", cfg.precisionParam())
		db.writeURL = cfg.URL + "/api/v2/write?" + q.Encode()
	} else {
		q.Set("db", cfg.DB)
		if cfg.RP != "" {
			q.Set("rp", cfg.RP)
		}
		q.Set("precision", cfg.precisionParam())
		db.writeURL = cfg.URL + "/write?" + q.Encode()
	}
	switch {
	case cfg.Token != "":
		db.auth = "Token " + cfg.Token
	case cfg.Username != "":
		r := &http.Request{Header: http.Header{}}
		r.SetBasicAuth(cfg.Username, cfg.Password)
		db.auth = r.Header.Get("Authorization")
	}
	return db
}

// Config returns the adapter's configuration. It holds secrets: never
// print it.
func (d *DB) Config() Config { return d.cfg }

// Precision implements adapters.LineWriter.
func (d *DB) Precision() time.Duration { return d.cfg.Precision }

// Describe implements adapters.Describer: the URL (masked), API, database
// or bucket, precision and compression. It holds no secret.
func (d *DB) Describe() string {
	var b strings.Builder
	b.WriteString(adapters.MaskURL(d.cfg.URL))
	if d.cfg.API == "v2" {
		fmt.Fprintf(&b, " (v2 API, bucket %s", d.cfg.Bucket)
		if d.cfg.Org != "" {
			fmt.Fprintf(&b, ", org %s", d.cfg.Org)
		}
	} else {
		fmt.Fprintf(&b, " (v1 API, db %s", d.cfg.DB)
		if d.cfg.RP != "" {
			fmt.Fprintf(&b, ", rp %s", d.cfg.RP)
		}
	}
	fmt.Fprintf(&b, ", precision %s", precisionName(d.cfg.Precision))
	if d.cfg.Gzip {
		b.WriteString(", gzip")
	}
	if d.cfg.Username != "" {
		fmt.Fprintf(&b, ", user %s", d.cfg.Username)
	}
	if d.cfg.Token != "" {
		b.WriteString(", token ****")
	}
	b.WriteString(")")
	return b.String()
}

// where names the target in errors, without secrets.
func (d *DB) where() string {
	if d.cfg.API == "v2" {
		return adapters.MaskURL(d.cfg.URL) + " bucket " + d.cfg.Bucket
	}
	return adapters.MaskURL(d.cfg.URL) + " db " + d.cfg.DB
}

// Read is not supported: the adapter stores time series, not records.
func (d *DB) Read(context.Context, string, string, []string, []adapters.Field) ([]adapters.Field, error) {
	return nil, fmt.Errorf("influx: read: %w", ErrKeyValue)
}

// Scan is not supported.
func (d *DB) Scan(context.Context, string, string, int, []string, []adapters.Record) ([]adapters.Record, error) {
	return nil, fmt.Errorf("influx: scan: %w", ErrKeyValue)
}

// Update is not supported.
func (d *DB) Update(context.Context, string, string, []adapters.Field) error {
	return fmt.Errorf("influx: update: %w", ErrKeyValue)
}

// Insert is not supported.
func (d *DB) Insert(context.Context, string, string, []adapters.Field) error {
	return fmt.Errorf("influx: insert: %w", ErrKeyValue)
}

// Delete is not supported.
func (d *DB) Delete(context.Context, string, string) error {
	return fmt.Errorf("influx: delete: %w", ErrKeyValue)
}

// Close releases idle connections.
func (d *DB) Close() error {
	d.client.CloseIdleConnections()
	return nil
}
