package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"unsafe"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// Signatures of the statements that have no columns of their own.
var (
	sigRead   = []byte{sqlbase.KindRead}
	sigScan   = []byte{sqlbase.KindScan}
	sigDelete = []byte{sqlbase.KindDelete}
)

// rows runs a query statement with c.args and hands each row's values to
// each (which may stop the reading by returning false); the values are the
// driver's buffers, valid during the call.
func (db *DB) rows(ctx context.Context, c *conn, st *stmt, each func(vals [][]byte) bool) error {
	if err := c.w.Arm(ctx); err != nil {
		return err
	}
	var rows driver.Rows
	var err error
	if st.st != nil {
		rows, err = st.qu.QueryContext(quiet, c.args)
	} else if rows, err = c.qu.QueryContext(quiet, st.sql, c.args); errors.Is(err, driver.ErrSkip) {
		rows, err = c.queryPrepared(st)
	}
	if err == nil {
		db.columns(st, rows)
		n := len(st.res.FieldOf)
		if cap(c.dest) < n {
			c.dest, c.vals = make([]driver.Value, n), make([][]byte, n)
		}
		c.dest, c.vals = c.dest[:n], c.vals[:n]
		for {
			if err = rows.Next(c.dest); err != nil {
				if err == io.EOF {
					err = nil
				}
				break
			}
			for i, v := range c.dest {
				c.vals[i], _ = v.([]byte) // the binary protocol's strings and blobs; NULL is nil
			}
			if !each(c.vals) {
				break
			}
		}
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
	}
	c.failed(err)
	return c.w.After(ctx, err, &c.bad)
}

// exec runs a statement that returns no rows with c.args, and returns the
// rows it found.
func (db *DB) exec(ctx context.Context, c *conn, st *stmt) (int64, error) {
	if err := c.w.Arm(ctx); err != nil {
		return 0, err
	}
	var res driver.Result
	var err error
	if st.st != nil {
		res, err = st.ex.ExecContext(quiet, c.args)
	} else if res, err = c.ex.ExecContext(quiet, st.sql, c.args); errors.Is(err, driver.ErrSkip) {
		res, err = c.execPrepared(st)
	}
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	c.failed(err)
	return n, c.w.After(ctx, err, &c.bad)
}

// execPrepared runs a text statement whose values the driver cannot
// inline (it said driver.ErrSkip: a value past max_allowed_packet) as a
// statement prepared for this one use.
func (c *conn) execPrepared(st *stmt) (driver.Result, error) {
	once := &stmt{sql: st.sql}
	if err := c.prepare(once); err != nil {
		return nil, err
	}
	defer once.close()
	return once.ex.ExecContext(quiet, c.args)
}

// queryPrepared is execPrepared's query; the statement is closed with
// its rows.
func (c *conn) queryPrepared(st *stmt) (driver.Rows, error) {
	once := &stmt{sql: st.sql}
	if err := c.prepare(once); err != nil {
		return nil, err
	}
	rows, err := once.qu.QueryContext(quiet, c.args)
	if err != nil {
		once.close()
		return nil, err
	}
	return &closingRows{Rows: rows, st: once}, nil
}

// closingRows closes its statement with the rows.
type closingRows struct {
	driver.Rows
	st *stmt
}

func (r *closingRows) Close() error {
	err := r.Rows.Close()
	r.st.close()
	return err
}

