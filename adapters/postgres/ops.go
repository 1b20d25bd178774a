package postgres

import (
	"context"
	"fmt"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// Signatures of the statements that have no columns of their own.
var (
	sigRead   = []byte{sqlbase.KindRead}
	sigScan   = []byte{sqlbase.KindScan}
	sigDelete = []byte{sqlbase.KindDelete}
)

// Read is YCSB's SELECT * of the key; the fields asked for (all when nil)
// are picked from the row. A key with no row is not found; a NULL column
// is a field with a nil value.
func (db *DB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	if err := db.cfg.CheckTable(table); err != nil {
		return dst, err
	}
	c, err := db.get(ctx)
	if err != nil {
		return dst, db.opError("read", err)
	}
	st, err := db.statement(ctx, c, sigRead, func() string { return db.ph.Read(db.cfg.Table) })
	if err != nil {
		db.pool.Put(c, c.bad)
		return dst, db.opError("read", err)
	}
	c.params = append(c.params[:0], bytesOf(key))
	found := false
	var pickErr error
	_, err = c.run(ctx, st, func(vals [][]byte) {
		if !found {
			found = true
			dst, pickErr = db.pick(st, vals, fields, dst)
		}
	})
	db.pool.Put(c, c.bad)
	switch {
	case err != nil:
		return dst, db.opError("read", err)
	case pickErr != nil:
		return dst, pickErr
	case !found:
		return dst, sqlbase.NotFound("read", table, key)
	}
	return dst, nil
}

// pick appends the fields asked for of one row to dst (jdbc.Columns.Pick).
func (db *DB) pick(st *stmt, vals [][]byte, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	dst, err := db.cols.Pick(st.res, vals, fields, dst)
	if err != nil {
		return dst, fmt.Errorf("read %s: %w", db.cfg.Table, err)
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
		return dst, db.opError("scan", err)
	}
	st, err := db.statement(ctx, c, sigScan, func() string { return db.ph.Scan(db.cfg.Table) })
	if err != nil {
		db.pool.Put(c, c.bad)
		return dst, db.opError("scan", err)
	}
	lim, err := c.limitParam(st, count)
	if err != nil {
		db.pool.Put(c, c.bad)
		return dst, err
	}
	c.params = append(c.params[:0], bytesOf(startKey), lim)
	var pickErr error
	_, err = c.run(ctx, st, func(vals [][]byte) {
		switch {
		case pickErr != nil:
		case st.res == nil || st.res.Key < 0:
			pickErr = fmt.Errorf("scan %s: no YCSB_KEY column in the result", db.cfg.Table)
		default:
			rec := adapters.Record{Key: string(vals[st.res.Key])}
			rec.Fields, pickErr = db.pick(st, vals, fields, make([]adapters.Field, 0, db.cfg.Fields))
			dst = append(dst, rec)
		}
	})
	db.pool.Put(c, c.bad)
	if err != nil {
		return dst, db.opError("scan", err)
	}
	return dst, pickErr
}

// Update is YCSB's UPDATE of the given fields; a key with no row is not
// found.
func (db *DB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	if err := db.cfg.CheckTable(table); err != nil {
		return err
	}
	c, err := db.get(ctx)
	if err != nil {
		return db.opError("update", err)
	}
	if err := c.set.Of(db.cols, values); err != nil {
		db.pool.Put(c, c.bad)
		return fmt.Errorf("update %s: %w", table, err)
	}
	st, err := db.statement(ctx, c, c.set.Sig(sqlbase.KindUpdate, 1), func() string {
		return db.ph.Update(db.cfg.Table, c.set.Names(db.cols))
	})
	if err != nil {
		db.pool.Put(c, c.bad)
		return db.opError("update", err)
	}
	c.params = c.params[:0]
	for _, pos := range c.set.From {
		c.params = append(c.params, values[pos].Value)
	}
	c.params = append(c.params, bytesOf(key))
	n, err := c.run(ctx, st, nil)
	db.pool.Put(c, c.bad)
	switch {
	case err != nil:
		return db.opError("update", err)
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
		return db.opError("insert", err)
	}
	err = db.insertOne(ctx, c, key, values)
	db.pool.Put(c, c.bad)
	return err
}

func (db *DB) insertOne(ctx context.Context, c *conn, key string, values []adapters.Field) error {
	if err := c.set.Of(db.cols, values); err != nil {
		return fmt.Errorf("insert %s: %w", db.cfg.Table, err)
	}
	st, err := db.statement(ctx, c, c.set.Sig(sqlbase.KindInsert, 1), func() string {
		return db.ph.Insert(db.cfg.Table, c.set.Names(db.cols), 1)
	})
	if err != nil {
		return db.opError("insert", err)
	}
	c.params = append(c.params[:0], bytesOf(key))
	for _, pos := range c.set.From {
		c.params = append(c.params, values[pos].Value)
	}
	if _, err := c.run(ctx, st, nil); err != nil {
		return db.opError("insert", err)
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
		return db.opError("delete", err)
	}
	st, err := db.statement(ctx, c, sigDelete, func() string { return db.ph.Delete(db.cfg.Table) })
	if err != nil {
		db.pool.Put(c, c.bad)
		return db.opError("delete", err)
	}
	c.params = append(c.params[:0], bytesOf(key))
	n, err := c.run(ctx, st, nil)
	db.pool.Put(c, c.bad)
	switch {
	case err != nil:
		return db.opError("delete", err)
	case n == 0:
		return sqlbase.NotFound("delete", table, key)
	}
	return nil
}

// InsertBatch inserts the load's records as YCSB's binding does with
// db.batchsize: one multi-row INSERT (reWriteBatchedInserts=true in
// db.url), the single-row INSERTs sent in one round trip
// (jdbc.batchupdateapi=true: pgjdbc's executeBatch, implicitly one
// transaction), or one by one in a transaction (jdbc.autocommit=false).
func (db *DB) InsertBatch(ctx context.Context, table string, records []adapters.Record) error {
	if err := db.cfg.CheckTable(table); err != nil {
		return err
	}
	if len(records) == 0 {
		return nil
	}
	c, err := db.get(ctx)
	if err != nil {
		return db.opError("insert", err)
	}
	switch {
	case db.batch.Rewrite && c.set.SameColumns(db.cols, records):
		err = db.insertRewritten(ctx, c, records)
	case db.batch.API:
		err = db.insertPipelined(ctx, c, records)
	default:
		err = db.insertInTx(ctx, c, records, nil)
	}
	db.pool.Put(c, c.bad)
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
		return took, db.opError("insert", err)
	}
	err = db.insertInTx(ctx, c, records, &took)
	db.pool.Put(c, c.bad)
	return took, err
}

