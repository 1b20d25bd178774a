package redis

import (
	"context"
	"fmt"

	"benchtop/adapters"
)

// Insert and Delete on the lean client. By default (redis.strict=false)
// they are YCSB's redis binding's commands, HSET then ZADD to the index
// (DEL then ZREM), pipelined: written in one system call, each reply read.
// With redis.strict=true they are one MULTI/EXEC, so that the record and
// its index entry change together and an insert replaces the whole record.

// leanInsert is Insert's commands on the lean client: HSET, then ZADD
// with the key index (redis.index); strict, one MULTI/EXEC of DEL, HSET
// and ZADD. Either way one write system call.
func (db *DB) leanInsert(ctx context.Context, table, key string, values []adapters.Field) error {
	strict, index := db.cfg.Strict, db.cfg.Index
	if !strict && !index && len(values) == 0 {
		return nil
	}
	queued := 0
	err := db.lean.do(ctx, func(b cmdBuf) cmdBuf {
		if strict {
			b = b.cmd(1).str("MULTI")
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
		if strict {
			b = b.cmd(1).str("EXEC")
		}
		return b
	}, func(r *respReader) error {
		if !strict {
			return readPipelined(r, queued, nil)
		}
		return readTx(r, queued, nil)
	})
	if err != nil {
		return fmt.Errorf("redis: insert %q: %w", key, classify(err))
	}
	return nil
}

// leanDelete is Delete's DEL and, with the key index, ZREM on the lean
// client: pipelined, or one MULTI/EXEC with redis.strict=true.
func (db *DB) leanDelete(ctx context.Context, table, key string) error {
	strict, index := db.cfg.Strict, db.cfg.Index
	queued := 1
	if index {
		queued = 2
	}
	var del int64
	elem0 := func(r *respReader) error {
		var err error
		del, err = r.expect(':')
		return err
	}
	err := db.lean.do(ctx, func(b cmdBuf) cmdBuf {
		if strict {
			b = b.cmd(1).str("MULTI")
		}
		b = b.cmd(2).str("DEL").hashKey(table, key)
		if index {
			b = b.cmd(3).str("ZREM").str(indexKey(table)).str(key)
		}
		if strict {
			b = b.cmd(1).str("EXEC")
		}
		return b
	}, func(r *respReader) error {
		if !strict {
			return readPipelined(r, queued, elem0)
		}
		return readTx(r, queued, elem0)
	})
	if err != nil {
		return fmt.Errorf("redis: delete %q: %w", key, classify(err))
	}
	if del == 0 {
		return fmt.Errorf("redis: delete %q: %w", key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
	}
	return nil
}

// readPipelined reads the replies to n pipelined commands, all of them
// whatever their errors (so that the connection stays in step), and
// returns the first error reply. elem0, if not nil, reads the first
// command's reply.
func readPipelined(r *respReader, n int, elem0 func(*respReader) error) error {
	var first error
	for i := range n {
		var err error
		if i == 0 && elem0 != nil {
			err = elem0(r)
		} else {
			err = r.skip()
		}
		if err == nil {
			continue
		}
		if _, ok := err.(serverError); !ok {
			return err
		}
		if first == nil {
			first = err
		}
	}
	return first
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
