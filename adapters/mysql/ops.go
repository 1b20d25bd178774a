package mysql

import (
	"context"
	"database/sql/driver"
	"fmt"
	"io"

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
	//lint:ignore SA1019 the context forms start the driver's own watcher per call; the adapter cuts the socket itself (jdbc.Watcher)
	rows, err := st.st.Query(c.args)
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
	//lint:ignore SA1019 the context forms start the driver's own watcher per call; the adapter cuts the socket itself (jdbc.Watcher)
	res, err := st.st.Exec(c.args)
	var n int64
	if err == nil {
		n, err = res.RowsAffected()
	}
	c.failed(err)
	return n, c.w.After(ctx, err, &c.bad)
}

// put gives the connection back, closing a statement used once.
func (db *DB) put(c *conn, st *stmt, once bool) {
	if once && st != nil {
		_ = st.st.Close()
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
	c.args = append(c.args[:0], key)
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
	c.args = append(c.args[:0], startKey, int64(count))
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
		c.args = append(c.args, values[pos].Value)
	}
	c.args = append(c.args, key)
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
	c.args = append(c.args[:0], key)
	for _, pos := range c.set.From {
		c.args = append(c.args, values[pos].Value)
	}
	_, err = db.exec(ctx, c, st)
	if once {
		_ = st.st.Close()
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
	c.args = append(c.args[:0], key)
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
		err = db.insertEach(ctx, c, records)
	}
	db.put(c, nil, false)
	return err
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
		c.args = append(c.args, r.Key)
		for _, pos := range c.set.From {
			c.args = append(c.args, r.Fields[pos].Value)
		}
	}
	_, err = db.exec(ctx, c, st)
	if once {
		_ = st.st.Close()
	}
	if err != nil {
		return db.opError(ctx, "insert", err)
	}
	return nil
}

func (db *DB) insertEach(ctx context.Context, c *conn, records []adapters.Record) error {
	var tx driver.Tx
	if db.batch.Tx {
		var err error
		//lint:ignore SA1019 the context forms start the driver's own watcher per call; the adapter cuts the socket itself (jdbc.Watcher)
		if tx, err = c.mc.Begin(); err != nil {
			c.failed(err)
			return db.opError(ctx, "insert", err)
		}
	}
	for _, r := range records {
		if err := db.insertOne(ctx, c, r.Key, r.Fields); err != nil {
			if tx != nil && !c.bad {
				_ = tx.Rollback()
			}
			return err
		}
	}
	if tx != nil {
		if err := tx.Commit(); err != nil {
			c.failed(err)
			return db.opError(ctx, "insert", err)
		}
	}
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
