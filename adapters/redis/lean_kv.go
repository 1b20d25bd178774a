package redis

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"benchtop/adapters"
)

// Read, Update and Scan on the lean client (pool.go, resp.go): the same
// commands as the go-redis path (HGETALL or HMGET: none of the named
// fields there is not found; HSET, or the update script by EVALSHA;
// ZRANGEBYLEX, then the records), parsed straight into the caller's Fields. Field names come from the
// connection's interned names, so a read allocates only the values.

func (db *DB) leanRead(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	n0 := len(dst)
	err := db.lean.do(ctx, func(b cmdBuf) cmdBuf {
		if fields == nil {
			return b.cmd(2).str("HGETALL").hashKey(table, key)
		}
		b = b.cmd(2+len(fields)).str("HMGET").hashKey(table, key)
		for _, f := range fields {
			b = b.str(f)
		}
		return b
	}, func(r *respReader) error {
		var err error
		dst, err = readFields(r, fields, dst)
		return err
	})
	if err != nil {
		return dst[:n0], fmt.Errorf("redis: read %q: %w", key, classify(err))
	}
	if len(dst) > n0 {
		return dst, nil
	}
	// No record, or none of the fields asked for: not found (the
	// adapters' contract, YCSB's hbase2 binding on an empty result).
	return dst, fmt.Errorf("redis: read %q: %w", key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
}

// readFields parses an HGETALL reply (fields == nil: name, value, ...) or
// an HMGET reply (one value or nil per field) into dst.
func readFields(r *respReader, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	n, err := r.expect('*')
	if err != nil {
		return dst, err
	}
	if fields == nil {
		if n%2 != 0 {
			return dst, fmt.Errorf("%w: HGETALL replied %d elements", errProtocol, n)
		}
		dst = slices.Grow(dst, int(min(n/2, 1<<16))) // one allocation, not one per doubling
		for range n / 2 {
			name, err := r.name()
			if err != nil {
				return dst, err
			}
			v, ok, err := r.value()
			if err != nil {
				return dst, err
			}
			if !ok {
				return dst, fmt.Errorf("%w: HGETALL replied a nil value", errProtocol)
			}
			dst = append(dst, adapters.Field{Name: name, Value: v})
		}
		return dst, nil
	}
	if n != int64(len(fields)) {
		return dst, fmt.Errorf("%w: HMGET of %d fields replied %d elements", errProtocol, len(fields), n)
	}
	for _, f := range fields {
		v, ok, err := r.value()
		if err != nil {
			return dst, err
		}
		if ok {
			dst = append(dst, adapters.Field{Name: r.intern(f), Value: v})
		}
	}
	return dst, nil
}

// intern returns s as one of the connection's interned names (a copy of
// s the first time): the caller's s is only valid during the call.
func (r *respReader) intern(s string) string {
	if v, ok := r.names[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(r.names) < maxInternedNames {
		r.names[v] = v
	}
	return v
}

func (db *DB) leanUpdate(ctx context.Context, table, key string, values []adapters.Field) error {
	strict := db.cfg.Strict
	var n int64
	run := func(eval bool) error {
		return db.lean.do(ctx, func(b cmdBuf) cmdBuf {
			switch {
			case !strict:
				b = b.cmd(2+2*len(values)).str("HSET").hashKey(table, key)
			case eval:
				b = b.cmd(4+2*len(values)).str("EVAL").str(updateLua).str("1").hashKey(table, key)
			default:
				b = b.cmd(4+2*len(values)).str("EVALSHA").str(updateScript.Hash()).str("1").hashKey(table, key)
			}
			for _, f := range values {
				b = b.str(f.Name).bytes(f.Value)
			}
			return b
		}, func(r *respReader) error {
			var err error
			n, err = r.expect(':')
			return err
		})
	}
	err := run(false)
	if se, ok := err.(serverError); strict && ok && strings.HasPrefix(string(se), "NOSCRIPT") {
		err = run(true) // EVAL loads the script for the next EVALSHA
	}
	if err != nil {
		return fmt.Errorf("redis: update %q: %w", key, classify(err))
	}
	if strict && n == 0 {
		return fmt.Errorf("redis: update %q: %w", key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
	}
	return nil
}

// leanScan reads up to count keys from the table's index (ZRANGEBYLEX),
// then their records in one pipelined write (HGETALL or HMGET per key).
func (db *DB) leanScan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	var keys []string
	err := db.lean.do(ctx, func(b cmdBuf) cmdBuf {
		b = b.cmd(7).str("ZRANGEBYLEX").str(indexKey(table))
		b = append(b, "$"...)
		b = strconv.AppendInt(b, int64(len(startKey)+1), 10)
		b = append(b, "\r\n["...)
		b = append(b, startKey...)
		b = append(b, "\r\n"...)
		return b.str("+").str("LIMIT").str("0").str(strconv.Itoa(count))
	}, func(r *respReader) error {
		n, err := r.expect('*')
		if err != nil {
			return err
		}
		keys = make([]string, 0, n)
		for range n {
			k, err := r.text()
			if err != nil {
				return err
			}
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil || len(keys) == 0 {
		if err != nil {
			err = fmt.Errorf("redis: scan %q: %w", startKey, classify(err))
		}
		return dst, err
	}
	n0 := len(dst)
	err = db.lean.do(ctx, func(b cmdBuf) cmdBuf {
		for _, k := range keys {
			if fields == nil {
				b = b.cmd(2).str("HGETALL").hashKey(table, k)
				continue
			}
			b = b.cmd(2+len(fields)).str("HMGET").hashKey(table, k)
			for _, f := range fields {
				b = b.str(f)
			}
		}
		return b
	}, func(r *respReader) error {
		var first error // an error reply: the other replies are still read
		for _, k := range keys {
			got, err := readFields(r, fields, nil)
			if _, ok := err.(serverError); ok {
				if first == nil {
					first = err
				}
				continue
			}
			if err != nil {
				return err
			}
			if len(got) > 0 { // else deleted since the index was read
				dst = append(dst, adapters.Record{Key: k, Fields: got})
			}
		}
		return first
	})
	if err != nil {
		return dst[:n0], fmt.Errorf("redis: scan %q: %w", startKey, classify(err))
	}
	return dst, nil
}
