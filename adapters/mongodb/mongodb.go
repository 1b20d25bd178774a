// Package mongodb is benchtop's MongoDB adapter. It follows YCSB's mongodb
// binding (site.ycsb.db.MongoDbClient) so that a YCSB command line works
// unchanged: the same property names (mongodb.url, mongodb.upsert, batch
// size, the legacy mongodb.writeConcern / mongodb.readPreference /
// mongodb.maxconnections), the same documents ({_id: key, field0..N:
// binary}) and the same queries (read by _id with a projection, scan with
// _id >= start sorted by _id and limited, update with $set, insert, delete).
//
// Write concern, read preference, TLS, authentication and pool size come
// from the connection string, as the Go driver reads it. The URL is never
// shown in clear: Describe and every error carry it with secrets masked.
//
// Errors carry a kind for counting (adapters.Kind): "unavailable" when no
// server can be reached, "timeout", KindDuplicate for an existing _id,
// "not_found" for a missing key, "error" otherwise. Nothing here holds
// connection state: the driver reconnects when the server comes back.
package mongodb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"benchtop/adapters"
)

func init() {
	adapters.Register(adapters.Driver{
		Name:        "mongodb",
		Description: "MongoDB (YCSB mongodb binding: mongodb.url, mongodb.batchsize, mongodb.upsert)",
		// "batchsize" is the un-prefixed name YCSB's binding reads.
		Prefixes: []string{"mongodb.", PropBatchSizeYCSB},
		Keys:     Keys,
		Open:     Open,
	})
}

// DB is a MongoDB adapter; it implements adapters.DB,
// adapters.BatchInserter and adapters.Describer. It is safe for concurrent
// use; the driver's client pools and re-establishes connections by itself.
type DB struct {
	cfg    *config
	client *mongo.Client
	db     *mongo.Database
	// colls caches collection handles by name; a handle holds no
	// connection, so nothing here goes stale when the server restarts.
	colls sync.Map // string -> *mongo.Collection
	bufs  sync.Pool
	names adapters.NameCache // field names of replies, one string each
}

var (
	_ adapters.DB            = (*DB)(nil)
	_ adapters.BatchInserter = (*DB)(nil)
	_ adapters.Describer     = (*DB)(nil)
)

// Open connects to the server named by mongodb.url and checks it answers
// (a ping bounded by a few seconds and by ctx). Bad properties are a
// *adapters.ConfigError; a server that does not answer is an error naming
// the masked URL and the cause.
func Open(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
	cfg, err := parseConfig(props)
	if err != nil {
		return nil, err
	}
	d, err := newDB(cfg)
	if err != nil {
		return nil, err
	}
	wait := selectTimeout
	if to := serverSelectionTimeout(cfg.url); to > 0 {
		wait = to
	}
	pctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	if err := d.client.Ping(pctx, nil); err != nil {
		_ = d.Close()
		err = cfg.sanitize(err)
		return nil, adapters.WithKind(kindOf(err), fmt.Errorf("mongodb: cannot connect to %s: %w", cfg.masked, err))
	}
	return d, nil
}

// newDB makes the client; it does no I/O (the driver connects lazily).
func newDB(cfg *config) (*DB, error) {
	opts := options.Client().ApplyURI(cfg.url)
	if !cfg.selectSet {
		opts.SetServerSelectionTimeout(selectTimeout)
	}
	if !hasQueryOption(cfg.url, "appName") {
		opts.SetAppName("benchtop") // names the client in the server's logs
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		err = cfg.sanitize(err)
		// mongodb+srv looks up DNS records while parsing: a failure there
		// is a failure to connect, not bad input.
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) {
			return nil, adapters.WithKind(adapters.KindUnavailable, fmt.Errorf("mongodb: cannot connect to %s: %w", cfg.masked, err))
		}
		return nil, &adapters.ConfigError{Key: PropURL, Value: cfg.masked,
			Allowed: "a valid MongoDB connection string (" + err.Error() + ")"}
	}
	return &DB{cfg: cfg, client: client, db: client.Database(cfg.database)}, nil
}

// serverSelectionTimeout returns the URL's serverSelectionTimeoutMS, or 0.
func serverSelectionTimeout(u string) time.Duration {
	for _, kv := range strings.FieldsFunc(queryOf(u), func(r rune) bool { return r == '&' || r == ';' }) {
		k, v, _ := strings.Cut(kv, "=")
		if strings.EqualFold(k, "serverSelectionTimeoutMS") {
			var ms int64
			if _, err := fmt.Sscanf(v, "%d", &ms); err == nil && ms > 0 {
				return time.Duration(ms) * time.Millisecond
			}
		}
	}
	return 0
}

