package mysql

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"benchtop/adapters/sqlbase"
)

// schemaAndName splits schema.table; a bare name is in the connection's
// database.
func schemaAndName(table string) (schema, name string) {
	if s, n, ok := strings.Cut(table, "."); ok {
		return "'" + s + "'", n
	}
	return "DATABASE()", table
}

// inspect says what the server has of the table (names are checked
// identifiers, so they go into the statements as literals).
func (db *DB) inspect(ctx context.Context, c *conn) (sqlbase.Table, error) {
	var t sqlbase.Table
	schema, name := schemaAndName(db.cfg.Table)
	rows, err := db.query(ctx, c, fmt.Sprintf(
		"SELECT COLUMN_NAME, LOWER(DATA_TYPE) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = '%s' ORDER BY ORDINAL_POSITION",
		schema, name))
	if err != nil {
		return t, fmt.Errorf("look at table %s in %s: %w", db.cfg.Table, db.where(), db.classify(ctx, err))
	}
	for _, r := range rows {
		t.Columns = append(t.Columns, sqlbase.Column{Name: r[0], Type: r[1]})
	}
	t.Exists = len(t.Columns) > 0
	if !t.Exists {
		return t, nil
	}
	rows, err = db.query(ctx, c, fmt.Sprintf(
		"SELECT LOWER(PARTITION_METHOD), COUNT(*) FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = %s AND TABLE_NAME = '%s' AND PARTITION_NAME IS NOT NULL GROUP BY PARTITION_METHOD",
		schema, name))
	if err != nil {
		return t, fmt.Errorf("look at table %s's partitions in %s: %w", db.cfg.Table, db.where(), db.classify(ctx, err))
	}
	for _, r := range rows {
		t.Method = r[0]
		t.Partitions, _ = strconv.Atoi(r[1])
	}
	return t, nil
}

// CreateSQL is the DDL benchtop runs for a table absent at load. By
// default YCSB's documented DDL (its jdbc README): a VARCHAR(255) key and
// TEXT fields in the database's default character set and collation;
// with db.tablelayout=binary a key of a binary collation (byte order, as
// benchtop orders keys) and LONGBLOB fields (values as bytes). PARTITION
// BY KEY when partitions > 1. IF NOT EXISTS lets the agents of a fleet
// all ask for it at once.
func CreateSQL(c sqlbase.Config) string {
	cols := sqlbase.NewColumns(c.FieldPrefix, c.Fields)
	key, field := "VARCHAR(255)", "TEXT"
	if c.Layout == sqlbase.LayoutBinary {
		key, field = "VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin", "LONGBLOB"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s (YCSB_KEY %s PRIMARY KEY", c.Table, key)
	for _, n := range cols.Names {
		fmt.Fprintf(&b, ", %s %s", strings.ToUpper(n), field)
	}
	b.WriteString(")")
	if c.Partitions > 1 {
		fmt.Fprintf(&b, " PARTITION BY KEY (YCSB_KEY) PARTITIONS %d", c.Partitions)
	}
	return b.String()
}

// create makes the table (unless another client did) and looks at it.
func (db *DB) create(ctx context.Context, c *conn) (sqlbase.Table, error) {
	if err := db.execText(ctx, c, CreateSQL(db.cfg)); err != nil {
		return sqlbase.Table{}, fmt.Errorf("create table %s in %s: %w", db.cfg.Table, db.where(), db.classify(ctx, err))
	}
	t, err := db.inspect(ctx, c)
	if err == nil && !t.Exists {
		err = fmt.Errorf("create table %s in %s: created, but not found afterwards", db.cfg.Table, db.where())
	}
	return t, err
}