// value is a field's value as a statement parameter: the bytes for a
// prepared statement (the binary protocol); for text, a string viewing
// them (valid during the call), which the driver inlines as '...' as
// Connector/J's setString does (bytes would be _binary'...'). nil is NULL.
func (db *DB) value(b []byte) driver.Value {
	if db.serverPrep || b == nil {
		return b
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// put gives the connection back, closing a statement used once.
func (db *DB) put(c *conn, st *stmt, once bool) {
	if once {
		st.close()
	}
	db.pool.Put(c, c.bad)
}

// Read is YCSB's SELECT * of the key; the fields asked for (all when nil)
// are picked from the row. A key with no row is not found; a NULL column
// is a field with a nil value.
func (db *DB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	if err := db.cfg.CheckTable(table); err != nil {
		return dst, err
	}
	c, err := db.get(ctx)
	if err != nil {
		return dst, db.opError(ctx, "read", err)
	}
	st, once, err := db.statement(c, sigRead, func() string { return db.ph.Read(db.cfg.Table) })
	if err != nil {
		db.put(c, nil, false)
		return dst, db.opError(ctx, "read", err)
	}
	c.args = c.args[:0]
	c.arg(key)
	found := false
	var pickErr error
	err = db.rows(ctx, c, st, func(vals [][]byte) bool {
		found = true
		dst, pickErr = db.cols.Pick(st.res, vals, fields, dst)
		return false
	})
	db.put(c, st, once)
	switch {
	case err != nil:
		return dst, db.opError(ctx, "read", err)
	case pickErr != nil:
		return dst, fmt.Errorf("read %s: %w", table, pickErr)
	case !found:
		return dst, sqlbase.NotFound("read", table, key)
	}
	return dst, nil
}

// Scan is YCSB's SELECT * from the start key in key order, LIMIT count.
func (db *DB) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	if err := db.cfg.CheckTable(table); err != nil {
		return dst, err
	}
	c, err := db.get(ctx)
	if err != nil {
		return dst, db.opError(ctx, "scan", err)
	}
	st, once, err := db.statement(c, sigScan, func() string { return db.ph.Scan(db.cfg.Table) })
	if err != nil {
		db.put(c, nil, false)
		return dst, db.opError(ctx, "scan", err)
	}
	c.args = c.args[:0]
	c.arg(startKey)
	c.arg(int64(count))
	var pickErr error
	err = db.rows(ctx, c, st, func(vals [][]byte) bool {
		if st.res.Key < 0 {
			pickErr = fmt.Errorf("no YCSB_KEY column in the result")
			return false
		}
		rec := adapters.Record{Key: string(vals[st.res.Key])}
		rec.Fields, pickErr = db.cols.Pick(st.res, vals, fields, make([]adapters.Field, 0, db.cfg.Fields))
		dst = append(dst, rec)
		return pickErr == nil
	})
	db.put(c, st, once)
	switch {
	case err != nil:
		return dst, db.opError(ctx, "scan", err)
	case pickErr != nil:
		return dst, fmt.Errorf("scan %s: %w", table, pickErr)
	}
	return dst, nil
}

// Update is YCSB's UPDATE of the given fields; a key with no row is not
// found.
func (db *DB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	if err := db.cfg.CheckTable(table); err != nil {
		return err
	}
	c, err := db.get(ctx)
	if err != nil {
		return db.opError(ctx, "update", err)
	}
	if err := c.set.Of(db.cols, values); err != nil {
		db.put(c, nil, false)
		return fmt.Errorf("update %s: %w", table, err)
	}
	st, once, err := db.statement(c, c.set.Sig(sqlbase.KindUpdate, 1), func() string {
		return db.ph.Update(db.cfg.Table, c.set.Names(db.cols))
	})
	if err != nil {
		db.put(c, nil, false)
		return db.opError(ctx, "update", err)
	}
	c.args = c.args[:0]
	for _, pos := range c.set.From {
		c.arg(db.value(values[pos].Value))
	}
	c.arg(key)
	n, err := db.exec(ctx, c, st)
	db.put(c, st, once)
	switch {
	case err != nil:
		return db.opError(ctx, "update", err)
	case n == 0:
		return sqlbase.NotFound("update", table, key)
	}
	return nil
}

// Insert is YCSB's INSERT of one record.
func (db *DB) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	if err := db.cfg.CheckTable(table); err != nil {
		return err
	}
	c, err := db.get(ctx)
	if err != nil {
		return db.opError(ctx, "insert", err)
	}
	err = db.insertOne(ctx, c, key, values)
	db.put(c, nil, false)
	return err
}

func (db *DB) insertOne(ctx context.Context, c *conn, key string, values []adapters.Field) error {
	if err := c.set.Of(db.cols, values); err != nil {
		return fmt.Errorf("insert %s: %w", db.cfg.Table, err)
	}
	st, once, err := db.statement(c, c.set.Sig(sqlbase.KindInsert, 1), func() string {
		return db.ph.Insert(db.cfg.Table, c.set.Names(db.cols), 1)
	})
	if err != nil {
		return db.opError(ctx, "insert", err)
	}
	c.args = c.args[:0]
	c.arg(key)
	for _, pos := range c.set.From {
		c.arg(db.value(values[pos].Value))
	}
	_, err = db.exec(ctx, c, st)
	if once {
		st.close()
	}
	if err != nil {
		return db.opError(ctx, "insert", err)
	}
	return nil
}

// Delete is YCSB's DELETE of the key; a key with no row is not found.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	if err := db.cfg.CheckTable(table); err != nil {
		return err
	}
	c, err := db.get(ctx)
	if err != nil {
		return db.opError(ctx, "delete", err)
	}
	st, once, err := db.statement(c, sigDelete, func() string { return db.ph.Delete(db.cfg.Table) })
	if err != nil {
		db.put(c, nil, false)
		return db.opError(ctx, "delete", err)
	}
	c.args = c.args[:0]
	c.arg(key)
	n, err := db.exec(ctx, c, st)
	db.put(c, st, once)
	switch {
	case err != nil:
		return db.opError(ctx, "delete", err)
	case n == 0:
		return sqlbase.NotFound("delete", table, key)
	}
	return nil
}

