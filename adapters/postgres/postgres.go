// Package postgres is benchtop's PostgreSQL adapter, following YCSB's
// JDBC binding (site.ycsb.db.JdbcDBClient) with PostgreSQL's JDBC driver:
// the binding's property names (db.url, db.user, db.passwd, db.batchsize,
// jdbc.autocommit, jdbc.batchupdateapi; db.driver and jdbc.fetchsize
// accepted and told to have no effect), its table (usertable: YCSB_KEY and
// FIELD0..FIELDn-1) and its statements word for word, with '?' sent as
// $1, $2, ... as pgjdbc sends them (adapters/sqlbase).
//
// It connects with pgx's low-level connection
// (github.com/jackc/pgx/v5/pgconn: the URL forms, TLS, authentication)
// and then speaks the extended query protocol itself with pgx's codec
// (pgproto3, conn.go says why): each statement is prepared once per
// connection and executed with its parameters in binary (raw bytes: a
// value goes into a bytea or text column as it is), results in binary.
// The connections are a pool that grows with the workers (jdbc.Pool);
// threadcount of them are opened at start, which is when a wrong address
// or password shows.
//
// The table: an existing one is used as it is (its columns must be
// YCSB_KEY and fieldcount fields, else the run is refused with exit status
// 2); an absent one is created at load (adapters.Preparer) with a C
// collation key (byte order, as benchtop orders keys) and bytea fields,
// hash-partitioned (PARTITION BY HASH) into `partitions` partitions when
// more than one; a run on an absent table is refused. Its partitions do
// not change while a run goes on. docs/adapters/postgres.md is the user's
// page.
package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// Name is the adapter's name on the command line.
const Name = "postgres"

// driverName is what db.driver's note names.
const driverName = "pgx (github.com/jackc/pgx/v5), built in"

func init() {
	adapters.Register(adapters.Driver{
		Name:        Name,
		Description: "PostgreSQL, as YCSB's JDBC binding drives it: usertable's YCSB_KEY and FIELD columns, prepared statements",
		Prefixes:    sqlbase.Prefixes,
		Keys:        sqlbase.Keys,
		Notes: func(p adapters.Properties) []string {
			return append(sqlbase.Notes(p, driverName), urlWarnings(p[sqlbase.PropURL])...)
		},
		Open: func(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(ctx, props)
		},
	})
}

// DB is an open adapter: the pool of connections to one server.
type DB struct {
	cfg   sqlbase.Config
	pgcfg *pgconn.Config
	batch sqlbase.Batch
	cols  *sqlbase.Columns
	ph    sqlbase.Placeholders
	pool  *sqlbase.Pool[*conn]

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

// dialect is what the table check knows of PostgreSQL: unquoted names
// fold to lower case; keys and values round-trip through these types.
var dialect = sqlbase.Dialect{
	Folds:      true,
	KeyTypes:   []string{"varchar", "text", "bpchar"},
	FieldTypes: []string{"bytea", "text", "varchar", "bpchar"},
}

// Open reads the properties, opens threadcount connections and looks at
// the table: an existing one must have YCSB's layout for fieldcount.
func Open(ctx context.Context, props adapters.Properties) (*DB, error) {
	cfg, err := sqlbase.ReadConfig(props)
	if err != nil {
		return nil, err
	}
	pgcfg, rewrite, err := connConfig(cfg)
	if err != nil {
		return nil, err
	}
	batch, err := cfg.LoadBatch(rewrite)
	if err != nil {
		return nil, err
	}
	_, partsSet := props["partitions"]
	db := &DB{cfg: cfg, pgcfg: pgcfg, batch: batch, cols: sqlbase.NewColumns(cfg.FieldPrefix, cfg.Fields),
		ph: sqlbase.Placeholders{Numbered: true}}
	db.pool = sqlbase.NewPool(db.dial, func(c *conn) { c.close() })
	if err := db.pool.Warm(ctx, cfg.Threads); err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", db.where(), db.classify(err))
	}
	c, err := db.get(ctx)
	if err != nil {
		db.pool.Close()
		return nil, fmt.Errorf("connect to %s: %w", db.where(), db.classify(err))
	}
	version := "PostgreSQL " + c.version
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
// at 127.0.0.1:5432 as postgres.
func (db *DB) where() string {
	return fmt.Sprintf("database %s at %s:%d as %s", db.pgcfg.Database, db.pgcfg.Host, db.pgcfg.Port, db.pgcfg.User)
}

// createTable connects and creates the table (Shared.Prepare's Create).
func (db *DB) createTable(ctx context.Context) (sqlbase.Table, error) {
	c, err := db.get(ctx)
	if err != nil {
		return sqlbase.Table{}, fmt.Errorf("create table %s: connect to %s: %w", db.cfg.Table, db.where(), db.classify(err))
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
