package redis

import (
	"context"
	"fmt"

	"benchtop/adapters"
)

// Insert and Delete on the lean client: their MULTI/EXEC transactions
// written in one system call, and every reply read, whatever its errors.

// leanInsert is Insert's commands on the lean client: a plain HSET
// (redis.strict=false, redis.index=false), or one MULTI/EXEC of DEL (strict),
// HSET and ZADD (index), written in one system call.
func (db *DB) leanInsert(ctx context.Context, table, key string, values []adapters.Field) error {
	strict, index := db.cfg.Strict, db.cfg.Index
	if !strict && !index && len(values) == 0 {
		return nil
	}
	queued := 0
	err := db.lean.do(ctx, func(b cmdBuf) cmdBuf {
		tx := strict || index
		if tx {
			b = b.cmd(1).str("MULTI")
		}
		if strict {
			b = b.cmd(2).str("DEL").hashKey(table, key)
			queued++
		}
		if len(values) > 0 {
			b = b.cmd(2+2*len(values)).str("HSET").hashKey(table, key)
			for _, f := range values {
				b = b.str(f.Name).bytes(f.Value)
			}
			queued++
		}
		if index {
			b = b.cmd(4).str("ZADD").str(indexKey(table)).str("0").str(key)
			queued++
		}
		if tx {
			b = b.cmd(1).str("EXEC")
		}
		return b
	}, func(r *respReader) error {
		if !strict && !index {
			return r.skip()
		}
		return readTx(r, queued, nil)
	})
	if err != nil {
		return fmt.Errorf("redis: insert %q: %w", key, classify(err))
	}
	return nil
}

// leanDelete is Delete's MULTI/EXEC of DEL and ZREM on the lean client.
func (db *DB) leanDelete(ctx context.Context, table, key string) error {
	index := db.cfg.Index
	var del int64
	err := db.lean.do(ctx, func(b cmdBuf) cmdBuf {
		b = b.cmd(1).str("MULTI").cmd(2).str("DEL").hashKey(table, key)
		if index {
			b = b.cmd(3).str("ZREM").str(indexKey(table)).str(key)
		}
		return b.cmd(1).str("EXEC")
	}, func(r *respReader) error {
		queued := 1
		if index {
			queued = 2
		}
		return readTx(r, queued, func(r *respReader) error {
			var err error
			del, err = r.expect(':')
			return err
		})
	})
	if err != nil {
		return fmt.Errorf("redis: delete %q: %w", key, classify(err))
	}
	if del == 0 {
		return fmt.Errorf("redis: delete %q: %w", key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
	}
	return nil
}

// readTx reads the replies to MULTI, queued commands and EXEC, all of
// them whatever their errors (so that the connection stays in step), and
// returns the first error reply. elem0, if not nil, reads the first
// command's result from EXEC's array.
func readTx(r *respReader, queued int, elem0 func(*respReader) error) error {
	var first error
	keep := func(err error) error { // nil, or an I/O or protocol error to return now
		if err == nil {
			return nil
		}
		if _, ok := err.(serverError); !ok {
			return err
		}
		if first == nil {
			first = err
		}
		return nil
	}
	for range queued + 1 { // +OK, then +QUEUED per command
		if err := keep(r.skip()); err != nil {
			return err
		}
	}
	if first != nil { // EXEC replies EXECABORT: the first error says why
		if err := keep(r.skip()); err != nil {
			return err
		}
		return first
	}
	n, err := r.expect('*')
	if err != nil {
		return err
	}
	if n != int64(queued) {
		return fmt.Errorf("%w: EXEC of %d commands replied %d results", errProtocol, queued, n)
	}
	for i := range n {
		if i == 0 && elem0 != nil {
			err = elem0(r)
		} else {
			err = r.skip()
		}
		if err := keep(err); err != nil {
			return err
		}
	}
	return first
}