// InsertBatch inserts the load's records as YCSB's binding does with
// db.batchsize: one multi-row INSERT (rewriteBatchedStatements=true in
// db.url, with jdbc.batchupdateapi=true), else one INSERT after another,
// in one transaction when jdbc.autocommit=false (Connector/J's
// executeBatch without the rewrite sends the statements one by one too).
func (db *DB) InsertBatch(ctx context.Context, table string, records []adapters.Record) error {
	if err := db.cfg.CheckTable(table); err != nil {
		return err
	}
	if len(records) == 0 {
		return nil
	}
	c, err := db.get(ctx)
	if err != nil {
		return db.opError(ctx, "insert", err)
	}
	if db.batch.Rewrite && c.set.SameColumns(db.cols, records) {
		err = db.insertRewritten(ctx, c, records)
	} else {
		err = db.insertEach(ctx, c, records, nil)
	}
	db.put(c, nil, false)
	return err
}

// RowTimed says the load's batches are YCSB's jdbc.autocommit=false
// without jdbc.batchupdateapi: one INSERT per record, a commit per batch
// (adapters.RowTimer).
func (db *DB) RowTimed() bool { return db.batch.Tx && !db.batch.API }

// InsertBatchTimed is InsertBatch appending each record's time to took
// (adapters.RowTimer): from the previous record's end to its INSERT's,
// the commit in the last record's.
func (db *DB) InsertBatchTimed(ctx context.Context, table string, records []adapters.Record, took []int64) ([]int64, error) {
	if err := db.cfg.CheckTable(table); err != nil {
		return took, err
	}
	if len(records) == 0 {
		return took, nil
	}
	c, err := db.get(ctx)
	if err != nil {
		return took, db.opError(ctx, "insert", err)
	}
	err = db.insertEach(ctx, c, records, &took)
	db.put(c, nil, false)
	return took, err
}

func (db *DB) insertRewritten(ctx context.Context, c *conn, records []adapters.Record) error {
	st, once, err := db.statement(c, c.set.Sig(sqlbase.KindMulti, len(records)), func() string {
		return db.ph.Insert(db.cfg.Table, c.set.Names(db.cols), len(records))
	})
	if err != nil {
		return db.opError(ctx, "insert", err)
	}
	c.args = c.args[:0]
	for _, r := range records {
		if err := c.set.Of(db.cols, r.Fields); err != nil {
			return fmt.Errorf("insert %s: %w", db.cfg.Table, err)
		}
		c.arg(r.Key)
		for _, pos := range c.set.From {
			c.arg(db.value(r.Fields[pos].Value))
		}
	}
	_, err = db.exec(ctx, c, st)
	if once {
		st.close()
	}
	if err != nil {
		return db.opError(ctx, "insert", err)
	}
	return nil
}

// insertEach inserts the records one INSERT at a time, in one
// transaction when the batch is committed as one; took, when not nil,
// gets each record's time (sqlbase.RowClock).
func (db *DB) insertEach(ctx context.Context, c *conn, records []adapters.Record, took *[]int64) error {
	clock := sqlbase.StartRowClock(took)
	var tx driver.Tx
	if db.batch.Tx {
		b, ok := c.mc.(driver.ConnBeginTx)
		if !ok {
			return db.opError(ctx, "insert", errors.New("the driver's connection cannot begin a transaction with a context"))
		}
		if err := c.w.Arm(ctx); err != nil {
			return db.opError(ctx, "insert", err)
		}
		var err error
		if tx, err = b.BeginTx(quiet, driver.TxOptions{}); err != nil {
			c.failed(err)
			return db.opError(ctx, "insert", c.w.After(ctx, err, &c.bad))
		}
	}
	for _, r := range records {
		if err := db.insertOne(ctx, c, r.Key, r.Fields); err != nil {
			if tx != nil && !c.bad {
				_ = tx.Rollback()
			}
			return err
		}
		clock.Row()
	}
	if tx != nil {
		if err := tx.Commit(); err != nil {
			c.failed(err)
			return db.opError(ctx, "insert", err)
		}
	}
	clock.End()
	return nil
}

// get takes a connection for an operation under ctx, its watcher armed
// for ctx (a deadline an ended context left on it cleared) before
// anything is sent.
func (db *DB) get(ctx context.Context) (*conn, error) {
	c, err := db.pool.Get(ctx)
	if err != nil {
		return nil, err
	}
	if err := c.w.Arm(ctx); err != nil {
		db.pool.Put(c, c.bad)
		return nil, err
	}
	return c, nil
}
