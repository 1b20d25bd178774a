// Package redis is benchtop's Redis adapter, on github.com/redis/go-redis/v9.
//
// Key-value workloads store each record as a hash: key "<table>:<key>",
// one hash field per record field, values as raw bytes. Scans read a
// sorted set per table ("benchtop:index:<table>") whose members are the
// record keys, all with score 0, so that ZRANGEBYLEX returns them in
// byte order. By default the server runs what YCSB's redis binding sends
// per operation: an insert is HSET (YCSB's HMSET, the same command since
// Redis 4) and ZADD to the index, an update HSET, a read HGETALL or
// HMGET, a delete DEL and ZREM, a scan the index then the records (an
// insert's or a delete's two commands are pipelined, one round trip).
// redis.strict=true is benchtop's stricter option: an update is a Lua
// script that refuses a missing record, an insert one MULTI/EXEC of DEL,
// HSET and ZADD (the whole record replaced, with its index entry) and a
// delete one MULTI/EXEC of DEL and ZREM. With redis.index=false the index
// is not kept (and Scan fails).
//
// The stream workload runs on Redis Streams: one stream key per partition
// ("<name>:p<N>"), rows added with pipelined XADD (one round trip per
// batch), and one reader per partition doing XREAD BLOCK from the last ID
// it delivered, trimming what it has read (XTRIM MINID) as it goes, so
// that the server holds only the consumer lag.
//
// Properties (config.go): redis.addr (default 127.0.0.1:6379),
// redis.password (never shown), redis.db (0), redis.poolsize (connections
// at most, default 2048: each partition's blocking reader holds one),
// redis.timeout (5s; a bare number is in ms, as in YCSB), redis.index
// (true), redis.strict (false), redis.batchsize (100, records per load
// pipeline); and YCSB's redis binding's names: redis.host and redis.port
// (for redis.addr), redis.cusername and redis.cpassword (an ACL user);
// redis.cluster=true is refused; redis.client (benchtop, the default, or
// go-redis) picks the client of reads, scans, updates, inserts and deletes: the
// adapter's lean RESP2 client (pool.go, resp.go) or go-redis, which
// carries batched loads and streams either way. redis.poolsize
// bounds each of the two clients' connections.
package redis

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"benchtop/adapters"
)

func init() {
	adapters.Register(adapters.Driver{
		Name:        "redis",
		Description: "Redis: records as hashes (ordered scans via a sorted-set index), streams on Redis Streams",
		Prefixes:    []string{"redis."},
		Keys:        Keys,
		Open: func(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(ctx, props)
		},
	})
}

// DB is an open Redis connection pool.
type DB struct {
	cfg    Config
	client *goredis.Client
	lean   *leanPool // Read and Update, unless redis.client=go-redis
}

var (
	_ adapters.DB            = (*DB)(nil)
	_ adapters.BatchInserter = (*DB)(nil)
	_ adapters.Describer     = (*DB)(nil)
	_ adapters.Streamer      = (*DB)(nil)
)

// Open connects and pings the server.
func Open(ctx context.Context, props adapters.Properties) (*DB, error) {
	cfg, err := ParseConfig(props)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	client := goredis.NewClient(&goredis.Options{
		Addr:         cfg.Addr,
		Username:     cfg.Username,
		Password:     cfg.Password,
		DB:           cfg.DB,
		PoolSize:     cfg.PoolSize,
		DialTimeout:  cfg.Timeout,
		ReadTimeout:  cfg.Timeout,
		WriteTimeout: cfg.Timeout,
		// Context deadlines bound operations; the pool's own wait too.
		ContextTimeoutEnabled: true,
		PoolTimeout:           cfg.Timeout,
		DisableIdentity:       true,
	})
	if err := client.Ping(ctx).Err(); err != nil {
		client.Close()
		return nil, fmt.Errorf("redis: connect to %s: %w", cfg.Addr, classify(err))
	}
	db := &DB{cfg: cfg, client: client}
	if cfg.Client == ClientBenchtop {
		db.lean = newLeanPool(cfg)
	}
	return db, nil
}

// Describe returns the server address (never the password).
func (db *DB) Describe() string {
	s := "redis://" + db.cfg.Addr
	if db.cfg.DB != 0 {
		s += fmt.Sprintf("/%d", db.cfg.DB)
	}
	return s
}

// Close closes the connection pools.
func (db *DB) Close() error {
	if db.lean != nil {
		db.lean.Close()
	}
	return db.client.Close()
}

// classify attaches an error kind to a go-redis error.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ne net.Error
	switch {
	case errors.Is(err, goredis.Nil):
		return adapters.WithKind(adapters.KindNotFound, err)
	case errors.Is(err, context.Canceled):
		return adapters.WithKind(adapters.KindCanceled, err)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return adapters.WithKind(adapters.KindTimeout, err)
	case errors.Is(err, goredis.ErrClosed), errors.Is(err, goredis.ErrPoolTimeout),
		errors.Is(err, errPoolClosed), errors.Is(err, errPoolTimeout),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, errProtocol):
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "LOADING"), strings.HasPrefix(msg, "BUSY"), strings.HasPrefix(msg, "MASTERDOWN"),
		strings.HasPrefix(msg, "TRYAGAIN"), strings.HasPrefix(msg, "CLUSTERDOWN"), strings.HasPrefix(msg, "READONLY"):
		return adapters.WithKind(adapters.KindUnavailable, err)
	case strings.HasPrefix(msg, "OOM"):
		return adapters.WithKind(adapters.KindThrottled, err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	return err
}