// Describe returns the connection string with its password masked.
func (d *DB) Describe() string { return d.cfg.describe() }

// Database returns the name of the database the adapter uses.
func (d *DB) Database() string { return d.cfg.database }

// BatchSize is mongodb.batchsize (YCSB: batchsize), default 1.
func (d *DB) BatchSize() int { return d.cfg.batchSize }

// Close disconnects, waiting a few seconds at most for in-use connections.
func (d *DB) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.client.Disconnect(ctx); err != nil && !errors.Is(err, mongo.ErrClientDisconnected) {
		return fmt.Errorf("mongodb: close: %w", d.cfg.sanitize(err))
	}
	return nil
}

func (d *DB) coll(table string) *mongo.Collection {
	if table == "" {
		table = DefaultTable
	}
	if c, ok := d.colls.Load(table); ok {
		return c.(*mongo.Collection)
	}
	c, _ := d.colls.LoadOrStore(strings.Clone(table), d.db.Collection(table))
	return c.(*mongo.Collection)
}

// buffer returns a scratch buffer for building BSON; give it back with
// release once the driver call has returned (the driver copies the
// documents into its wire message during the call).
func (d *DB) buffer() *[]byte {
	if b, ok := d.bufs.Get().(*[]byte); ok {
		*b = (*b)[:0]
		return b
	}
	b := make([]byte, 0, 2048)
	return &b
}

func (d *DB) release(b *[]byte) {
	if cap(*b) <= 1<<20 { // keep the pool from pinning huge batches
		d.bufs.Put(b)
	}
}

// Read finds the document with _id key, projecting the requested fields,
// and appends its binary fields to dst.
func (d *DB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	buf := d.buffer()
	defer d.release(buf)
	b := *buf
	filter, b := idFilter(b, key)
	var opts []options.Lister[options.FindOneOptions]
	if fields != nil {
		var proj bson.Raw
		var err error
		if proj, b, err = projection(b, fields); err != nil {
			return dst, fmt.Errorf("mongodb: read %q: %w", key, err)
		}
		opts = append(opts, options.FindOne().SetProjection(proj))
	}
	*buf = b
	raw, err := d.coll(table).FindOne(ctx, filter, opts...).Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return dst, fmt.Errorf("mongodb: read %q: %w", key, adapters.ErrNotFound)
	}
	if err != nil {
		return dst, d.fail(err, "read %q", key)
	}
	// The values alias the reply: the driver reads every reply into a
	// buffer of its own (topology.connection.read makes one per message,
	// and nothing pools them), so they belong to the caller as they are.
	// TestReadValuesOutliveLaterReads keeps that true across driver
	// versions.
	n := len(dst)
	dst, _, err = appendFields(&d.names, dst, raw)
	if err != nil {
		return dst, fmt.Errorf("mongodb: read %q: %w", key, err)
	}
	if len(fields) > 0 && len(dst) == n {
		// A document holding none of the fields asked for is not found
		// (the adapters' contract, YCSB's hbase2 binding on an empty
		// result).
		return dst, fmt.Errorf("mongodb: read %q: none of the fields asked for: %w", key, adapters.ErrNotFound)
	}
	return dst, nil
}

// Scan finds up to count documents with _id >= startKey in _id order.
func (d *DB) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	if count <= 0 { // a limit of 0 means "no limit" to MongoDB
		return dst, nil
	}
	buf := d.buffer()
	defer d.release(buf)
	b := *buf
	var filter bson.Raw
	filter, b = gteFilter(b, startKey)
	opts := options.Find().SetSort(sortByID).SetLimit(int64(count))
	if count <= 1<<16 {
		opts.SetBatchSize(int32(count)) // one round trip
	}
	if fields != nil {
		var proj bson.Raw
		var err error
		if proj, b, err = projection(b, fields); err != nil {
			return dst, fmt.Errorf("mongodb: scan from %q: %w", startKey, err)
		}
		opts.SetProjection(proj)
	}
	*buf = b
	cur, err := d.coll(table).Find(ctx, filter, opts)
	if err != nil {
		return dst, d.fail(err, "scan from %q", startKey)
	}
	// With the limit and batch size above the server has closed the
	// cursor by the last batch; Close then sends nothing.
	defer cur.Close(ctx)
	for n := 0; n < count && cur.Next(ctx); n++ {
		doc := bytes.Clone(cur.Current) // Current is valid until Next
		var rec adapters.Record
		var id string
		rec.Fields, id, err = appendFields(&d.names, nil, doc)
		if err != nil {
			return dst, fmt.Errorf("mongodb: scan from %q: %w", startKey, err)
		}
		rec.Key = id
		dst = append(dst, rec)
	}
	if err := cur.Err(); err != nil {
		return dst, d.fail(err, "scan from %q", startKey)
	}
	return dst, nil
}

