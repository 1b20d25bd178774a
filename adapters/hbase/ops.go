package hbase

import (
	"bytes"
	"context"
	"fmt"
	"unsafe"

	"benchtop/adapters"
	"benchtop/adapters/hbase/thrift2"
)

// columns names the chosen columns of the family, or the whole family for
// fields == nil (YCSB's addFamily).
func (db *DB) columns(fields []string) []*thrift2.TColumn {
	if fields == nil {
		return db.wholeFamily
	}
	cols := make([]thrift2.TColumn, len(fields))
	ptrs := make([]*thrift2.TColumn, len(fields))
	for i, f := range fields {
		cols[i] = thrift2.TColumn{Family: db.family, Qualifier: lend(f)}
		ptrs[i] = &cols[i]
	}
	return ptrs
}

// lend returns the bytes of s without a copy, for a request the Thrift
// client writes out before the call returns and never modifies. Nothing
// that outlives the call (a buffered put) may hold them. An empty s gives
// an empty, non-nil slice, as []byte(s) does: the generated code sends an
// optional field (a column's qualifier, a scan's start row) only when it
// is not nil.
func lend(s string) []byte {
	if s == "" {
		return []byte{}
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// appendFields turns a result's cells into fields. The cells' bytes were
// allocated by the decoder for this result, so they are handed out as
// they are.
func (db *DB) appendFields(dst []adapters.Field, cells []*thrift2.TColumnValue) []adapters.Field {
	for _, cv := range cells {
		if !bytes.Equal(cv.Family, db.family) {
			continue
		}
		dst = append(dst, adapters.Field{Name: db.names.String(cv.Qualifier), Value: cv.Value})
	}
	return dst
}

func notFound(op, key string) error {
	return fmt.Errorf("hbase: %s %q: %w", op, key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
}

// Read gets the chosen columns of a row (the whole family with fields ==
// nil). A row that has none of the chosen columns costs a second round
// trip, to tell "no such row" from "no such columns".
func (db *DB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	tbl, row := lend(table), lend(key)
	get := &thrift2.TGet{Row: row, Columns: db.columns(fields)}
	var res *thrift2.TResult_
	err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		var err error
		res, err = c.Get(ctx, tbl, get)
		return err
	})
	if err != nil {
		return dst, fmt.Errorf("hbase: read %q: %w", key, classify(err))
	}
	n := len(dst)
	dst = db.appendFields(dst, res.GetColumnValues())
	if len(dst) == n {
		// No row, or a row holding none of the columns asked for: not
		// found, as YCSB's hbase2 binding answers an empty result (one
		// round trip; a row's existence is not asked apart).
		return dst, notFound("read", key)
	}
	return dst, nil
}

// Scan reads up to count rows from the first row key >= startKey, in row
// key order, with the chosen columns (rows holding none of them are
// skipped, as HBase does). Up to hbase.scan.pagesize rows take one round
// trip (getScannerResults opens, reads and closes the scanner); longer
// scans use a scanner and fetch a page per round trip.
func (db *DB) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	if count <= 0 {
		return dst, nil
	}
	tbl := lend(table)
	page := int32(min(count, db.cfg.ScanPage))
	limit := int32(count)
	// NewTScan, not a literal: it sets maxVersions to 1, the IDL's default
	// (a zero would be sent, and return no cells).
	scan := thrift2.NewTScan()
	scan.StartRow, scan.Columns, scan.Caching, scan.Limit = lend(startKey), db.columns(fields), &page, &limit
	var results []*thrift2.TResult_
	err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		if count <= db.cfg.ScanPage {
			var err error
			results, err = c.GetScannerResults(ctx, tbl, scan, limit)
			return err
		}
		id, err := c.OpenScanner(ctx, tbl, scan)
		if err != nil {
			return err
		}
		for len(results) < count {
			rows, err := c.GetScannerRows(ctx, id, min(page, int32(count-len(results))))
			if err != nil {
				return err
			}
			results = append(results, rows...)
			if len(rows) == 0 {
				break
			}
		}
		return c.CloseScanner(ctx, id)
	})
	if err != nil {
		return dst, fmt.Errorf("hbase: scan %q: %w", startKey, classify(err))
	}
	for _, r := range results[:min(len(results), count)] {
		rec := adapters.Record{Key: string(r.Row), Fields: db.appendFields(make([]adapters.Field, 0, len(r.ColumnValues)), r.ColumnValues)}
		if len(rec.Fields) > 0 {
			dst = append(dst, rec)
		}
	}
	return dst, nil
}

