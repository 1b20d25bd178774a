package dynamodb

import (
	"net"
	"net/url"
	"sort"
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

// knownProps are the dynamodb.* properties this adapter reads; any other
// name under the prefix is a typo, reported rather than ignored.
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
	s := settings{}
	for k := range props {
		if strings.HasPrefix(k, "dynamodb.") && !isKnown(k) {
			known := append([]string(nil), knownProps...)
			sort.Strings(known)
			return s, &adapters.ConfigError{Key: k, Value: props[k], Allowed: "a known property: " + strings.Join(known, ", ")}
		}
	}

	ep, err := parseEndpoint(strings.TrimSpace(props.String(PropEndpoint, "")))
	if err != nil {
		return s, err
	}
	s.endpoint = ep

	s.region = strings.TrimSpace(props.String(PropRegion, ""))
	if s.region == "" { // YCSB: an empty region keeps the default
		s.region = DefaultRegion
	}
	s.table = strings.TrimSpace(props.String(PropTable, DefaultTable))
	if s.table == "" {
		return s, &adapters.ConfigError{Key: PropTable, Value: "", Allowed: "a table name"}
	}
	s.primaryKey = strings.TrimSpace(props.String(PropPrimaryKey, DefaultPrimaryKey))
	if s.primaryKey == "" {
		return s, &adapters.ConfigError{Key: PropPrimaryKey, Value: "", Allowed: "an attribute name (default " + DefaultPrimaryKey + ")"}
	}

	kt := props.String(PropPrimaryKeyType, KeyTypeHash)
	switch strings.ToUpper(strings.TrimSpace(kt)) {
	case KeyTypeHash:
		s.keyType = KeyTypeHash
	case KeyTypeHashAndRange:
		s.keyType = KeyTypeHashAndRange
		// As in YCSB: benchtop's keys become range keys under one hash key
		// value, and the hash key's name must be given.
		s.hashKeyName = strings.TrimSpace(props.String(PropHashKeyName, ""))
		if s.hashKeyName == "" {
			return s, &adapters.ConfigError{Key: PropHashKeyName, Value: "", Allowed: "an attribute name (required when " + PropPrimaryKeyType + "=" + KeyTypeHashAndRange + ")"}
		}
		if s.hashKeyName == s.primaryKey {
			return s, &adapters.ConfigError{Key: PropHashKeyName, Value: s.hashKeyName, Allowed: "a name different from " + PropPrimaryKey}
		}
		s.hashKeyValue = props.String(PropHashKeyValue, DefaultHashKeyValue)
		if s.hashKeyValue == "" {
			return s, &adapters.ConfigError{Key: PropHashKeyValue, Value: "", Allowed: "a non-empty string (default " + DefaultHashKeyValue + ")"}
		}
	default:
		return s, &adapters.ConfigError{Key: PropPrimaryKeyType, Value: kt, Allowed: KeyTypeHash + " or " + KeyTypeHashAndRange}
	}

	if s.consistentReads, err = props.Bool(PropConsistentReads, false); err != nil {
		return s, err
	}
	s.credentialsFile = strings.TrimSpace(props.String(PropCredentialsFile, ""))

	n, err := props.Int(PropConnectMax, DefaultConnectMax)
	if err != nil {
		return s, err
	}
	if n < 1 || n > 100000 {
		return s, &adapters.ConfigError{Key: PropConnectMax, Value: props[PropConnectMax], Allowed: "1 to 100000 connections"}
	}
	s.connectMax = int(n)

	// YCSB needs both TTL properties; one without the other is ignored there,
	// and an error here.
	s.ttlKey = strings.TrimSpace(props.String(PropTTLKey, ""))
	_, hasTTLDur := props[PropTTLDuration]
	if s.ttlKey != "" || hasTTLDur {
		secs, err := props.Int(PropTTLDuration, 0)
		if err != nil {
			return s, err
		}
		if s.ttlKey == "" {
			return s, &adapters.ConfigError{Key: PropTTLKey, Value: "", Allowed: "an attribute name (required with " + PropTTLDuration + ")"}
		}
		if !hasTTLDur || secs < 0 {
			return s, &adapters.ConfigError{Key: PropTTLDuration, Value: props[PropTTLDuration], Allowed: "seconds >= 0 (required with " + PropTTLKey + ")"}
		}
		s.ttlDuration = time.Duration(secs) * time.Second
	}
	if _, err := props.Bool(PropDebug, false); err != nil {
		return s, err // accepted for YCSB property files; there is nothing to log
	}

	if s.createTable, err = props.Bool(PropCreateTable, true); err != nil {
		return s, err
	}
	r, err := props.Int(PropMaxRetries, DefaultMaxRetries)
	if err != nil {
		return s, err
	}
	if r < 0 || r > 100 {
		return s, &adapters.ConfigError{Key: PropMaxRetries, Value: props[PropMaxRetries], Allowed: "0 to 100 retries"}
	}
	s.maxRetries = int(r)

	if s.connectTimeout, err = positiveDuration(props, PropConnectTimeout, DefaultConnectTimeout); err != nil {
		return s, err
	}
	if s.requestTimeout, err = positiveDuration(props, PropRequestTimeout, DefaultRequestTimeout); err != nil {
		return s, err
	}
	if s.tableTimeout, err = positiveDuration(props, PropTableTimeout, DefaultTableTimeout); err != nil {
		return s, err
	}
	return s, nil
}

func isKnown(k string) bool {
	for _, p := range knownProps {
		if p == k {
			return true
		}
	}
	return false
}

// positiveDuration reads a duration property; a bare number is in
// milliseconds, as timeouts are in YCSB's bindings.
func positiveDuration(props adapters.Properties, key string, def time.Duration) (time.Duration, error) {
	d, err := props.Duration(key, def, time.Millisecond)
	if err != nil {
		return 0, err
	}
	if d <= 0 {
		return 0, &adapters.ConfigError{Key: key, Value: props[key], Allowed: "a duration > 0 such as 500ms or 10s"}
	}
	return d, nil
}

// parseEndpoint validates dynamodb.endpoint. Like the Java SDK YCSB uses, an
// endpoint without a scheme means https.
func parseEndpoint(ep string) (string, error) {
	if ep == "" {
		return "", nil
	}
	raw := ep
	if !strings.Contains(ep, "://") {
		ep = "https://" + ep
	}
	u, err := url.Parse(ep)
	bad := func() error {
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
