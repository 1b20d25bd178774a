package dynamodb

import (
	"net"
	"net/url"
	"strings"
	"time"

	"benchtop/adapters"
)

// Property names. The dynamodb.* names are those of YCSB's dynamodb binding
// (site.ycsb.db.DynamoDBClient); the others are benchtop's additions.
const (
	PropEndpoint        = "dynamodb.endpoint"
	PropRegion          = "dynamodb.region"
	PropPrimaryKey      = "dynamodb.primaryKey"
	PropPrimaryKeyType  = "dynamodb.primaryKeyType"
	PropHashKeyName     = "dynamodb.hashKeyName"
	PropHashKeyValue    = "dynamodb.hashKeyValue"
	PropConsistentReads = "dynamodb.consistentReads"
	PropCredentialsFile = "dynamodb.awsCredentialsFile"
	PropConnectMax      = "dynamodb.connectMax"
	PropTTLKey          = "dynamodb.ttlKey"
	PropTTLDuration     = "dynamodb.ttlDuration"
	PropDebug           = "dynamodb.debug"

	PropCreateTable    = "dynamodb.createTable"
	PropMaxRetries     = "dynamodb.maxRetries"
	PropConnectTimeout = "dynamodb.connectTimeout"
	PropRequestTimeout = "dynamodb.requestTimeout"
	PropTableTimeout   = "dynamodb.createTableTimeout"

	// PropTable is the core YCSB table property.
	PropTable = "table"
)

// Defaults.
const (
	DefaultRegion         = "us-east-1"
	DefaultPrimaryKey     = "key"
	DefaultHashKeyValue   = "YCSB_0" // YCSB's DEFAULT_HASH_KEY_VALUE
	DefaultConnectMax     = 50       // YCSB's maxConnects
	DefaultMaxRetries     = 2        // the Go SDK's standard retryer: 3 attempts
	DefaultConnectTimeout = 5 * time.Second
	DefaultRequestTimeout = 5 * time.Second
	DefaultTableTimeout   = 2 * time.Minute
	DefaultTable          = "usertable"
)

// Key types, as YCSB names them.
const (
	KeyTypeHash         = "HASH"
	KeyTypeHashAndRange = "HASH_AND_RANGE"
)

// knownProps are the dynamodb.* properties this adapter reads (the
// Driver's Keys); any other name under the prefix is a typo, refused
// rather than ignored.
var knownProps = []string{
	PropEndpoint, PropRegion, PropPrimaryKey, PropPrimaryKeyType,
	PropHashKeyName, PropHashKeyValue, PropConsistentReads,
	PropCredentialsFile, PropConnectMax, PropTTLKey, PropTTLDuration,
	PropDebug, PropCreateTable, PropMaxRetries, PropConnectTimeout,
	PropRequestTimeout, PropTableTimeout,
}

// settings is the validated configuration of one adapter.
type settings struct {
	endpoint        string // "" = AWS's endpoint for the region
	region          string
	table           string
	primaryKey      string
	keyType         string
	hashKeyName     string // HASH_AND_RANGE only
	hashKeyValue    string // HASH_AND_RANGE only
	consistentReads bool
	credentialsFile string
	connectMax      int
	ttlKey          string
	ttlDuration     time.Duration
	createTable     bool
	maxRetries      int
	connectTimeout  time.Duration
	requestTimeout  time.Duration
	tableTimeout    time.Duration
}

// parseSettings validates props. Every error is a *adapters.ConfigError.
func parseSettings(props adapters.Properties) (settings, error) {
	// A typo in a DynamoDB property file could benchmark another table
	// layout or endpoint than the one meant: refused, not ignored.
	if err := adapters.UnknownKeyError(props, []string{"dynamodb."}, knownProps); err != nil {
		return settings{}, err
	}
	r := adapters.NewReader(props)
	s := readSettings(r)
	return s, r.Err()
}