// Update sets the given fields with $set; a missing key is ErrNotFound.
func (d *DB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	if len(values) == 0 {
		// MongoDB rejects an empty $set; only tell whether the key exists.
		_, err := d.Read(ctx, table, key, []string{}, nil)
		return err
	}
	buf := d.buffer()
	defer d.release(buf)
	b := *buf
	filter, b := idFilter(b, key)
	update, b, err := setDoc(b, values)
	*buf = b
	if err != nil {
		return fmt.Errorf("mongodb: update %q: %w", key, err)
	}
	res, err := d.coll(table).UpdateOne(ctx, filter, update)
	if err != nil {
		return d.fail(err, "update %q", key)
	}
	if res.Acknowledged && res.MatchedCount == 0 {
		return fmt.Errorf("mongodb: update %q: %w", key, adapters.ErrNotFound)
	}
	return nil
}

// Insert writes {_id: key, fields...}; with mongodb.upsert it replaces the
// document with that _id, or inserts it, as YCSB does.
func (d *DB) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	buf := d.buffer()
	defer d.release(buf)
	b := *buf
	doc, b, err := record(b, key, values)
	if err != nil {
		*buf = b
		return fmt.Errorf("mongodb: insert %q: %w", key, err)
	}
	c := d.coll(table)
	if d.cfg.upsert {
		var filter bson.Raw
		filter, b = idFilter(b, key)
		*buf = b
		_, err = c.ReplaceOne(ctx, filter, doc, options.Replace().SetUpsert(true))
	} else {
		*buf = b
		_, err = c.InsertOne(ctx, doc)
	}
	if err != nil {
		return d.fail(err, "insert %q", key)
	}
	return nil
}

// InsertBatch inserts records with one unordered insertMany (or, with
// mongodb.upsert, one unordered bulk write of upserting replaces), as YCSB
// does when its batch fills. The documents are marshalled from the
// caller's buffers before the call returns.
func (d *DB) InsertBatch(ctx context.Context, table string, records []adapters.Record) error {
	if len(records) == 0 {
		return nil
	}
	size := 0
	for _, r := range records {
		size += 16 + len(r.Key)
		for _, f := range r.Fields {
			size += 8 + len(f.Name) + len(f.Value)
		}
	}
	// One buffer for the whole batch, not pooled: it is sized to the batch.
	b := make([]byte, 0, size*2)
	docs := make([]any, len(records))
	var ids []bson.Raw
	if d.cfg.upsert {
		ids = make([]bson.Raw, len(records))
	}
	for i, r := range records {
		var err error
		var doc bson.Raw
		if doc, b, err = record(b, r.Key, r.Fields); err != nil {
			return fmt.Errorf("mongodb: insert batch of %d at %q: %w", len(records), r.Key, err)
		}
		docs[i] = doc
		if ids != nil {
			ids[i], b = idFilter(b, r.Key)
		}
	}
	c := d.coll(table)
	var err error
	if d.cfg.upsert {
		models := make([]mongo.WriteModel, len(records))
		for i := range records {
			models[i] = mongo.NewReplaceOneModel().SetFilter(ids[i]).SetReplacement(docs[i]).SetUpsert(true)
		}
		_, err = c.BulkWrite(ctx, models, options.BulkWrite().SetOrdered(false))
	} else {
		_, err = c.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false))
	}
	if err != nil {
		return d.fail(briefBulk(err, len(records)), "insert batch of %d from %q", len(records), records[0].Key)
	}
	return nil
}

// briefBulk shortens a bulk write error, whose message lists every failed
// write (a whole batch of duplicates on a second load), to a count and the
// first failure; errors.As still finds the original.
func briefBulk(err error, n int) error {
	var be mongo.BulkWriteException
	if !errors.As(err, &be) || len(be.WriteErrors) < 2 {
		return err
	}
	return &redactedError{
		msg: fmt.Sprintf("%d of %d writes failed, first: %s", len(be.WriteErrors), n, be.WriteErrors[0].Message),
		err: err,
	}
}

