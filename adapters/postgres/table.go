package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"benchtop/adapters/sqlbase"
)

// columnsSQL lists a table's columns and their types; to_regclass finds
// the table on the search path as an unquoted name in a statement would.
// %s is the name as a literal (a checked identifier).
const columnsSQL = `SELECT a.attname, t.typname FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
WHERE a.attrelid = to_regclass(%s) AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`

// partitionsSQL is a partitioned table's method and its partitions.
const partitionsSQL = `SELECT p.partstrat::text, (SELECT count(*) FROM pg_inherits i WHERE i.inhparent = p.partrelid)
FROM pg_partitioned_table p WHERE p.partrelid = to_regclass(%s)`

// inspect says what the server has of the table.
func (db *DB) inspect(ctx context.Context, c *conn) (sqlbase.Table, error) {
	var t sqlbase.Table
	name := quote(db.cfg.Table)
	rows, err := c.query(ctx, fmt.Sprintf(columnsSQL, name))
	if err != nil {
		return t, fmt.Errorf("look at table %s in %s: %w", db.cfg.Table, db.where(), db.classify(err))
	}
	for _, r := range rows {
		t.Columns = append(t.Columns, sqlbase.Column{Name: r[0], Type: r[1]})
	}
	t.Exists = len(t.Columns) > 0
	if !t.Exists {
		return t, nil
	}
	rows, err = c.query(ctx, fmt.Sprintf(partitionsSQL, name))
	if err != nil {
		return t, fmt.Errorf("look at table %s's partitions in %s: %w", db.cfg.Table, db.where(), db.classify(err))
	}
	for _, r := range rows {
		t.Method = map[string]string{"h": "hash", "l": "list", "r": "range"}[r[0]]
		t.Partitions, _ = strconv.Atoi(r[1])
	}
	return t, nil
}

// CreateSQL is the DDL benchtop runs for a table absent at load. By
// default YCSB's documented DDL (its jdbc README): a VARCHAR(255) key and
// TEXT fields in the database's default collation; with
// db.tablelayout=binary a key of the C collation (byte order, as benchtop
// orders keys, whatever the database's locale) and bytea fields (values
// as bytes). Hash-partitioned when partitions > 1; in one implicit
// transaction under an advisory lock, so that the agents of a fleet can
// all ask for it at once.
func CreateSQL(c sqlbase.Config) string {
	cols := sqlbase.NewColumns(c.FieldPrefix, c.Fields)
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT pg_advisory_xact_lock(hashtext('benchtop:' || %s));\n", quote(c.Table))
	key, field := "VARCHAR(255)", "TEXT"
	if c.Layout == sqlbase.LayoutBinary {
		key, field = `VARCHAR(255) COLLATE "C"`, "BYTEA"
	}
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (YCSB_KEY %s PRIMARY KEY", c.Table, key)
	for _, n := range cols.Names {
		fmt.Fprintf(&b, ", %s %s", strings.ToUpper(n), field)
	}
	b.WriteString(")")
	if c.Partitions > 1 {
		b.WriteString(" PARTITION BY HASH (YCSB_KEY)")
	}
	b.WriteString(";\n")
	for i := 0; c.Partitions > 1 && i < c.Partitions; i++ {
		fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s_p%d PARTITION OF %s FOR VALUES WITH (MODULUS %d, REMAINDER %d);\n",
			c.Table, i, c.Table, c.Partitions, i)
	}
	return b.String()
}

// quote is a SQL string literal (the table name is a checked identifier).
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// create makes the table (unless another client did) and looks at it.
func (db *DB) create(ctx context.Context, c *conn) (sqlbase.Table, error) {
	if _, err := c.query(ctx, CreateSQL(db.cfg)); err != nil {
		return sqlbase.Table{}, fmt.Errorf("create table %s in %s: %w", db.cfg.Table, db.where(), db.classify(err))
	}
	t, err := db.inspect(ctx, c)
	if err == nil && !t.Exists {
		err = fmt.Errorf("create table %s in %s: created, but not found on the search path afterwards", db.cfg.Table, db.where())
	}
	return t, err
}
