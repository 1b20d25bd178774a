package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"benchtop/adapters"
)

func hashKey(table, key string) string { return table + ":" + key }

func indexKey(table string) string { return "benchtop:index:" + table }

// fieldArgs flattens fields into HSET arguments. The values are written to
// the connection before the call returns, so the engine's buffers are
// not kept.
func fieldArgs(values []adapters.Field) []any {
	args := make([]any, 0, 2*len(values))
	for _, f := range values {
		args = append(args, f.Name, f.Value)
	}
	return args
}

// Read returns the fields of the record (all with fields == nil).
func (db *DB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	if db.lean != nil {
		return db.leanRead(ctx, table, key, fields, dst)
	}
	hk := hashKey(table, key)
	if fields == nil {
		m, err := db.client.HGetAll(ctx, hk).Result()
		if err != nil {
			return dst, fmt.Errorf("redis: read %q: %w", key, classify(err))
		}
		if len(m) == 0 {
			return dst, fmt.Errorf("redis: read %q: %w", key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
		}
		for name, v := range m {
			dst = append(dst, adapters.Field{Name: name, Value: []byte(v)})
		}
		return dst, nil
	}
	vals, err := db.client.HMGet(ctx, hk, fields...).Result()
	if err != nil {
		return dst, fmt.Errorf("redis: read %q: %w", key, classify(err))
	}
	n := len(dst)
	for i, v := range vals {
		if s, ok := v.(string); ok {
			dst = append(dst, adapters.Field{Name: strings.Clone(fields[i]), Value: []byte(s)})
		}
	}
	if len(dst) == n {
		// No record, or none of the fields asked for: not found (the
		// adapters' contract).
		return dst, fmt.Errorf("redis: read %q: %w", key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
	}
	return dst, nil
}

// Scan returns up to count records from the first key >= startKey, in key
// order, from the table's sorted-set index.
func (db *DB) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	if !db.cfg.Index {
		return dst, fmt.Errorf("redis: scan %q: scans need the key index (redis.index=true)", startKey)
	}
	if count <= 0 {
		return dst, nil
	}
	if db.lean != nil {
		return db.leanScan(ctx, table, startKey, count, fields, dst)
	}
	//lint:ignore SA1019 ZRANGEBYLEX works on servers before Redis 6.2, where ZRANGE ... BYLEX does not
	keys, err := db.client.ZRangeByLex(ctx, indexKey(table), &goredis.ZRangeBy{Min: "[" + startKey, Max: "+", Count: int64(count)}).Result()
	if err != nil {
		return dst, fmt.Errorf("redis: scan %q: %w", startKey, classify(err))
	}
	if len(keys) == 0 {
		return dst, nil
	}
	pipe := db.client.Pipeline()
	all := make([]*goredis.MapStringStringCmd, len(keys))
	some := make([]*goredis.SliceCmd, len(keys))
	for i, k := range keys {
		if fields == nil {
			all[i] = pipe.HGetAll(ctx, hashKey(table, k))
		} else {
			some[i] = pipe.HMGet(ctx, hashKey(table, k), fields...)
		}
	}
	if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, goredis.Nil) {
		return dst, fmt.Errorf("redis: scan %q: %w", startKey, classify(err))
	}
	for i, k := range keys {
		var rec adapters.Record
		if fields == nil {
			m := all[i].Val()
			if len(m) == 0 {
				continue // deleted since the index was read
			}
			rec = adapters.Record{Key: k, Fields: make([]adapters.Field, 0, len(m))}
			for name, v := range m {
				rec.Fields = append(rec.Fields, adapters.Field{Name: name, Value: []byte(v)})
			}
		} else {
			rec = adapters.Record{Key: k, Fields: make([]adapters.Field, 0, len(fields))}
			for j, v := range some[i].Val() {
				if s, ok := v.(string); ok {
					rec.Fields = append(rec.Fields, adapters.Field{Name: strings.Clone(fields[j]), Value: []byte(s)})
				}
			}
			if len(rec.Fields) == 0 {
				continue
			}
		}
		dst = append(dst, rec)
	}
	return dst, nil
}

// updateLua sets fields only on an existing record, atomically.
const updateLua = `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV))
return 1`

