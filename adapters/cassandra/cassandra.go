// Package cassandra is benchtop's CQL adapter for Apache Cassandra (and,
// by the protocol only, ScyllaDB), following YCSB's cassandra-cql binding
// (site.ycsb.db.CassandraCQLClient): its property names (hosts, port,
// cassandra.keyspace, cassandra.username/password, the read and write
// consistency levels, the connection pool, the timeouts, tracing, TLS),
// its table (usertable: a y_id key and field0..fieldN-1 columns) and its
// statements word for word (statements.go), prepared once and run with
// token-aware routing. It drives the server with the Apache Cassandra Go
// driver, github.com/apache/cassandra-gocql-driver/v2 (gocql's home since
// it became an Apache project).
//
// The table: an existing one is used as it is (its key must be y_id and
// its columns the fieldcount fields, text or blob, else the run is refused
// with exit status 2); an absent one is created at load (adapters.Preparer)
// with blob fields, in a keyspace created too when it is absent
// (SimpleStrategy, replication factor cassandra.replication, 1 by
// default). A scan runs in token order, as YCSB's: from the start key's
// token, count records in the order of their keys' Murmur3 tokens (the
// adapter's Capabilities say UnorderedScan). docs/adapters/cassandra.md is
// the user's page.
package cassandra

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"benchtop/adapters"
)

// Name is the adapter's name on the command line.
const Name = "cassandra"

func init() {
	adapters.Register(adapters.Driver{
		Name:        Name,
		Description: "Apache Cassandra and ScyllaDB (CQL), as YCSB's cassandra-cql binding drives them: usertable's y_id and field columns, prepared statements, token-aware",
		Prefixes:    Prefixes,
		Keys:        Keys,
		Notes:       Notes,
		Open: func(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(ctx, props)
		},
	})
}

// DB is an open adapter: a gocql session on the keyspace, and, until the
// table is known to be there, one without a keyspace for its schema.
type DB struct {
	cfg   Config
	cols  columns
	stmts statements

	mu      sync.Mutex // admin, ops, table, version
	admin   *gocql.Session
	ops     *gocql.Session
	table   tableInfo
	version string
}

var (
	_ adapters.DB        = (*DB)(nil)
	_ adapters.Describer = (*DB)(nil)
	_ adapters.Preparer  = (*DB)(nil)
	_ adapters.Capable   = (*DB)(nil)
)

// Open reads the properties, connects to the cluster and looks at the
// keyspace and table: an existing table must have YCSB's layout for
// fieldcount.
func Open(ctx context.Context, props adapters.Properties) (*DB, error) {
	cfg, err := ReadConfig(props)
	if err != nil {
		return nil, err
	}
	db := &DB{cfg: cfg, cols: newColumns(cfg.FieldPrefix, cfg.Fields)}
	db.stmts.init(cfg.Table)
	db.admin, err = db.session(ctx, "")
	if err != nil {
		return nil, err
	}
	db.version = db.serverVersion(ctx)
	t, err := db.inspect(ctx)
	if err != nil {
		db.Close()
		return nil, err
	}
	if t.exists {
		if err := db.check(&t); err != nil {
			db.Close()
			return nil, err
		}
	}
	db.table = t
	if t.keyspace {
		if db.ops, err = db.session(ctx, cfg.Keyspace); err != nil {
			db.Close()
			return nil, err
		}
	}
	if t.exists {
		db.admin.Close()
		db.admin = nil
	}
	return db, nil
}

// session connects to the cluster, on keyspace when it is not "".
func (db *DB) session(ctx context.Context, keyspace string) (*gocql.Session, error) {
	cluster, err := db.cluster(keyspace)
	if err != nil {
		return nil, err
	}
	type result struct {
		s   *gocql.Session
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := cluster.CreateSession()
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			return nil, fmt.Errorf("connect to %s: %w", db.cfg.Where(), db.classify(r.err))
		}
		return r.s, nil
	case <-ctx.Done():
		go func() {
			if r := <-done; r.s != nil {
				r.s.Close()
			}
		}()
		return nil, fmt.Errorf("connect to %s: %w", db.cfg.Where(), db.classify(ctx.Err()))
	}
}

// Prepare creates the keyspace and the table for a load when the table is
// absent, and refuses a run phase on an absent table.
func (db *DB) Prepare(ctx context.Context, load bool) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.table.exists {
		return nil
	}
	if !load {
		return &adapters.ConfigError{Key: "table", Value: db.cfg.Table, Allowed: fmt.Sprintf(
			"an existing table (%s has none of this name): load it first, benchtop load %s with the same properties", db.cfg.Where(), Name)}
	}
	t, err := db.create(ctx)
	if err != nil {
		return err
	}
	// Another client (a fleet's agent) may have made it first.
	if err := db.check(&t); err != nil {
		return err
	}
	db.table = t
	if db.ops == nil {
		if db.ops, err = db.session(ctx, db.cfg.Keyspace); err != nil {
			return err
		}
	}
	db.admin.Close()
	db.admin = nil
	return nil
}

// Describe is the cluster, its version and the table.
func (db *DB) Describe() string {
	db.mu.Lock()
	defer db.mu.Unlock()
	s := fmt.Sprintf("%s %s", Name, db.cfg.Where())
	if db.version != "" {
		s += " (Cassandra " + db.version + ")"
	}
	fields := fmt.Sprintf("%s0..%s%d", db.cfg.FieldPrefix, db.cfg.FieldPrefix, db.cfg.Fields-1)
	if db.table.exists {
		return fmt.Sprintf("%s, table %s (%s, %s %s)", s, db.cfg.Table, KeyColumn, fields, db.table.fieldType)
	}
	return fmt.Sprintf("%s, table %s (to be created: %s, %s blob)", s, db.cfg.Table, KeyColumn, fields)
}

// Capabilities: a scan runs in token order, not in key order.
func (db *DB) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{UnorderedScan: true}
}

// Close closes the sessions.
func (db *DB) Close() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.admin != nil {
		db.admin.Close()
		db.admin = nil
	}
	if db.ops != nil {
		db.ops.Close()
		db.ops = nil
	}
	return nil
}

// errNotPrepared is an operation before the table is there: the engine
// calls Prepare first, which creates it for a load.
var errNotPrepared = errors.New("the table is not there yet: the adapter's Prepare creates it for a load")

// session returns the session operations run on, or an error.
func (db *DB) opSession() (*gocql.Session, error) {
	db.mu.Lock()
	s := db.ops
	db.mu.Unlock()
	if s == nil {
		return nil, errNotPrepared
	}
	return s, nil
}

// checkTable refuses a table other than the one the adapter was opened
// for (its statements name that one).
func (db *DB) checkTable(table string) error {
	if table != db.cfg.Table {
		return fmt.Errorf("table %q: this adapter was opened for table %q (the table property)", table, db.cfg.Table)
	}
	return nil
}

// serverVersion is the release the contact node reports, or "".
func (db *DB) serverVersion(ctx context.Context) string {
	var v string
	if err := db.admin.Query("SELECT release_version FROM system.local").ScanContext(ctx, &v); err != nil {
		return ""
	}
	return strings.TrimSpace(v)
}