// newPut builds a put of values to key. With keep, the values are copied
// (a buffered put outlives the call); otherwise the put refers to the
// caller's bytes, which is safe because it is sent before the call
// returns.
func (db *DB) newPut(key string, values []adapters.Field, keep bool) *thrift2.TPut {
	cells := make([]thrift2.TColumnValue, len(values))
	ptrs := make([]*thrift2.TColumnValue, len(values))
	for i, f := range values {
		cells[i] = thrift2.TColumnValue{Family: db.family}
		if keep {
			cells[i].Qualifier, cells[i].Value = []byte(f.Name), bytes.Clone(f.Value)
		} else {
			cells[i].Qualifier, cells[i].Value = lend(f.Name), f.Value
		}
		ptrs[i] = &cells[i]
	}
	row := lend(key)
	if keep {
		row = []byte(key)
	}
	return &thrift2.TPut{Row: row, ColumnValues: ptrs, Durability: db.cfg.Durability}
}

// Update puts the given columns. By default that is a plain put, as in
// YCSB (HBase creates an absent row); with hbase.strictupdate it is a
// checkAndMutate that applies only if the row holds the first updated
// column with a non-empty value, and otherwise reports not found.
func (db *DB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	if len(values) == 0 {
		return nil
	}
	if db.buf != nil {
		return db.buffered(ctx, "update", table, key, values)
	}
	put := db.newPut(key, values, false)
	tbl := lend(table)
	if !db.cfg.StrictUpdate {
		if err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
			return c.Put(ctx, tbl, put)
		}); err != nil {
			return fmt.Errorf("hbase: update %q: %w", key, classify(err))
		}
		return nil
	}
	var applied bool
	mut := &thrift2.TRowMutations{Row: put.Row, Mutations: []*thrift2.TMutation{{Put: put}}}
	err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		var err error
		// NOT_EQUAL to no value: the column exists with a value (HBASE-26742).
		applied, err = c.CheckAndMutate(ctx, tbl, put.Row, db.family, put.ColumnValues[0].Qualifier, thrift2.TCompareOp_NOT_EQUAL, nil, mut)
		return err
	})
	if err != nil {
		return fmt.Errorf("hbase: update %q: %w", key, classify(err))
	}
	if !applied {
		return notFound("update", key)
	}
	return nil
}

// Insert puts a row of all its columns. As in YCSB it is a plain put: a
// row of that key that already exists keeps any other columns it has.
func (db *DB) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	if db.buf != nil {
		return db.buffered(ctx, "insert", table, key, values)
	}
	put := db.newPut(key, values, false)
	tbl := lend(table)
	if err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		return c.Put(ctx, tbl, put)
	}); err != nil {
		return fmt.Errorf("hbase: insert %q: %w", key, classify(err))
	}
	return nil
}

// BatchSize is hbase.batchsize: rows per putMultiple in the load phase.
func (db *DB) BatchSize() int { return db.cfg.BatchSize }

// InsertBatch puts rows with one putMultiple.
func (db *DB) InsertBatch(ctx context.Context, table string, records []adapters.Record) error {
	if len(records) == 0 {
		return nil
	}
	keep := db.buf != nil
	puts := make([]*thrift2.TPut, len(records))
	for i, r := range records {
		puts[i] = db.newPut(r.Key, r.Fields, keep)
	}
	if keep {
		if err := db.bufferPuts(ctx, table, puts); err != nil {
			return fmt.Errorf("hbase: insert batch of %d from %q: %w", len(records), records[0].Key, err)
		}
		return nil
	}
	tbl := []byte(table)
	if err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		return c.PutMultiple(ctx, tbl, puts)
	}); err != nil {
		return fmt.Errorf("hbase: insert batch of %d from %q: %w", len(records), records[0].Key, classify(err))
	}
	return nil
}

// Delete removes the row (every column of every family). An absent row is
// not an error in HBase, nor here.
func (db *DB) Delete(ctx context.Context, table, key string) error {
	if db.buf != nil {
		// Puts still buffered for this row must not land after the delete.
		if err := db.flush(ctx, db.buf.takeAll()); err != nil {
			return fmt.Errorf("hbase: delete %q: flushing buffered puts first: %w", key, err)
		}
	}
	tbl := []byte(table)
	del := thrift2.NewTDelete() // with the IDL's default deleteType
	del.Row, del.Durability = []byte(key), db.cfg.Durability
	if err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		return c.DeleteSingle(ctx, tbl, del)
	}); err != nil {
		return fmt.Errorf("hbase: delete %q: %w", key, classify(err))
	}
	return nil
}