// readSettings reads every property even after a bad one; the first error
// is the Reader's.
func readSettings(r *adapters.Reader) settings {
	s := settings{}
	ep := strings.TrimSpace(r.String(PropEndpoint, ""))
	var err *adapters.ConfigError
	if s.endpoint, err = parseEndpoint(ep); err != nil {
		r.Fail(err)
	}

	s.region = strings.TrimSpace(r.String(PropRegion, ""))
	if s.region == "" { // YCSB: an empty region keeps the default
		s.region = DefaultRegion
	}
	s.table = strings.TrimSpace(r.String(PropTable, DefaultTable))
	if s.table == "" {
		r.Fail(&adapters.ConfigError{Key: PropTable, Value: "", Allowed: "a table name"})
	}
	s.primaryKey = strings.TrimSpace(r.String(PropPrimaryKey, DefaultPrimaryKey))
	if s.primaryKey == "" {
		r.Fail(&adapters.ConfigError{Key: PropPrimaryKey, Value: "", Allowed: "an attribute name (default " + DefaultPrimaryKey + ")"})
	}

	s.keyType = strings.ToUpper(r.Choice(PropPrimaryKeyType, KeyTypeHash, KeyTypeHash, KeyTypeHashAndRange))
	if s.keyType == KeyTypeHashAndRange {
		// As in YCSB: benchtop's keys become range keys under one hash key
		// value, and the hash key's name must be given.
		s.hashKeyName = strings.TrimSpace(r.String(PropHashKeyName, ""))
		s.hashKeyValue = r.String(PropHashKeyValue, DefaultHashKeyValue)
		switch {
		case s.hashKeyName == "":
			r.Fail(&adapters.ConfigError{Key: PropHashKeyName, Value: "", Allowed: "an attribute name (required when " + PropPrimaryKeyType + "=" + KeyTypeHashAndRange + ")"})
		case s.hashKeyName == s.primaryKey:
			r.Fail(&adapters.ConfigError{Key: PropHashKeyName, Value: s.hashKeyName, Allowed: "a name different from " + PropPrimaryKey})
		case s.hashKeyValue == "":
			r.Fail(&adapters.ConfigError{Key: PropHashKeyValue, Value: "", Allowed: "a non-empty string (default " + DefaultHashKeyValue + ")"})
		}
	}

	s.consistentReads = r.Bool(PropConsistentReads, false)
	s.credentialsFile = strings.TrimSpace(r.String(PropCredentialsFile, ""))
	s.connectMax = r.Int(PropConnectMax, DefaultConnectMax, 1, 100000)

	// YCSB needs both TTL properties; one without the other is ignored there,
	// and an error here.
	s.ttlKey = strings.TrimSpace(r.String(PropTTLKey, ""))
	hasTTLDur := r.Has(PropTTLDuration)
	secs := r.Int64(PropTTLDuration, 0, 0, 100*365*24*3600)
	switch {
	case s.ttlKey == "" && hasTTLDur:
		r.Fail(&adapters.ConfigError{Key: PropTTLKey, Value: "", Allowed: "an attribute name (required with " + PropTTLDuration + ")"})
	case s.ttlKey != "" && !hasTTLDur:
		r.Fail(&adapters.ConfigError{Key: PropTTLDuration, Value: "", Allowed: "seconds >= 0 (required with " + PropTTLKey + ")"})
	case s.ttlKey != "":
		s.ttlDuration = time.Duration(secs) * time.Second
	}
	r.Bool(PropDebug, false) // accepted for YCSB property files; there is nothing to log

	s.createTable = r.Bool(PropCreateTable, true)
	s.maxRetries = r.Int(PropMaxRetries, DefaultMaxRetries, 0, 100)
	// A bare number is in milliseconds, as timeouts are in YCSB's bindings.
	s.connectTimeout = r.Duration(PropConnectTimeout, DefaultConnectTimeout, time.Millisecond, time.Millisecond, 24*time.Hour)
	s.requestTimeout = r.Duration(PropRequestTimeout, DefaultRequestTimeout, time.Millisecond, time.Millisecond, 24*time.Hour)
	s.tableTimeout = r.Duration(PropTableTimeout, DefaultTableTimeout, time.Millisecond, time.Millisecond, 24*time.Hour)
	return s
}

// parseEndpoint validates dynamodb.endpoint. Like the Java SDK YCSB uses, an
// endpoint without a scheme means https.
func parseEndpoint(ep string) (string, *adapters.ConfigError) {
	if ep == "" {
		return "", nil
	}
	raw := ep
	if !strings.Contains(ep, "://") {
		ep = "https://" + ep
	}
	u, err := url.Parse(ep)
	bad := func() *adapters.ConfigError {
		return &adapters.ConfigError{Key: PropEndpoint, Value: adapters.MaskURL(raw), Allowed: "an http:// or https:// URL such as http://127.0.0.1:8000"}
	}
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return "", bad()
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", bad()
	}
	return strings.TrimRight(ep, "/"), nil
}

// isLoopback reports whether endpoint names this machine (localhost,
// 127.0.0.0/8, ::1).
func isLoopback(endpoint string) bool {
	if endpoint == "" {
		return false
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}