// Delete removes the document with _id key; a missing key is ErrNotFound.
func (d *DB) Delete(ctx context.Context, table, key string) error {
	buf := d.buffer()
	defer d.release(buf)
	filter, b := idFilter(*buf, key)
	*buf = b
	res, err := d.coll(table).DeleteOne(ctx, filter)
	if err != nil {
		return d.fail(err, "delete %q", key)
	}
	if res.Acknowledged && res.DeletedCount == 0 {
		return fmt.Errorf("mongodb: delete %q: %w", key, adapters.ErrNotFound)
	}
	return nil
}

// --- BSON, built and read without reflection ---

// sortByID is {_id: 1}; read-only.
var sortByID = bson.Raw(bsoncore.NewDocumentBuilder().AppendInt32("_id", 1).Build())

// Slices returned by these builders point into dst's backing array; when
// the append below grows it, earlier documents keep the old array, which
// is still valid. Either way each returned bson.Raw stays intact.

func idFilter(dst []byte, key string) (bson.Raw, []byte) {
	start := len(dst)
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendStringElement(dst, "_id", key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return bson.Raw(dst[start:len(dst):len(dst)]), dst
}

func gteFilter(dst []byte, key string) (bson.Raw, []byte) {
	start := len(dst)
	idx, dst := bsoncore.AppendDocumentStart(dst)
	in, dst := bsoncore.AppendDocumentElementStart(dst, "_id")
	dst = bsoncore.AppendStringElement(dst, "$gte", key)
	dst, _ = bsoncore.AppendDocumentEnd(dst, in)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return bson.Raw(dst[start:len(dst):len(dst)]), dst
}

func projection(dst []byte, fields []string) (bson.Raw, []byte, error) {
	start := len(dst)
	idx, dst := bsoncore.AppendDocumentStart(dst)
	for _, f := range fields {
		if err := checkName(f); err != nil {
			return nil, dst, err
		}
		dst = bsoncore.AppendInt32Element(dst, f, 1)
	}
	if len(fields) == 0 {
		// An empty projection returns whole documents; ask for _id only.
		dst = bsoncore.AppendInt32Element(dst, "_id", 1)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return bson.Raw(dst[start:len(dst):len(dst)]), dst, nil
}

func record(dst []byte, key string, values []adapters.Field) (bson.Raw, []byte, error) {
	start := len(dst)
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendStringElement(dst, "_id", key)
	for _, f := range values {
		if err := checkName(f.Name); err != nil {
			return nil, dst, err
		}
		dst = bsoncore.AppendBinaryElement(dst, f.Name, 0, f.Value)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return bson.Raw(dst[start:len(dst):len(dst)]), dst, nil
}

func setDoc(dst []byte, values []adapters.Field) (bson.Raw, []byte, error) {
	start := len(dst)
	idx, dst := bsoncore.AppendDocumentStart(dst)
	in, dst := bsoncore.AppendDocumentElementStart(dst, "$set")
	for _, f := range values {
		if err := checkName(f.Name); err != nil {
			return nil, dst, err
		}
		dst = bsoncore.AppendBinaryElement(dst, f.Name, 0, f.Value)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, in)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return bson.Raw(dst[start:len(dst):len(dst)]), dst, nil
}

// checkName rejects field names BSON cannot carry or MongoDB would read as
// something else than a top-level field.
func checkName(name string) error {
	if name == "" || name == "_id" || strings.IndexByte(name, 0) >= 0 || strings.IndexByte(name, '.') >= 0 || name[0] == '$' {
		return fmt.Errorf("field name %q is not allowed (no NUL or '.', no leading '$', not _id)", name)
	}
	return nil
}

// appendFields appends the binary-valued elements of doc to dst (as YCSB's
// fillMap does, which skips _id and anything not binary) and returns the
// document's string _id. Values alias doc; names come from names (the
// same string for the same name in every reply) or, with nil, are copies.
func appendFields(names *adapters.NameCache, dst []adapters.Field, doc []byte) ([]adapters.Field, string, error) {
	if len(doc) < 5 {
		return dst, "", errors.New("short BSON document in reply")
	}
	rem := doc[4 : len(doc)-1]
	var id string
	for len(rem) > 0 {
		elem, rest, ok := bsoncore.ReadElement(rem)
		if !ok {
			return dst, id, errors.New("malformed BSON document in reply")
		}
		rem = rest
		v := elem.Value()
		if _, data, ok := v.BinaryOK(); ok {
			name := ""
			if names != nil {
				name = names.String(elem.KeyBytes())
			} else {
				name = elem.Key()
			}
			dst = append(dst, adapters.Field{Name: name, Value: data})
			continue
		}
		if s, ok := v.StringValueOK(); ok && bytes.Equal(elem.KeyBytes(), []byte("_id")) {
			id = s
		}
	}
	return dst, id, nil
}