var updateScript = goredis.NewScript(updateLua)

// Update sets the given fields of an existing record.
func (db *DB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	if len(values) == 0 {
		return nil
	}
	if db.lean != nil {
		return db.leanUpdate(ctx, table, key, values)
	}
	if !db.cfg.Strict {
		if err := db.client.HSet(ctx, hashKey(table, key), fieldArgs(values)...).Err(); err != nil {
			return fmt.Errorf("redis: update %q: %w", key, classify(err))
		}
		return nil
	}
	n, err := updateScript.Run(ctx, db.client, []string{hashKey(table, key)}, fieldArgs(values)...).Int()
	if err != nil {
		return fmt.Errorf("redis: update %q: %w", key, classify(err))
	}
	if n == 0 {
		return fmt.Errorf("redis: update %q: %w", key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
	}
	return nil
}

// Insert writes a record's fields and indexes its key: HSET and ZADD, as
// YCSB's redis binding does; with redis.strict=true in one transaction
// that replaces the whole record.
func (db *DB) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	if db.lean != nil {
		return db.leanInsert(ctx, table, key, values)
	}
	if !db.cfg.Strict && !db.cfg.Index {
		if err := db.client.HSet(ctx, hashKey(table, key), fieldArgs(values)...).Err(); err != nil {
			return fmt.Errorf("redis: insert %q: %w", key, classify(err))
		}
		return nil
	}
	_, err := db.pipelined(ctx, func(p goredis.Pipeliner) error {
		db.queueInsert(ctx, p, table, key, values)
		return nil
	})
	if err != nil {
		return fmt.Errorf("redis: insert %q: %w", key, classify(err))
	}
	return nil
}

func (db *DB) queueInsert(ctx context.Context, p goredis.Pipeliner, table, key string, values []adapters.Field) {
	hk := hashKey(table, key)
	if db.cfg.Strict {
		p.Del(ctx, hk) // the record is what was inserted, nothing else
	}
	if len(values) > 0 {
		p.HSet(ctx, hk, fieldArgs(values)...)
	}
	if db.cfg.Index {
		p.ZAdd(ctx, indexKey(table), goredis.Z{Score: 0, Member: key})
	}
}

// BatchSize is redis.batchsize: records per InsertBatch pipeline.
func (db *DB) BatchSize() int { return db.cfg.BatchSize }

// InsertBatch inserts records in one pipeline: each record's commands
// as Insert's (one MULTI/EXEC around them all with redis.strict=true).
func (db *DB) InsertBatch(ctx context.Context, table string, records []adapters.Record) error {
	if len(records) == 0 {
		return nil
	}
	_, err := db.pipelined(ctx, func(p goredis.Pipeliner) error {
		for _, r := range records {
			db.queueInsert(ctx, p, table, r.Key, r.Fields)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("redis: insert batch of %d from %q: %w", len(records), records[0].Key, classify(err))
	}
	return nil
}

// pipelined runs fn's commands in one pipeline: a MULTI/EXEC transaction
// with redis.strict=true, plain (as YCSB's binding sends them one by one,
// only without waiting for each reply) otherwise.
func (db *DB) pipelined(ctx context.Context, fn func(goredis.Pipeliner) error) ([]goredis.Cmder, error) {
	if db.cfg.Strict {
		return db.client.TxPipelined(ctx, fn)
	}
	return db.client.Pipelined(ctx, fn)
}

// Delete removes a record and its index entry: DEL and ZREM (in one
// MULTI/EXEC with redis.strict=true).
func (db *DB) Delete(ctx context.Context, table, key string) error {
	if db.lean != nil {
		return db.leanDelete(ctx, table, key)
	}
	var del *goredis.IntCmd
	_, err := db.pipelined(ctx, func(p goredis.Pipeliner) error {
		del = p.Del(ctx, hashKey(table, key))
		if db.cfg.Index {
			p.ZRem(ctx, indexKey(table), key)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("redis: delete %q: %w", key, classify(err))
	}
	if del.Val() == 0 {
		return fmt.Errorf("redis: delete %q: %w", key, adapters.WithKind(adapters.KindNotFound, adapters.ErrNotFound))
	}
	return nil
}
