package hbase

import (
	"context"
	"fmt"
	"sync"

	"benchtop/adapters"
	"benchtop/adapters/hbase/thrift2"
)

// writeBuffer is YCSB's clientbuffering: puts are collected (HBase's
// BufferedMutator) and sent with putMultiple once they hold
// writebuffersize bytes, and at Close. The worker whose put fills the
// buffer sends it, so that the flush's time lands on an operation's
// latency (as when BufferedMutator blocks) and its error on that
// operation; the other buffered operations return at once.
type writeBuffer struct {
	limit int64
	mu    sync.Mutex
	puts  []bufferedPut
	size  int64
}

type bufferedPut struct {
	table string
	put   *thrift2.TPut
}

// add buffers puts and returns the whole buffer when it is full.
func (b *writeBuffer) add(table string, puts []*thrift2.TPut) []bufferedPut {
	var n int64
	for _, p := range puts {
		n += putSize(p)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, p := range puts {
		b.puts = append(b.puts, bufferedPut{table: table, put: p})
	}
	b.size += n
	if b.size < b.limit {
		return nil
	}
	full := b.puts
	b.puts, b.size = nil, 0
	return full
}

// takeAll empties the buffer.
func (b *writeBuffer) takeAll() []bufferedPut {
	b.mu.Lock()
	defer b.mu.Unlock()
	all := b.puts
	b.puts, b.size = nil, 0
	return all
}

// putSize approximates a put's heap size as HBase counts it: row, and per
// cell family, qualifier and value.
func putSize(p *thrift2.TPut) int64 {
	n := int64(len(p.Row))
	for _, cv := range p.ColumnValues {
		n += int64(len(cv.Family) + len(cv.Qualifier) + len(cv.Value) + 8)
	}
	return n
}

func (db *DB) buffered(ctx context.Context, op, table, key string, values []adapters.Field) error {
	if err := db.bufferPuts(ctx, table, []*thrift2.TPut{db.newPut(key, values, true)}); err != nil {
		return fmt.Errorf("hbase: %s %q: %w", op, key, err)
	}
	return nil
}

func (db *DB) bufferPuts(ctx context.Context, table string, puts []*thrift2.TPut) error {
	if full := db.buf.add(table, puts); full != nil {
		if err := db.flush(ctx, full); err != nil {
			return fmt.Errorf("flushing the write buffer: %w", err)
		}
	}
	return nil
}

// flush sends buffered puts, one putMultiple per run of puts to the same
// table.
func (db *DB) flush(ctx context.Context, puts []bufferedPut) error {
	for len(puts) > 0 {
		n := 1
		for n < len(puts) && puts[n].table == puts[0].table {
			n++
		}
		batch := make([]*thrift2.TPut, n)
		for i := range batch {
			batch[i] = puts[i].put
		}
		tbl := []byte(puts[0].table)
		if err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
			return c.PutMultiple(ctx, tbl, batch)
		}); err != nil {
			return fmt.Errorf("putMultiple of %d buffered puts: %w", n, classify(err))
		}
		puts = puts[n:]
	}
	return nil
}
