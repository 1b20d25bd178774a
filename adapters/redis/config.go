package redis

import (
	"net"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
)

// Property names. The first ones are benchtop's; the YCSB ones are those
// of YCSB's redis binding (site.ycsb.db.RedisClient), accepted so that its
// property files run against the server they name.
const (
	PropAddr      = "redis.addr"
	PropPassword  = "redis.password" // also YCSB's
	PropDB        = "redis.db"
	PropPoolSize  = "redis.poolsize"
	PropTimeout   = "redis.timeout" // also YCSB's: a bare number is in ms
	PropIndex     = "redis.index"
	PropStrict    = "redis.strict"
	PropBatchSize = "redis.batchsize"
	PropClient    = "redis.client"

	PropHost      = "redis.host"      // YCSB: with redis.port, instead of redis.addr
	PropPort      = "redis.port"      // YCSB
	PropCluster   = "redis.cluster"   // YCSB: only false is accepted
	PropUsername  = "redis.cusername" // YCSB: ACL user, with redis.cpassword
	PropCPassword = "redis.cpassword" // YCSB
)

// Keys are the redis.* properties the adapter reads (the Driver's Keys).
var Keys = []string{
	PropAddr, PropPassword, PropDB, PropPoolSize, PropTimeout, PropIndex, PropStrict, PropBatchSize, PropClient,
	PropHost, PropPort, PropCluster, PropUsername, PropCPassword,
}

// redis.client values.
const (
	ClientBenchtop = "benchtop" // the lean RESP2 client of pool.go for reads and updates
	ClientGoRedis  = "go-redis" // go-redis for every operation
)

// Defaults.
const (
	DefaultHost = "127.0.0.1"
	DefaultPort = 6379
)

// Config is the adapter's configuration, from properties.
type Config struct {
	Addr      string
	Username  string // ACL user, "" = the default user
	Password  string
	DB        int
	PoolSize  int
	Timeout   time.Duration
	Index     bool
	Strict    bool
	BatchSize int
	Client    string // ClientBenchtop or ClientGoRedis
}

// ParseConfig reads the redis.* properties; bad values are
// *adapters.ConfigError, which never repeat a password.
func ParseConfig(p adapters.Properties) (Config, error) {
	r := adapters.NewReader(p)
	c := readConfig(r)
	return c, r.Err()
}

func readConfig(r *adapters.Reader) Config {
	c := Config{
		Addr:      readAddr(r),
		DB:        r.Int(PropDB, 0, 0, 1<<16),
		PoolSize:  r.Int(PropPoolSize, 2048, 1, 1<<16),
		Timeout:   r.Duration(PropTimeout, 5*time.Second, time.Millisecond, time.Millisecond, 24*time.Hour),
		Index:     r.Bool(PropIndex, true),
		Strict:    r.Bool(PropStrict, false),
		BatchSize: r.Int(PropBatchSize, 100, 1, 100000),
		Client:    r.Choice(PropClient, ClientBenchtop, ClientBenchtop, ClientGoRedis),
	}
	c.Username, c.Password = readAuth(r)
	if r.Bool(PropCluster, false) {
		r.Bad(PropCluster, "false (benchtop's redis adapter talks to one server, not to a Redis Cluster: set redis.addr to one node)")
	}
	return c
}

// readAddr reads redis.addr, or YCSB's redis.host and redis.port.
func readAddr(r *adapters.Reader) string {
	addr := strings.TrimSpace(r.String(PropAddr, DefaultHost+":"+strconv.Itoa(DefaultPort)))
	hasAddr := r.Has(PropAddr)
	if _, _, err := net.SplitHostPort(addr); err != nil || addr == "" {
		r.Bad(PropAddr, "host:port, e.g. 127.0.0.1:6379")
	}
	host := strings.TrimSpace(r.String(PropHost, DefaultHost))
	port := r.Int(PropPort, DefaultPort, 1, 65535)
	hasHost, hasPort := r.Has(PropHost), r.Has(PropPort)
	if !hasHost && !hasPort {
		return addr
	}
	if hasAddr {
		key := PropHost
		if !hasHost {
			key = PropPort
		}
		r.Bad(key, "no redis.host or redis.port beside redis.addr (give redis.addr=host:port, or YCSB's redis.host and redis.port)")
		return addr
	}
	if host == "" || strings.ContainsAny(host, " /@") || (strings.Contains(host, ":") && net.ParseIP(host) == nil) {
		r.Bad(PropHost, "a host name or IP address without a port (the port is redis.port, default 6379)")
		return addr
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// readAuth reads redis.password, or YCSB's ACL pair redis.cusername and
// redis.cpassword.
func readAuth(r *adapters.Reader) (user, password string) {
	password = r.String(PropPassword, "")
	user = r.String(PropUsername, "")
	cpass := r.String(PropCPassword, "")
	hasUser, hasCPass := r.Has(PropUsername), r.Has(PropCPassword)
	switch {
	case hasUser != hasCPass:
		key, value := PropUsername, ""
		if hasUser {
			key, value = PropCPassword, ""
		}
		r.Fail(&adapters.ConfigError{Key: key, Value: value, Allowed: "redis.cusername and redis.cpassword together (YCSB's ACL user and its password)"})
	case hasUser && r.Has(PropPassword):
		r.Fail(&adapters.ConfigError{Key: PropPassword, Value: "(set)", Allowed: "either redis.password or redis.cusername with redis.cpassword, not both"})
	case hasUser:
		return user, cpass
	}
	return "", password
}
