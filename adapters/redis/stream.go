package redis

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
	"unsafe"

	goredis "github.com/redis/go-redis/v9"

	"benchtop/adapters"
)

// pollTime is the XREAD BLOCK time: an idle Read returns after it.
const pollTime = 200 * time.Millisecond

// trimEvery is how many rows a reader delivers between two XTRIMs of what
// it has read.
const trimEvery = 20000

// dataField is the stream entry's only field, holding the row.
const dataField = "d"

// OpenStream creates a stream of one Redis stream key per partition. The
// keys appear with their first XADD; Close deletes them.
func (db *DB) OpenStream(_ context.Context, name string, partitions int) (adapters.Stream, error) {
	if partitions < 1 {
		return nil, fmt.Errorf("redis: stream %s: %d partitions", name, partitions)
	}
	return &stream{db: db, name: name, parts: partitions}, nil
}

type stream struct {
	db    *DB
	name  string
	mu    sync.Mutex
	parts int
}

func (s *stream) key(p int) string { return fmt.Sprintf("%s:p%d", s.name, p) }

func (s *stream) Partitions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parts
}

func (s *stream) EnsurePartitions(_ context.Context, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parts = max(s.parts, n)
	return nil
}

// Produce adds every row with XADD, all in one pipeline (one round trip).
// Commands of one connection run in order, so each partition's rows keep
// theirs.
func (s *stream) Produce(ctx context.Context, rows []adapters.StreamRow) error {
	if len(rows) == 0 {
		return nil
	}
	n := s.Partitions()
	pipe := s.db.client.Pipeline()
	for _, r := range rows {
		if r.Partition < 0 || r.Partition >= n {
			return fmt.Errorf("redis: stream %s: no partition %d (%d exist)", s.name, r.Partition, n)
		}
		pipe.XAdd(ctx, &goredis.XAddArgs{Stream: s.key(r.Partition), ID: "*", Values: []any{dataField, r.Data}})
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("redis: stream %s: XADD of %d rows: %w", s.name, len(rows), classify(err))
	}
	return nil
}

func (s *stream) Reader(_ context.Context, p int) (adapters.StreamReader, error) {
	if p < 0 || p >= s.Partitions() {
		return nil, fmt.Errorf("redis: stream %s: no partition %d", s.name, p)
	}
	return &reader{s: s, key: s.key(p), last: "0"}, nil
}

func (s *stream) Describe() string {
	return fmt.Sprintf("%s streams %s:p0..p%d", s.db.Describe(), s.name, s.Partitions()-1)
}

// Close deletes every partition's key.
func (s *stream) Close(ctx context.Context) error {
	n := s.Partitions()
	keys := make([]string, 0, n)
	for p := range n {
		keys = append(keys, s.key(p))
	}
	for len(keys) > 0 {
		k := keys[:min(len(keys), 512)]
		keys = keys[len(k):]
		if err := s.db.client.Del(ctx, k...).Err(); err != nil {
			return fmt.Errorf("redis: stream %s: delete: %w", s.name, classify(err))
		}
	}
	return nil
}

type reader struct {
	s       *stream
	key     string
	last    string // ID of the last entry delivered
	trimmed int    // rows delivered since the last trim
	args    goredis.XReadArgs
}

// Read waits up to pollTime (XREAD BLOCK) for entries after the last one
// delivered. The rows point into the reply's strings (read-only).
func (r *reader) Read(ctx context.Context, dst [][]byte, limit int) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	r.args = goredis.XReadArgs{Streams: []string{r.key, r.last}, Count: int64(limit), Block: pollTime}
	res, err := r.s.db.client.XRead(ctx, &r.args).Result()
	if err != nil {
		if errors.Is(err, goredis.Nil) {
			return dst, nil
		}
		if ctx.Err() != nil {
			return dst, ctx.Err()
		}
		return dst, fmt.Errorf("redis: stream %s: XREAD: %w", r.key, classify(err))
	}
	for _, st := range res {
		for _, m := range st.Messages {
			v, ok := m.Values[dataField].(string)
			if !ok {
				return dst, fmt.Errorf("redis: stream %s: entry %s has no %q field", r.key, m.ID, dataField)
			}
			dst = append(dst, unsafe.Slice(unsafe.StringData(v), len(v)))
			r.last = m.ID
			r.trimmed++
		}
	}
	if r.trimmed >= trimEvery {
		// Entries before the last delivered one are done with.
		if err := r.s.db.client.XTrimMinID(ctx, r.key, r.last).Err(); err == nil {
			r.trimmed = 0
		}
	}
	return dst, nil
}

func (r *reader) Close() error { return nil }