func (db *DB) insertRewritten(ctx context.Context, c *conn, records []adapters.Record) error {
	st, err := db.statement(ctx, c, c.set.Sig(sqlbase.KindMulti, len(records)), func() string {
		return db.ph.Insert(db.cfg.Table, c.set.Names(db.cols), len(records))
	})
	if err != nil {
		return db.opError("insert", err)
	}
	c.params = c.params[:0]
	for _, r := range records {
		if err := c.set.Of(db.cols, r.Fields); err != nil {
			return fmt.Errorf("insert %s: %w", db.cfg.Table, err)
		}
		c.params = append(c.params, bytesOf(r.Key))
		for _, pos := range c.set.From {
			c.params = append(c.params, r.Fields[pos].Value)
		}
	}
	if _, err := c.run(ctx, st, nil); err != nil {
		return db.opError("insert", err)
	}
	return nil
}

func (db *DB) insertPipelined(ctx context.Context, c *conn, records []adapters.Record) error {
	// The statements first (each prepared in a round trip of its own, once
	// per connection), then every Bind and Execute and one Sync: one round
	// trip, one implicit transaction.
	stmts := make([]*stmt, len(records))
	for i, r := range records {
		if err := c.set.Of(db.cols, r.Fields); err != nil {
			return fmt.Errorf("insert %s: %w", db.cfg.Table, err)
		}
		st, err := db.statement(ctx, c, c.set.Sig(sqlbase.KindInsert, 1), func() string {
			return db.ph.Insert(db.cfg.Table, c.set.Names(db.cols), 1)
		})
		if err != nil {
			return db.opError("insert", err)
		}
		if st.name == "" {
			return db.insertInTx(ctx, c, records, nil) // too many statements to pipeline unnamed ones
		}
		stmts[i] = st
	}
	if err := c.w.Arm(ctx); err != nil {
		return db.opError("insert", err)
	}
	for i, r := range records {
		_ = c.set.Of(db.cols, r.Fields)
		c.params = append(c.params[:0], bytesOf(r.Key))
		for _, pos := range c.set.From {
			c.params = append(c.params, r.Fields[pos].Value)
		}
		c.bindExec(stmts[i]) // copied into the write buffer now
	}
	c.fe.SendSync(&c.sync)
	_, err := c.flushAndReply(nil)
	if err = c.w.After(ctx, err, &c.bad); err != nil {
		return db.opError("insert", err)
	}
	return nil
}

// insertInTx inserts the records one INSERT at a time in one
// transaction; took, when not nil, gets each record's time
// (sqlbase.RowClock).
func (db *DB) insertInTx(ctx context.Context, c *conn, records []adapters.Record, took *[]int64) error {
	clock := sqlbase.StartRowClock(took)
	if _, err := c.query(ctx, "BEGIN"); err != nil {
		return db.opError("insert", err)
	}
	for _, r := range records {
		if err := db.insertOne(ctx, c, r.Key, r.Fields); err != nil {
			if !c.bad {
				_, _ = c.query(ctx, "ROLLBACK")
			}
			return err
		}
		clock.Row()
	}
	if _, err := c.query(ctx, "COMMIT"); err != nil {
		return db.opError("insert", err)
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
