package cassandra

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"benchtop/adapters"
)

// tableInfo is what the cluster has of the keyspace and table.
type tableInfo struct {
	keyspace  bool   // the keyspace exists
	exists    bool   // the table exists
	columns   []col  // its columns
	fieldType string // its fields' type, for Describe
}

// col is one column of a table in system_schema.columns.
type col struct {
	name, kind, typ string
}

// inspect says what the cluster has of the keyspace and the table
// (system_schema, Cassandra 3.0 and later, and ScyllaDB).
func (db *DB) inspect(ctx context.Context) (tableInfo, error) {
	var t tableInfo
	s := db.admin
	var name string
	iter := s.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?", db.cfg.Keyspace).IterContext(ctx)
	for iter.Scan(&name) {
		t.keyspace = true
	}
	if err := iter.Close(); err != nil {
		return t, fmt.Errorf("look at keyspace %s: %w", db.cfg.Where(), db.classify(err))
	}
	if !t.keyspace {
		return t, nil
	}
	var c col
	iter = s.Query("SELECT column_name, kind, type FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
		db.cfg.Keyspace, db.cfg.Table).IterContext(ctx)
	for iter.Scan(&c.name, &c.kind, &c.typ) {
		t.columns = append(t.columns, c)
	}
	if err := iter.Close(); err != nil {
		return t, fmt.Errorf("look at table %s in %s: %w", db.cfg.Table, db.cfg.Where(), db.classify(err))
	}
	t.exists = len(t.columns) > 0
	return t, nil
}

// fieldTypes are the column types a field may have: YCSB's README makes
// them varchar (text), benchtop blob; both carry the value's bytes as
// they are (text must be UTF-8: benchtop's values are printable ASCII).
var fieldTypes = []string{"blob", "text", "varchar", "ascii"}

// check refuses a table that is not YCSB's layout for fieldcount: y_id,
// a text partition key, alone in the primary key, and exactly the fields
// field0..fieldN-1 (text or blob). It sets t's fieldType.
func (db *DB) check(t *tableInfo) error {
	bad := func(why string) error {
		return &adapters.ConfigError{Key: "fieldcount", Value: fmt.Sprint(db.cfg.Fields), Allowed: fmt.Sprintf(
			"the layout of the existing table %s.%s: %s (YCSB's: %s text PRIMARY KEY, %s0..%s%d; drop the table, or set fieldcount and fieldnameprefix to match)",
			db.cfg.Keyspace, db.cfg.Table, why, KeyColumn, db.cfg.FieldPrefix, db.cfg.FieldPrefix, db.cfg.Fields-1)}
	}
	var fields, all []string
	types := map[string]bool{}
	for _, c := range t.columns {
		all = append(all, c.name)
	}
	if !slices.Contains(all, KeyColumn) {
		return bad(fmt.Sprintf("it has no %s key column (its columns: %s)", KeyColumn, list(all)))
	}
	for _, c := range t.columns {
		switch {
		case c.name == KeyColumn:
			if c.kind != "partition_key" || !slices.Contains([]string{"text", "varchar", "ascii"}, c.typ) {
				return bad(fmt.Sprintf("its %s is a %s column of type %s, not a text partition key", KeyColumn, strings.ReplaceAll(c.kind, "_", " "), c.typ))
			}
		case c.kind == "partition_key" || c.kind == "clustering":
			return bad(fmt.Sprintf("its primary key has %s (a %s column) beside %s", c.name, strings.ReplaceAll(c.kind, "_", " "), KeyColumn))
		default:
			if !slices.Contains(fieldTypes, c.typ) {
				return bad(fmt.Sprintf("column %s is of type %s, not blob or text", c.name, c.typ))
			}
			fields = append(fields, c.name)
			types[c.typ] = true
		}
	}
	var missing, extra []string
	for _, n := range db.cols.names {
		if !slices.Contains(fields, n) {
			missing = append(missing, n)
		}
	}
	for _, f := range fields {
		if _, ok := db.cols.index[f]; !ok {
			extra = append(extra, f)
		}
	}
	switch {
	case len(missing) > 0 && len(extra) > 0:
		return bad(fmt.Sprintf("it has %d fields, %s not among them, and %s beside them", len(fields), list(missing), list(extra)))
	case len(missing) > 0:
		return bad(fmt.Sprintf("it has %d fields: %s missing", len(fields), list(missing)))
	case len(extra) > 0:
		return bad(fmt.Sprintf("it has %d fields: %s more", len(fields), list(extra)))
	}
	var ts []string
	for t := range types {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	t.fieldType = strings.Join(ts, "/")
	return nil
}

// list names a few columns.
func list(names []string) string {
	slices.Sort(names)
	if len(names) > 4 {
		return fmt.Sprintf("%s ... (%d columns)", strings.Join(names[:3], ", "), len(names))
	}
	return strings.Join(names, ", ")
}

// CreateCQL is the DDL benchtop runs for a table absent at load: the
// keyspace with cassandra.replication unless it exists, and YCSB's table
// with blob fields (values are bytes).
func CreateCQL(c Config) []string {
	cols := newColumns(c.FieldPrefix, c.Fields)
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s.%s (%s varchar PRIMARY KEY", c.Keyspace, c.Table, KeyColumn)
	for _, n := range cols.names {
		fmt.Fprintf(&b, ", %s blob", n)
	}
	b.WriteString(")")
	return []string{
		fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s", c.Keyspace, c.Replication),
		b.String(),
	}
}

// create makes the keyspace and table (unless another client did), waits
// for the cluster's schema agreement, and looks at the table.
func (db *DB) create(ctx context.Context) (tableInfo, error) {
	for _, stmt := range CreateCQL(db.cfg) {
		if err := db.admin.Query(stmt).ExecContext(ctx); err != nil {
			return tableInfo{}, fmt.Errorf("create table %s in %s: %w", db.cfg.Table, db.cfg.Where(), db.classify(err))
		}
	}
	if err := db.admin.AwaitSchemaAgreement(ctx); err != nil {
		return tableInfo{}, fmt.Errorf("create table %s in %s: the nodes do not agree on the schema: %w", db.cfg.Table, db.cfg.Where(), db.classify(err))
	}
	t, err := db.inspect(ctx)
	if err == nil && !t.exists {
		err = fmt.Errorf("create table %s in %s: created, but not found in system_schema afterwards", db.cfg.Table, db.cfg.Where())
	}
	return t, err
}
