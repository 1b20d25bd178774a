package hbase

import (
	"fmt"
	"net"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/hbase/thrift2"
)

// Property names. The first five are YCSB's hbase binding's; the rest are
// the gateway's own.
const (
	PropColumnFamily    = "columnfamily"
	PropDurability      = "durability"
	PropClientBuffering = "clientbuffering"
	PropWriteBufferSize = "writebuffersize"
	PropDataIntegrity   = "dataintegrity" // the engine's; read for the strict-update default

	PropAddr           = "hbase.thrift.addr"
	PropTransport      = "hbase.thrift.transport"
	PropProtocol       = "hbase.thrift.protocol"
	PropPoolSize       = "hbase.thrift.poolsize"
	PropConnectTimeout = "hbase.thrift.connecttimeout"
	PropTimeout        = "hbase.thrift.timeout"
	PropMaxIdle        = "hbase.thrift.maxidle"
	PropBatchSize      = "hbase.batchsize"
	PropScanPage       = "hbase.scan.pagesize"
	PropStrictUpdate   = "hbase.strictupdate"
	PropCreateTable    = "hbase.createtable"
	PropRegions        = "hbase.regions"
	PropTable          = "table" // the engine's; used by hbase.createtable
)

// Config is the adapter's configuration, from properties.
type Config struct {
	Family          string
	Durability      *thrift2.TDurability // nil: the column family's default
	ClientBuffering bool
	WriteBufferSize int64

	Addr           string
	Framed         bool // transport: framed, else buffered
	Compact        bool // protocol: compact, else binary
	PoolSize       int  // connections at most; 0 = one per concurrent caller
	ConnectTimeout time.Duration
	Timeout        time.Duration // per call, unless the context ends sooner
	MaxIdle        time.Duration // idle connections older than this are not reused
	BatchSize      int
	ScanPage       int
	StrictUpdate   bool
	CreateTable    bool
	Regions        int
	Table          string
}

// durabilities are YCSB's names (Java's Durability enum).
var durabilities = map[string]thrift2.TDurability{
	"USE_DEFAULT": thrift2.TDurability_USE_DEFAULT,
	"SKIP_WAL":    thrift2.TDurability_SKIP_WAL,
	"ASYNC_WAL":   thrift2.TDurability_ASYNC_WAL,
	"SYNC_WAL":    thrift2.TDurability_SYNC_WAL,
	"FSYNC_WAL":   thrift2.TDurability_FSYNC_WAL,
}

// ParseConfig reads the adapter's properties.
func ParseConfig(p adapters.Properties) (Config, error) {
	var c Config
	c.Family = strings.TrimSpace(p.String(PropColumnFamily, ""))
	if c.Family == "" {
		return c, &adapters.ConfigError{Key: PropColumnFamily, Value: p[PropColumnFamily], Allowed: "the table's column family, such as family (required, as in YCSB's hbase binding)"}
	}
	if v, ok := p[PropDurability]; ok {
		d, ok := durabilities[strings.ToUpper(strings.TrimSpace(v))]
		if !ok {
			return c, &adapters.ConfigError{Key: PropDurability, Value: v, Allowed: "USE_DEFAULT, SKIP_WAL, ASYNC_WAL, SYNC_WAL or FSYNC_WAL"}
		}
		c.Durability = &d
	}
	var err error
	if c.ClientBuffering, err = p.Bool(PropClientBuffering, false); err != nil {
		return c, err
	}
	// YCSB's default: 12 MiB, HBase's hbase.client.write.buffer of old.
	wbs, err := p.Int(PropWriteBufferSize, 12<<20)
	if err != nil || wbs < 1 || wbs > 1<<31 {
		return c, &adapters.ConfigError{Key: PropWriteBufferSize, Value: p[PropWriteBufferSize], Allowed: "bytes from 1 to 2147483648"}
	}
	c.WriteBufferSize = wbs

	c.Addr = strings.TrimSpace(p.String(PropAddr, "127.0.0.1:9090"))
	if h, _, err := net.SplitHostPort(c.Addr); err != nil || h == "" {
		return c, &adapters.ConfigError{Key: PropAddr, Value: p[PropAddr], Allowed: "host:port of the Thrift2 gateway, e.g. 127.0.0.1:9090"}
	}
	switch v := strings.ToLower(strings.TrimSpace(p.String(PropTransport, "buffered"))); v {
	case "buffered":
	case "framed":
		c.Framed = true
	default:
		return c, &adapters.ConfigError{Key: PropTransport, Value: p[PropTransport], Allowed: "buffered or framed (as the gateway runs: framed with -f)"}
	}
	switch v := strings.ToLower(strings.TrimSpace(p.String(PropProtocol, "binary"))); v {
	case "binary":
	case "compact":
		c.Compact = true
	default:
		return c, &adapters.ConfigError{Key: PropProtocol, Value: p[PropProtocol], Allowed: "binary or compact (as the gateway runs: compact with -c)"}
	}
	pool, err := p.Int(PropPoolSize, 0)
	if err != nil || pool < 0 || pool > 1<<16 {
		return c, &adapters.ConfigError{Key: PropPoolSize, Value: p[PropPoolSize], Allowed: "0 (one connection per worker) or a whole number up to 65536"}
	}
	c.PoolSize = int(pool)
	for _, d := range []struct {
		key string
		dst *time.Duration
		def time.Duration
	}{
		{PropConnectTimeout, &c.ConnectTimeout, 5 * time.Second},
		{PropTimeout, &c.Timeout, 30 * time.Second},
		{PropMaxIdle, &c.MaxIdle, 50 * time.Second},
	} {
		v, err := p.Duration(d.key, d.def, time.Millisecond)
		if err != nil || v <= 0 {
			return c, &adapters.ConfigError{Key: d.key, Value: p[d.key], Allowed: "a duration > 0 such as 500ms or 5s (a bare number is milliseconds)"}
		}
		*d.dst = v
	}
	bs, err := p.Int(PropBatchSize, 100)
	if err != nil || bs < 1 || bs > 100000 {
		return c, &adapters.ConfigError{Key: PropBatchSize, Value: p[PropBatchSize], Allowed: "rows per putMultiple in the load phase, from 1 to 100000"}
	}
	c.BatchSize = int(bs)
	sp, err := p.Int(PropScanPage, 1000)
	if err != nil || sp < 1 || sp > 100000 {
		return c, &adapters.ConfigError{Key: PropScanPage, Value: p[PropScanPage], Allowed: "rows per scan round trip, from 1 to 100000"}
	}
	c.ScanPage = int(sp)
	integrity, err := p.Bool(PropDataIntegrity, false)
	if err != nil {
		return c, err
	}
	if c.StrictUpdate, err = p.Bool(PropStrictUpdate, integrity); err != nil {
		return c, err
	}
	if c.CreateTable, err = p.Bool(PropCreateTable, false); err != nil {
		return c, err
	}
	regions, err := p.Int(PropRegions, 8)
	if err != nil || regions < 1 || regions > 1000 {
		return c, &adapters.ConfigError{Key: PropRegions, Value: p[PropRegions], Allowed: "regions of a table made by hbase.createtable, from 1 to 1000"}
	}
	c.Regions = int(regions)
	c.Table = p.String(PropTable, "usertable")
	if c.ClientBuffering && c.StrictUpdate {
		return c, &adapters.ConfigError{Key: PropStrictUpdate, Value: "true", Allowed: fmt.Sprintf("false when %s=true (a buffered put cannot check that the row exists)", PropClientBuffering)}
	}
	return c, nil
}
