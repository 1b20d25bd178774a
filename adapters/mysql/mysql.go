// Package mysql is benchtop's MySQL and MariaDB adapter, following YCSB's
// JDBC binding (site.ycsb.db.JdbcDBClient) with Connector/J: the binding's
// property names (db.url, db.user, db.passwd, db.batchsize,
// jdbc.autocommit, jdbc.batchupdateapi; db.driver and jdbc.fetchsize
// accepted and told to have no effect), its table (usertable: YCSB_KEY and
// FIELD0..FIELDn-1) and its statements word for word (adapters/sqlbase).
//
// It talks to the server with github.com/go-sql-driver/mysql at the level
// of database/sql/driver. As Connector/J by default, each statement goes
// as text with its values inlined (the driver's interpolateParams: no
// Prepare, the server parses every one); with useServerPrepStmts=true in
// db.url each is prepared once per connection (the binary protocol:
// values go as bytes, and MariaDB's cached result metadata is used) and
// executed with driver values. Rows are read into benchtop's fields. An UPDATE counts the rows it found, as Connector/J
// does (CLIENT_FOUND_ROWS). A context's end cuts the operation under way
// through its socket's deadline (jdbc.Watcher) rather than the driver's
// watcher goroutine. The connections are a pool that grows with the
// workers (jdbc.Pool); threadcount of them are opened at start.
//
// The table: an existing one is used as it is (its columns must be
// YCSB_KEY and fieldcount fields, else the run is refused with exit status
// 2); an absent one is created at load (adapters.Preparer) with a binary
// collation key (byte order) and LONGBLOB fields, PARTITION BY KEY into
// `partitions` partitions when more than one; a run on an absent table is
// refused. docs/adapters/mysql.md is the user's page; MariaDB 10.11 is
// the server it is tested against.
package mysql

