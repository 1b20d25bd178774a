package cassandra

import (
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"benchtop/adapters"
)

// YCSB's cassandra-cql binding's property names
// (site.ycsb.db.CassandraCQLClient), and benchtop's one of its own.
const (
	PropHosts          = "hosts"                          // contact points, comma-separated (required)
	PropPort           = "port"                           // native port, 9042
	PropKeyspace       = "cassandra.keyspace"             // ycsb
	PropUsername       = "cassandra.username"             // PasswordAuthenticator's user
	PropPassword       = "cassandra.password"             // its password (never shown)
	PropReadCL         = "cassandra.readconsistencylevel" // QUORUM
	PropWriteCL        = "cassandra.writeconsistencylevel"
	PropMaxConns       = "cassandra.maxconnections"       // connections per host
	PropCoreConns      = "cassandra.coreconnections"      // the Java driver's floor of that pool
	PropConnectTimeout = "cassandra.connecttimeoutmillis" // connecting, 5000 ms
	PropReadTimeout    = "cassandra.readtimeoutmillis"    // a request's answer, 12000 ms
	PropTracing        = "cassandra.tracing"              // the server traces every statement
	PropUseSSL         = "cassandra.useSSL"               // TLS to the native port

	// PropReplication is benchtop's: the replication of a keyspace the
	// load creates (a replication factor for SimpleStrategy, or a CQL map).
	PropReplication = "cassandra.replication"
)

// Prefixes are the property names the adapter claims: its own prefix and
// YCSB's two plain names.
var Prefixes = []string{"cassandra.", PropHosts, PropPort}

// Keys are every property name the adapter reads, the core names it uses
// included.
var Keys = []string{
	PropHosts, PropPort, PropKeyspace, PropUsername, PropPassword, PropReadCL, PropWriteCL,
	PropMaxConns, PropCoreConns, PropConnectTimeout, PropReadTimeout, PropTracing, PropUseSSL, PropReplication,
	"table", "fieldcount", "fieldnameprefix", "threadcount",
}

// Defaults: YCSB's binding's, and its Java driver's (3.x) where the
// binding leaves a value to the driver.
const (
	DefaultPort           = 9042
	DefaultKeyspace       = "ycsb"
	DefaultConsistency    = "QUORUM"
	DefaultConnsPerHost   = 1 // the Java driver's pool for a local host, protocol v3 and later
	DefaultConnectTimeout = 5 * time.Second
	DefaultReadTimeout    = 12 * time.Second
	DefaultReplication    = "1"
	// KeyColumn is YCSB's key column.
	KeyColumn = "y_id"
)

// Config is what the adapter reads of the properties.
type Config struct {
	Hosts    []string
	Port     int
	Keyspace string
	Username string
	Password string // never shown

	ReadCL, WriteCL gocql.Consistency
	ConnsPerHost    int
	ConnectTimeout  time.Duration
	ReadTimeout     time.Duration
	Tracing         bool
	UseSSL          bool
	Replication     string // the CQL map of a keyspace the load creates

	Table       string
	Fields      int
	FieldPrefix string
	Threads     int
}

// identifier is a name CQL takes unquoted: Cassandra folds it to lower
// case, so an upper-case letter would name another table than the one
// looked for; it must be lower case here.
var identifier = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

// consistencies are the levels YCSB's binding takes (the Java driver's
// ConsistencyLevel names).
var consistencies = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"}

// ReadConfig reads the binding's properties; its error is a
// *adapters.ConfigError, which never repeats the password.
func ReadConfig(props adapters.Properties) (Config, error) {
	r := adapters.NewReader(props)
	c := Config{
		Port:           r.Int(PropPort, DefaultPort, 1, 65535),
		Keyspace:       strings.TrimSpace(r.String(PropKeyspace, DefaultKeyspace)),
		Username:       r.String(PropUsername, ""),
		Password:       r.String(PropPassword, ""),
		ReadCL:         consistency(r, PropReadCL),
		WriteCL:        consistency(r, PropWriteCL),
		ConnectTimeout: time.Duration(r.Int(PropConnectTimeout, int(DefaultConnectTimeout/time.Millisecond), 1, 3_600_000)) * time.Millisecond,
		ReadTimeout:    time.Duration(r.Int(PropReadTimeout, int(DefaultReadTimeout/time.Millisecond), 1, 3_600_000)) * time.Millisecond,
		Tracing:        r.Bool(PropTracing, false),
		UseSSL:         r.Bool(PropUseSSL, false),
		Table:          strings.TrimSpace(r.String("table", "usertable")),
		Fields:         r.Int("fieldcount", 10, 1, 1000),
		FieldPrefix:    r.String("fieldnameprefix", "field"),
		Threads:        r.Int("threadcount", 1, 1, 1<<16),
	}
	maxConns := r.Int(PropMaxConns, 0, 1, 1024)
	coreConns := r.Int(PropCoreConns, 0, 1, 1024)
	c.ConnsPerHost = DefaultConnsPerHost
	switch {
	case maxConns > 0:
		c.ConnsPerHost = maxConns
	case coreConns > 0:
		c.ConnsPerHost = coreConns
	}
	hosts := r.String(PropHosts, "")
	repl := r.String(PropReplication, DefaultReplication)
	if err := r.Err(); err != nil {
		return c, err
	}
	var err error
	if c.Hosts, err = parseHosts(hosts); err != nil {
		return c, err
	}
	if c.Replication, err = replication(repl); err != nil {
		return c, err
	}
	switch {
	case maxConns > 0 && coreConns > maxConns:
		return c, &adapters.ConfigError{Key: PropCoreConns, Value: strconv.Itoa(coreConns),
			Allowed: fmt.Sprintf("at most %s (%d)", PropMaxConns, maxConns)}
	case c.Username == "" && c.Password != "":
		return c, &adapters.ConfigError{Key: PropUsername, Value: "",
			Allowed: "a user name: " + PropPassword + " is set, and YCSB's binding logs in only with both"}
	case !identifier.MatchString(c.Keyspace):
		return c, &adapters.ConfigError{Key: PropKeyspace, Value: c.Keyspace, Allowed: "a plain CQL name in lower case (a-z, 0-9 and _, first a letter, at most 48)"}
	case !identifier.MatchString(c.Table):
		return c, &adapters.ConfigError{Key: "table", Value: c.Table, Allowed: "a plain CQL name in lower case (a-z, 0-9 and _, first a letter, at most 48)"}
	case !identifier.MatchString(c.FieldPrefix + "0"):
		return c, &adapters.ConfigError{Key: "fieldnameprefix", Value: c.FieldPrefix, Allowed: "a prefix that makes plain CQL column names in lower case (a-z, 0-9 and _)"}
	}
	return c, nil
}

