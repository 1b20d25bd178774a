// Package hbase is benchtop's Apache HBase adapter. It talks to HBase's
// Thrift2 gateway (the THBaseService API of `hbase thrift2`, or of any
// HBase-compatible store that serves it) with the Apache Thrift Go
// library; the client code is generated from HBase 2.6.1's IDL (package
// thrift2).
//
// A record is a row: the key is the row key, each field a column
// (qualifier) of one column family, values raw bytes. Reads and scans ask
// for the chosen columns only; a scan of up to hbase.scan.pagesize rows is
// one round trip (getScannerResults). Updates and inserts are puts, as in
// YCSB's hbase binding: HBase does not refuse a put to an absent row, so
// by default an update of a missing row creates it. With
// hbase.strictupdate=true (the default when dataintegrity=true) an update
// is a checkAndMutate that applies only when the row holds the first
// updated column, and a missing row is reported as not found: lost
// inserts then show up as not_found errors rather than as silently
// recreated partial rows. A delete of an absent row is not an error in
// HBase and is none here.
//
// YCSB's property names: columnfamily (required), durability, clientbuffering,
// writebuffersize; table comes from the engine. The gateway's own:
// hbase.thrift.addr, .transport, .protocol, .poolsize, .connecttimeout,
// .timeout, .maxidle; hbase.batchsize, hbase.scan.pagesize,
// hbase.strictupdate, hbase.createtable and hbase.regions. docs/adapters/hbase.md
// lists them with their defaults.
package hbase

import (
	"context"
	"fmt"

	"benchtop/adapters"
	"benchtop/adapters/hbase/thrift2"
)

func init() {
	adapters.Register(adapters.Driver{
		Name:        "hbase",
		Description: "Apache HBase through its Thrift2 gateway: rows of one column family, chosen columns per operation",
		// YCSB's hbase binding names are claimed whole (a prefix that is
		// the full name), as mongodb claims mongodb.batchsize's YCSB twin.
		Prefixes: []string{"hbase.", PropColumnFamily, PropDurability, PropClientBuffering, PropWriteBufferSize},
		Open: func(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(ctx, props)
		},
		OpenTimeout: openTimeout,
	})
}

// DB is an open adapter: a pool of connections to one gateway.
type DB struct {
	cfg    Config
	family []byte
	pool   *pool
	buf    *writeBuffer // nil unless clientbuffering
	// wholeFamily is the column list of a read of all fields (YCSB's
	// addFamily), built once; the Thrift client only reads it.
	wholeFamily []*thrift2.TColumn
	names       adapters.NameCache // qualifiers of results, one string each
}

var (
	_ adapters.DB            = (*DB)(nil)
	_ adapters.BatchInserter = (*DB)(nil)
	_ adapters.Describer     = (*DB)(nil)
)

// Open checks the properties, connects and checks that the gateway
// answers (and that the table exists, creating it first with
// hbase.createtable=true).
func Open(ctx context.Context, props adapters.Properties) (*DB, error) {
	cfg, err := ParseConfig(props)
	if err != nil {
		return nil, fmt.Errorf("hbase: %w", err)
	}
	db := &DB{cfg: cfg, family: []byte(cfg.Family), pool: newPool(cfg)}
	db.wholeFamily = []*thrift2.TColumn{{Family: db.family}}
	if cfg.ClientBuffering {
		db.buf = &writeBuffer{limit: cfg.WriteBufferSize}
	}
	if cfg.CreateTable {
		if err := db.CreateTable(ctx, cfg.Table, cfg.Regions); err != nil {
			db.pool.close()
			return nil, fmt.Errorf("hbase: hbase.createtable: %w", err)
		}
	}
	var exists bool
	err = db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		var err error
		exists, err = c.TableExists(ctx, tableName(cfg.Table))
		return err
	})
	if err != nil {
		db.pool.close()
		return nil, fmt.Errorf("hbase: connect to the Thrift2 gateway at %s: %w", cfg.Addr, classify(err))
	}
	if !exists {
		db.pool.close()
		return nil, fmt.Errorf("hbase: table %q does not exist at %s (create it with column family %q, or give -p %s=true)", cfg.Table, cfg.Addr, cfg.Family, PropCreateTable)
	}
	return db, nil
}

// Describe returns the gateway's address and how the adapter talks to it.
func (db *DB) Describe() string {
	t, p := "buffered", "binary"
	if db.cfg.Framed {
		t = "framed"
	}
	if db.cfg.Compact {
		p = "compact"
	}
	return fmt.Sprintf("hbase thrift2://%s (%s/%s, family %s)", db.cfg.Addr, t, p, db.cfg.Family)
}

// Close flushes buffered puts (clientbuffering) and closes the
// connections. A failed flush is returned.
func (db *DB) Close() error {
	var err error
	if db.buf != nil {
		ctx, cancel := context.WithTimeout(context.Background(), db.cfg.Timeout)
		err = db.flush(ctx, db.buf.takeAll())
		cancel()
	}
	db.pool.close()
	return err
}

// tableName splits "ns:table" as HBase names tables.
func tableName(table string) *thrift2.TTableName {
	for i := 0; i < len(table); i++ {
		if table[i] == ':' {
			return &thrift2.TTableName{Ns: []byte(table[:i]), Qualifier: []byte(table[i+1:])}
		}
	}
	return &thrift2.TTableName{Qualifier: []byte(table)}
}