import (
	"context"
	"database/sql/driver"
	"fmt"

	gomysql "github.com/go-sql-driver/mysql"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// Name is the adapter's name on the command line.
const Name = "mysql"

// driverName is what db.driver's note names.
const driverName = "github.com/go-sql-driver/mysql, built in"

func init() {
	adapters.Register(adapters.Driver{
		Name:        Name,
		Description: "MySQL and MariaDB, as YCSB's JDBC binding drives them with Connector/J: usertable's YCSB_KEY and FIELD columns, statements as text or prepared (useServerPrepStmts)",
		Prefixes:    sqlbase.Prefixes,
		Keys:        sqlbase.Keys,
		Notes: func(p adapters.Properties) []string {
			return append(sqlbase.Notes(p, driverName), urlWarnings(p[sqlbase.PropURL])...)
		},
		Open: func(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(ctx, props)
		},
	})
	// The driver's own log lines would tear the live screen; its errors
	// reach benchtop as errors anyway.
	_ = gomysql.SetLogger(&gomysql.NopLogger{})
}

// DB is an open adapter: the pool of connections to one server.
type DB struct {
	cfg       sqlbase.Config
	mycfg     *gomysql.Config
	connector driver.Connector
	batch     sqlbase.Batch
	cols      *sqlbase.Columns
	ph        sqlbase.Placeholders
	pool      *sqlbase.Pool[*conn]
	// serverPrep: statements are prepared on the server
	// (useServerPrepStmts=true); otherwise each is sent as text with its
	// values inlined by the driver, as Connector/J does by default.
	serverPrep bool

	// The table, its description and partitions, Prepare and Close.
	sqlbase.Shared
}

var (
	_ adapters.DB            = (*DB)(nil)
	_ adapters.BatchInserter = (*DB)(nil)
	_ adapters.BatchQueuer   = (*DB)(nil)
	_ adapters.RowTimer      = (*DB)(nil)
	_ adapters.Describer     = (*DB)(nil)
	_ adapters.Preparer      = (*DB)(nil)
	_ adapters.Partitioned   = (*DB)(nil)
)

// dialect is what the table check knows of MySQL: names match without
// regard to case; keys and values round-trip through these types.
var dialect = sqlbase.Dialect{
	KeyTypes: []string{"varchar", "char", "varbinary", "binary"},
	FieldTypes: []string{"longblob", "mediumblob", "blob", "tinyblob", "longtext", "mediumtext", "text", "tinytext",
		"varbinary", "binary", "varchar", "char"},
}

// Open reads the properties, opens threadcount connections and looks at
// the table: an existing one must have YCSB's layout for fieldcount.
func Open(ctx context.Context, props adapters.Properties) (*DB, error) {
	cfg, err := sqlbase.ReadConfig(props)
	if err != nil {
		return nil, err
	}
	mycfg, flags, err := connConfig(cfg)
	if err != nil {
		return nil, err
	}
	batch, err := cfg.LoadBatch(flags.rewrite)
	if err != nil {
		return nil, err
	}
	_, partsSet := props["partitions"]
	db := &DB{cfg: cfg, mycfg: mycfg, batch: batch, cols: sqlbase.NewColumns(cfg.FieldPrefix, cfg.Fields), serverPrep: flags.serverPrep}
	mycfg.DialFunc = dialKeeping
	if db.connector, err = gomysql.NewConnector(mycfg); err != nil {
		return nil, &adapters.ConfigError{Key: sqlbase.PropURL, Value: cfg.Where(), Allowed: "settings the Go MySQL driver takes: " + sqlbase.Scrub(err, cfg.Password, mycfg.Passwd).Error()}
	}
	db.pool = sqlbase.NewPool(db.dial, func(c *conn) { c.close() })
	if err := db.pool.Warm(ctx, cfg.Threads); err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", db.where(), db.classify(ctx, err))
	}
	c, err := db.get(ctx)
	if err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", db.where(), db.classify(ctx, err))
	}
	version := ""
	rows, err := db.query(ctx, c, "SELECT VERSION()")
	if err == nil && len(rows) == 1 {
		version = rows[0][0]
	}
	t, err := db.inspect(ctx, c)
	db.pool.Put(c, c.bad)
	if err != nil {
		db.pool.Close()
		return nil, err
	}
	db.Shared = sqlbase.Shared{Cfg: cfg, Dialect: dialect, PartsSet: partsSet, Name: Name, Server: version,
		Where: db.where, Create: db.createTable, CloseConns: db.pool.Close}
	if err := db.SetTable(t); err != nil {
		db.pool.Close()
		return nil, err
	}
	return db, nil
}

// where is the server for messages (never the password): database ycsb
// at 127.0.0.1:3306 as benchtop.
func (db *DB) where() string {
	at := db.mycfg.Addr
	if db.mycfg.Net != "tcp" {
		at = db.mycfg.Net + " " + at
	}
	return fmt.Sprintf("database %s at %s as %s", db.mycfg.DBName, at, db.mycfg.User)
}

// createTable connects and creates the table (Shared.Prepare's Create).
func (db *DB) createTable(ctx context.Context) (sqlbase.Table, error) {
	c, err := db.get(ctx)
	if err != nil {
		return sqlbase.Table{}, fmt.Errorf("create table %s: connect to %s: %w", db.cfg.Table, db.where(), db.classify(ctx, err))
	}
	t, err := db.create(ctx, c)
	db.pool.Put(c, c.bad)
	return t, err
}

// BatchSize is db.batchsize when the load batches (jdbc.batchupdateapi, or
// jdbc.autocommit=false), else 1.
func (db *DB) BatchSize() int { return db.batch.Rows }

// QueuesBatches says the load's batches report as YCSB's binding's with
// jdbc.batchupdateapi=true: BATCHED_OK for each queued record, OK for the
// one that sends the batch (see sqlbase.Batch.API).
func (db *DB) QueuesBatches() bool { return db.batch.API }