// consistency reads a consistency level by its name (any case).
func consistency(r *adapters.Reader, key string) gocql.Consistency {
	name := strings.ToUpper(strings.TrimSpace(r.String(key, DefaultConsistency)))
	for _, n := range consistencies {
		if n == name {
			cl, err := gocql.ParseConsistencyWrapper(n)
			if err == nil {
				return cl
			}
		}
	}
	r.Bad(key, strings.Join(consistencies, ", "))
	return gocql.Quorum
}

// parseHosts reads YCSB's hosts: addresses separated by commas, each an
// IP address or a host name, with no port (the port property is for all).
func parseHosts(s string) ([]string, error) {
	bad := func(allowed string) error {
		return &adapters.ConfigError{Key: PropHosts, Value: s, Allowed: allowed}
	}
	if strings.TrimSpace(s) == "" {
		return nil, bad("one or more contact points separated by commas, such as 127.0.0.1 (required, as in YCSB)")
	}
	var hosts []string
	for _, h := range strings.Split(s, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			return nil, bad("addresses separated by single commas, none empty")
		}
		if ip := net.ParseIP(strings.Trim(h, "[]")); ip == nil && !hostName.MatchString(h) {
			return nil, bad("IP addresses or host names without a port (the port property gives it), separated by commas")
		}
		hosts = append(hosts, strings.Trim(h, "[]"))
	}
	return hosts, nil
}

var hostName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$`)

// replication turns cassandra.replication into the CQL map of CREATE
// KEYSPACE: a whole number is SimpleStrategy's replication factor; a map
// ({'class': ..., ...}) is taken as written.
func replication(s string) (string, error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= 100 {
		return fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", n), nil
	}
	if replicationMap.MatchString(s) && strings.Contains(s, "'class'") {
		return s, nil
	}
	return "", &adapters.ConfigError{Key: PropReplication, Value: s,
		Allowed: "a replication factor from 1 to 100 (SimpleStrategy), or a CQL replication map such as {'class': 'NetworkTopologyStrategy', 'dc1': 3}"}
}

// replicationMap is a CQL map of quoted names to quoted names or numbers.
var replicationMap = regexp.MustCompile(`^\{\s*'[A-Za-z0-9_.]+'\s*:\s*('[A-Za-z0-9_.]+'|[0-9]+)(\s*,\s*'[A-Za-z0-9_.]+'\s*:\s*('[A-Za-z0-9_.]+'|[0-9]+))*\s*\}$`)

// Where is the cluster for messages: the contact points, port and
// keyspace, and the user (never the password).
func (c Config) Where() string {
	s := fmt.Sprintf("keyspace %s at %s:%d", c.Keyspace, strings.Join(c.Hosts, ","), c.Port)
	if c.Username != "" {
		s += " as " + c.Username
	}
	return s
}

// Notes are the lines about YCSB names this adapter accepts but does not
// honour as YCSB's binding does.
func Notes(props adapters.Properties) []string {
	var out []string
	c, err := ReadConfig(props)
	if err != nil {
		return nil // the error is told when the adapter opens
	}
	_, hasMax := props[PropMaxConns]
	if v, ok := props[PropCoreConns]; ok {
		if hasMax {
			out = append(out, fmt.Sprintf("warning: %s=%s has no effect beside %s=%d: gocql keeps a fixed pool of %d connections per host (the Java driver grows from core to max)",
				PropCoreConns, v, PropMaxConns, c.ConnsPerHost, c.ConnsPerHost))
		} else {
			out = append(out, fmt.Sprintf("note: %s=%s: gocql keeps a fixed pool, so %d connections per host are opened at once (the Java driver would open them as needed, up to its max)",
				PropCoreConns, v, c.ConnsPerHost))
		}
	}
	if c.Tracing {
		out = append(out, fmt.Sprintf("note: %s=true: the server traces every statement into system_traces, as under YCSB; benchtop does not read the traces back", PropTracing))
	}
	return out
}
