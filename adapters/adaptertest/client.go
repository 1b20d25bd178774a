package adaptertest

import (
	"context"
	"unsafe"

	"benchtop/adapters"
)

// The ownership rule of package adapters says that key strings, field
// names and value bytes passed to an adapter are valid only during the
// call. The suite enforces it the hard way: everything it passes in is
// built in reused buffers (strings alias the buffer's bytes, as an engine
// that formats keys in place would make them), and as soon as the call
// returns the buffers are overwritten with junk. An adapter that kept a
// reference instead of a copy then holds junk, and the read-back checks
// fail. The same goes for results: they are checked only after the junk
// has been written, so an adapter that hands back the caller's own key or
// field name strings is caught too.

// junk is what the buffers are overwritten with.
const junk = 0xA5

// arena hands out byte slices and strings from reused chunks.
type arena struct {
	chunks [][]byte
	cur    int // index of the chunk being filled
	off    int // bytes used in chunks[cur]
}

const chunkSize = 16 << 10

func (a *arena) bytes(n int) []byte {
	for a.cur < len(a.chunks) && a.off+n > len(a.chunks[a.cur]) {
		a.cur++
		a.off = 0
	}
	if a.cur == len(a.chunks) {
		a.chunks = append(a.chunks, make([]byte, max(chunkSize, n)))
		a.off = 0
	}
	b := a.chunks[a.cur][a.off : a.off+n : a.off+n]
	a.off += n
	return b
}

// str returns a copy of s that aliases the arena.
func (a *arena) str(s string) string {
	if s == "" {
		return ""
	}
	b := a.bytes(len(s))
	copy(b, s)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

func (a *arena) val(v []byte) []byte {
	b := a.bytes(len(v))
	copy(b, v)
	return b
}

func (a *arena) strs(ss []string) []string {
	if ss == nil {
		return nil
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = a.str(s)
	}
	return out
}

// scribble overwrites everything handed out since the last scribble.
func (a *arena) scribble() {
	for i := 0; i <= a.cur && i < len(a.chunks); i++ {
		c := a.chunks[i]
		if i == a.cur {
			c = c[:a.off]
		}
		for j := range c {
			c[j] = junk
		}
	}
	a.cur, a.off = 0, 0
}

// client makes the suite's calls for one goroutine through its own arena.
type client struct {
	s      *suite
	a      arena
	fields []adapters.Field  // reused for every write
	recs   []adapters.Record // reused for every batch
}

func (s *suite) client() *client { return &client{s: s} }

// done scribbles over everything the last call was given, including the
// reused field and record slices.
func (c *client) done() {
	c.a.scribble()
	junkField := adapters.Field{Name: "\xa5junk", Value: []byte{junk}}
	for i := range c.fields[:cap(c.fields)] {
		c.fields[:cap(c.fields)][i] = junkField
	}
	for i := range c.recs[:cap(c.recs)] {
		c.recs[:cap(c.recs)][i] = adapters.Record{Key: "\xa5junk", Fields: []adapters.Field{junkField}}
	}
}

// build fills c.fields with the given fields of key, tagged tag.
func (c *client) build(key, tag string, fields []string) []adapters.Field {
	start := len(c.fields)
	for _, f := range fields {
		c.fields = append(c.fields, adapters.Field{Name: c.a.str(f), Value: c.a.val(value(key, f, tag))})
	}
	return c.fields[start:len(c.fields):len(c.fields)]
}

func (c *client) insert(ctx context.Context, key, tag string, fields []string) error {
	c.s.track(key)
	c.fields = c.fields[:0]
	vals := c.build(key, tag, fields)
	err := c.s.db.Insert(ctx, c.s.table, c.a.str(key), vals)
	c.done()
	return err
}

func (c *client) update(ctx context.Context, key, tag string, fields []string) error {
	c.fields = c.fields[:0]
	vals := c.build(key, tag, fields)
	err := c.s.db.Update(ctx, c.s.table, c.a.str(key), vals)
	c.done()
	return err
}

func (c *client) read(ctx context.Context, key string, fields []string) ([]adapters.Field, error) {
	got, err := c.s.db.Read(ctx, c.s.table, c.a.str(key), c.a.strs(fields), nil)
	c.done()
	return got, err
}

func (c *client) scan(ctx context.Context, start string, count int, fields []string) ([]adapters.Record, error) {
	got, err := c.s.db.Scan(ctx, c.s.table, c.a.str(start), count, c.a.strs(fields), nil)
	c.done()
	return got, err
}

func (c *client) delete(ctx context.Context, key string) error {
	err := c.s.db.Delete(ctx, c.s.table, c.a.str(key))
	c.done()
	return err
}

// insertBatch inserts all of fields of each key, tagged tag, in one call.
func (c *client) insertBatch(ctx context.Context, bi adapters.BatchInserter, keys []string, tag string, fields []string) error {
	c.s.track(keys...)
	if n := len(keys) * len(fields); cap(c.fields) < n {
		// One array for all records, so that done scribbles all of them.
		c.fields = make([]adapters.Field, 0, n)
	}
	c.fields = c.fields[:0]
	c.recs = c.recs[:0]
	for _, k := range keys {
		c.recs = append(c.recs, adapters.Record{Key: c.a.str(k)})
	}
	for i, k := range keys {
		c.recs[i].Fields = c.build(k, tag, fields)
	}
	err := bi.InsertBatch(ctx, c.s.table, c.recs)
	c.done()
	return err
}

// insertRaw inserts key with the given field values.
func (c *client) insertRaw(ctx context.Context, key string, vals map[string][]byte) error {
	c.s.track(key)
	c.fields = c.fields[:0]
	for name, v := range vals {
		c.fields = append(c.fields, adapters.Field{Name: c.a.str(name), Value: c.a.val(v)})
	}
	err := c.s.db.Insert(ctx, c.s.table, c.a.str(key), c.fields)
	c.done()
	return err
}
