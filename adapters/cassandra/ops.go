package cassandra

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync"
	"unsafe"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"benchtop/adapters"
)

// arg is one bound value: its bytes as they go on the wire, whatever the
// column's type (text and blob alike; an int's 4 bytes for LIMIT). A
// pointer to it boxes into an interface without an allocation.
type arg struct{ b []byte }

// MarshalCQL hands gocql the bytes (never nil: nil is CQL's null).
func (a *arg) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	if a.b == nil {
		return []byte{}, nil
	}
	return a.b, nil
}

// cell is one column of a result row: its bytes as the frame holds them
// (valid until the next row), nil for null.
type cell struct {
	b    []byte
	null bool
}

// UnmarshalCQL keeps a reference to the column's bytes.
func (c *cell) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	c.b, c.null = data, data == nil
	return nil
}

// scratch is one operation's working space, pooled.
type scratch struct {
	key   []byte // statement cache key
	idx   []int  // column indexes of a write's values, in column order
	from  []int  // the value each of idx comes from
	args  []arg
	vals  []any
	cells []cell
	dests []any
	limit [4]byte
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

func putScratch(s *scratch) {
	clear(s.args) // drop references to the caller's buffers
	clear(s.cells)
	scratchPool.Put(s)
}

// bytesOf views a string's bytes for the duration of a call (gocql copies
// them into the request frame).
func bytesOf(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// bind sets the n bound values' storage and returns the values' slice.
func (sc *scratch) bind(n int) []any {
	if cap(sc.args) < n {
		sc.args = make([]arg, n)
		sc.vals = make([]any, n)
		for i := range sc.args {
			sc.vals[i] = &sc.args[i]
		}
	}
	sc.args = sc.args[:n]
	return sc.vals[:n]
}

// resultCells sets up n result columns to scan into.
func (sc *scratch) resultCells(n int) []any {
	if cap(sc.cells) < n {
		sc.cells = make([]cell, n)
		sc.dests = make([]any, n)
		for i := range sc.cells {
			sc.dests[i] = &sc.cells[i]
		}
	}
	sc.cells = sc.cells[:n]
	return sc.dests[:n]
}

// columnsOf fills sc.idx and sc.from with the columns of values, in
// column order.
func (db *DB) columnsOf(sc *scratch, values []adapters.Field) error {
	sc.idx, sc.from = sc.idx[:0], sc.from[:0]
	for j, f := range values {
		i, err := db.cols.of(f.Name)
		if err != nil {
			return err
		}
		// Insertion in column order: a workload's fields come in order.
		k := len(sc.idx)
		sc.idx, sc.from = append(sc.idx, i), append(sc.from, j)
		for ; k > 0 && sc.idx[k-1] > i; k-- {
			sc.idx[k], sc.from[k] = sc.idx[k-1], sc.from[k-1]
		}
		if k > 0 && sc.idx[k-1] == i {
			return fmt.Errorf("field %q given twice", f.Name)
		}
		sc.idx[k], sc.from[k] = i, j
	}
	return nil
}

// fieldColumns fills sc.idx with the columns of the fields asked for.
func (db *DB) fieldColumns(sc *scratch, fields []string) error {
	sc.idx = sc.idx[:0]
	for _, f := range fields {
		i, err := db.cols.of(f)
		if err != nil {
			return err
		}
		sc.idx = append(sc.idx, i)
	}
	return nil
}

// query is a statement with its values, consistency and tracing; its
// caller runs it with the operation's context (IterContext, ExecContext).
func (db *DB) query(s *gocql.Session, stmt string, cl gocql.Consistency, vals []any) *gocql.Query {
	q := s.Query(stmt, vals...).Consistency(cl)
	if db.cfg.Tracing {
		q = q.Trace(noTrace{})
	}
	return q
}

// Read is YCSB's read of all fields (SELECT *) or of the fields asked
// for. A key with no row is not found, and so is a row that holds none of
// the fields asked for (a null column is an absent field in CQL).
func (db *DB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	if err := db.checkTable(table); err != nil {
		return dst, err
	}
	s, err := db.opSession()
	if err != nil {
		return dst, db.opError("read", err)
	}
	sc := getScratch()
	defer putScratch(sc)
	if len(fields) == 0 {
		fields = nil // none named: all, as YCSB's null
	}
	stmt := db.stmts.readAll
	if fields != nil {
		if err := db.fieldColumns(sc, fields); err != nil {
			return dst, fmt.Errorf("read %s: %w", table, err)
		}
		sc.key = statementKey(sc.key, kindRead, sc.idx)
		stmt = db.stmts.get(sc.key, kindRead, sc.idx, &db.cols)
	}
	vals := sc.bind(1)
	sc.args[0].b = bytesOf(key)
	iter := db.query(s, stmt, db.cfg.ReadCL, vals).IterContext(ctx)
	n := len(dst)
	found := false
	rows := iter.Scanner()
	if rows.Next() {
		found = true
		dst, err = db.row(sc, iter.Columns(), rows, dst, nil)
	}
	if cerr := rows.Err(); cerr != nil {
		return dst[:n], db.opError("read", cerr)
	}
	if err != nil {
		return dst[:n], fmt.Errorf("read %s: %w", table, err)
	}
	if !found {
		return dst, notFound(table, key, "no row")
	}
	if fields != nil && len(dst) == n {
		return dst, notFound(table, key, "the row holds none of the fields asked for")
	}
	return dst, nil
}

// row scans the current row and appends its fields (not the key, not a
// null column) to dst, their bytes copied into one allocation; key, when
// not nil, is set to the key column's value.
func (db *DB) row(sc *scratch, cols []gocql.ColumnInfo, rows gocql.Scanner, dst []adapters.Field, key *string) ([]adapters.Field, error) {
	dests := sc.resultCells(len(cols))
	if err := rows.Scan(dests...); err != nil {
		return dst, err
	}
	size := 0
	for i := range sc.cells {
		size += len(sc.cells[i].b)
	}
	buf := make([]byte, 0, size)
	for i, c := range cols {
		cell := &sc.cells[i]
		if c.Name == KeyColumn {
			if key != nil {
				*key = string(cell.b)
			}
			continue
		}
		if cell.null {
			continue
		}
		name := c.Name
		if j, ok := db.cols.index[c.Name]; ok {
			name = db.cols.names[j] // one string for every row
		}
		start := len(buf)
		buf = append(buf, cell.b...)
		dst = append(dst, adapters.Field{Name: name, Value: buf[start:len(buf):len(buf)]})
	}
	return dst, nil
}

// Scan is YCSB's scan: count records from the start key's token, in token
// order (SELECT ... WHERE token(y_id) >= token(?) LIMIT ?).
func (db *DB) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	if err := db.checkTable(table); err != nil {
		return dst, err
	}
	if count <= 0 {
		return dst, nil
	}
	s, err := db.opSession()
	if err != nil {
		return dst, db.opError("scan", err)
	}
	sc := getScratch()
	defer putScratch(sc)
	if len(fields) == 0 {
		fields = nil
	}
	stmt := db.stmts.scanAll
	if fields != nil {
		if err := db.fieldColumns(sc, fields); err != nil {
			return dst, fmt.Errorf("scan %s: %w", table, err)
		}
		sc.key = statementKey(sc.key, kindScan, sc.idx)
		stmt = db.stmts.get(sc.key, kindScan, sc.idx, &db.cols)
	}
	vals := sc.bind(2)
	sc.args[0].b = bytesOf(startKey)
	binary.BigEndian.PutUint32(sc.limit[:], uint32(min(count, 1<<31-1)))
	sc.args[1].b = sc.limit[:]
	iter := db.query(s, stmt, db.cfg.ReadCL, vals).PageSize(min(count, 5000)).IterContext(ctx)
	rows := iter.Scanner()
	n := len(dst)
	var rerr error
	for rerr == nil && rows.Next() {
		var rec adapters.Record
		rec.Fields, rerr = db.row(sc, iter.Columns(), rows, make([]adapters.Field, 0, len(fields)+db.cfg.Fields*boolInt(fields == nil)), &rec.Key)
		dst = append(dst, rec)
		if len(dst)-n >= count {
			break
		}
	}
	if err := rows.Err(); err != nil {
		return dst[:n], db.opError("scan", err)
	}
	if rerr != nil {
		return dst[:n], fmt.Errorf("scan %s: %w", table, rerr)
	}
	return dst, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Update is YCSB's update of the given fields. CQL's UPDATE is an upsert:
// an absent key is written, as under YCSB.
func (db *DB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	return db.write(ctx, "update", kindUpdate, table, key, values)
}

// Insert is YCSB's insert of one record.
func (db *DB) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	return db.write(ctx, "insert", kindInsert, table, key, values)
}

func (db *DB) write(ctx context.Context, op string, kind byte, table, key string, values []adapters.Field) error {
	if err := db.checkTable(table); err != nil {
		return err
	}
	if len(values) == 0 && kind == kindUpdate {
		return nil
	}
	s, err := db.opSession()
	if err != nil {
		return db.opError(op, err)
	}
	sc := getScratch()
	defer putScratch(sc)
	if err := db.columnsOf(sc, values); err != nil {
		return fmt.Errorf("%s %s: %w", op, table, err)
	}
	sc.key = statementKey(sc.key, kind, sc.idx)
	stmt := db.stmts.get(sc.key, kind, sc.idx, &db.cols)
	vals := sc.bind(len(values) + 1)
	first := 0 // the key's position: first in an INSERT, last in an UPDATE
	if kind == kindInsert {
		first = 1
		sc.args[0].b = bytesOf(key)
	} else {
		sc.args[len(values)].b = bytesOf(key)
	}
	for i, j := range sc.from {
		sc.args[first+i].b = values[j].Value
	}
	if err := db.query(s, stmt, db.cfg.WriteCL, vals).ExecContext(ctx); err != nil {
		return db.opError(op, err)
	}
	return nil
}

// Delete is YCSB's delete of a record. CQL does not say whether the row
// was there: a delete of an absent key succeeds, as under YCSB.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	if err := db.checkTable(table); err != nil {
		return err
	}
	s, err := db.opSession()
	if err != nil {
		return db.opError("delete", err)
	}
	sc := getScratch()
	defer putScratch(sc)
	vals := sc.bind(1)
	sc.args[0].b = bytesOf(key)
	if err := db.query(s, db.stmts.del, db.cfg.WriteCL, vals).ExecContext(ctx); err != nil {
		return db.opError("delete", err)
	}
	return nil
}

// notFound is the error for a key that is not there.
func notFound(table, key, why string) error {
	return fmt.Errorf("read %s key %q: %s: %w", table, key, why, adapters.ErrNotFound)
}
