package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"benchtop/adapters"
)

// Batch writes: DynamoDB takes at most 25 put requests per BatchWriteItem.
// Items it leaves unprocessed (throttling, partition limits) are sent again
// after an exponential backoff with jitter, a bounded number of times.
const (
	batchSize        = 25
	batchRetries     = 8
	batchBackoffBase = 50 * time.Millisecond
	batchBackoffMax  = 2 * time.Second
)

// errUnprocessed is wrapped when BatchWriteItem keeps leaving items behind.
var errUnprocessed = errors.New("items left unprocessed (throttled)")

// keyPH is the expression placeholder of the key attribute (the range key
// with HASH_AND_RANGE) and hashPH that of the hash key.
const (
	keyPH     = "#k"
	hashPH    = "#h"
	hashValPH = ":h"
	startPH   = ":s"
)

// primaryKeyAV builds the item key for key. The engine's key string is
// only valid during the call; the SDK serializes the request before the
// call returns, so no copy is needed.
func (db *DB) primaryKeyAV(key string) map[string]types.AttributeValue {
	if db.s.keyType == KeyTypeHashAndRange {
		return map[string]types.AttributeValue{
			db.s.hashKeyName: &types.AttributeValueMemberS{Value: db.s.hashKeyValue},
			db.s.primaryKey:  &types.AttributeValueMemberS{Value: key},
		}
	}
	return map[string]types.AttributeValue{db.s.primaryKey: &types.AttributeValueMemberS{Value: key}}
}

// projection returns a ProjectionExpression for fields plus the key
// attribute (so that an existing item is never returned empty), with every
// name behind a placeholder: field names may be reserved words.
func (db *DB) projection(fields []string, names map[string]string) string {
	var b strings.Builder
	b.Grow(4 + 5*len(fields))
	b.WriteString(keyPH)
	names[keyPH] = db.s.primaryKey
	for i, f := range fields {
		ph := nameAt(i)
		b.WriteString(", ")
		b.WriteString(ph)
		names[ph] = f
	}
	return b.String()
}

// appendFields appends the item's field attributes (all but the key
// attributes and the TTL attribute, which is the adapter's own and no
// field: dataintegrity would count it as a field nobody wrote) to dst,
// sorted by name. Names and values come from the
// decoded response and belong to the caller.
func (db *DB) appendFields(dst []adapters.Field, item map[string]types.AttributeValue) []adapters.Field {
	start := len(dst)
	for name, av := range item {
		if name == db.s.primaryKey || (db.s.keyType == KeyTypeHashAndRange && name == db.s.hashKeyName) || (db.s.ttlKey != "" && name == db.s.ttlKey) {
			continue
		}
		if v, ok := attributeBytes(av); ok {
			dst = append(dst, adapters.Field{Name: name, Value: v})
		}
	}
	if added := dst[start:]; len(added) > 1 {
		slices.SortFunc(added, fieldsSorted)
	}
	return dst
}

// attributeBytes returns a field value: B as it is; S and N (as YCSB's
// Java binding writes S) as their bytes.
func attributeBytes(av types.AttributeValue) ([]byte, bool) {
	switch v := av.(type) {
	case *types.AttributeValueMemberB:
		return v.Value, true
	case *types.AttributeValueMemberS:
		return []byte(v.Value), true
	case *types.AttributeValueMemberN:
		return []byte(v.Value), true
	}
	return nil, false
}

// itemKey is the benchtop key of a returned item.
func (db *DB) itemKey(item map[string]types.AttributeValue) (string, bool) {
	s, ok := item[db.s.primaryKey].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return s.Value, true
}

// Read implements adapters.DB with GetItem.
func (db *DB) Read(ctx context.Context, table, key string, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	sc := getScratch()
	in := &dynamodb.GetItemInput{
		TableName:      db.tableName(table),
		Key:            sc.primaryKey(db, key),
		ConsistentRead: db.consistent,
	}
	if fields != nil {
		in.ExpressionAttributeNames = sc.names
		in.ProjectionExpression = aws.String(db.projection(fields, in.ExpressionAttributeNames))
	}
	out, err := db.client.GetItem(ctx, in)
	sc.put()
	if err != nil {
		return dst, db.fail(fmt.Errorf("dynamodb: read %q: %w", key, classify(err)))
	}
	n := len(dst)
	if len(out.Item) > 0 {
		dst = db.appendFields(dst, out.Item)
	}
	if len(out.Item) == 0 || (len(fields) > 0 && len(dst) == n) {
		// No item, or one holding none of the fields asked for (the key
		// attributes are no fields): not found, the adapters' contract.
		return dst, db.fail(fmt.Errorf("dynamodb: read %q: %w", key, adapters.ErrNotFound))
	}
	return dst, nil
}

// Update implements adapters.DB with one UpdateItem "SET" of all the given
// fields. Like YCSB's binding, it creates a missing item (an upsert).
func (db *DB) Update(ctx context.Context, table, key string, values []adapters.Field) error {
	if len(values) == 0 {
		return nil
	}
	sc := getScratch()
	bs := sc.binary(len(values))
	for i, f := range values {
		bs[i].Value = f.Value
		sc.names[nameAt(i)] = f.Name
		sc.vals[valueAt(i)] = &bs[i]
	}
	_, err := db.client.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                 db.tableName(table),
		Key:                       sc.primaryKey(db, key),
		UpdateExpression:          aws.String(updateExpr(len(values))),
		ExpressionAttributeNames:  sc.names,
		ExpressionAttributeValues: sc.vals,
	})
	sc.put()
	if err != nil {
		return db.fail(fmt.Errorf("dynamodb: update %q: %w", key, classify(err)))
	}
	return nil
}

// item builds a whole item: key attributes, fields as B, and the TTL
// attribute when dynamodb.ttlKey is set. With sc, the item is sc's;
// without (a batch, whose items live together), a new one.
func (db *DB) item(sc *scratch, key string, values []adapters.Field) map[string]types.AttributeValue {
	var it map[string]types.AttributeValue
	var bs []types.AttributeValueMemberB
	if sc != nil {
		it, bs = sc.item, sc.binary(len(values))
	} else {
		it, bs = make(map[string]types.AttributeValue, len(values)+3), make([]types.AttributeValueMemberB, len(values))
	}
	for i, f := range values {
		bs[i].Value = f.Value
		it[f.Name] = &bs[i]
	}
	if sc != nil {
		for k, v := range sc.primaryKey(db, key) {
			it[k] = v
		}
	} else {
		it[db.s.primaryKey] = &types.AttributeValueMemberS{Value: key}
		if db.s.keyType == KeyTypeHashAndRange {
			it[db.s.hashKeyName] = &types.AttributeValueMemberS{Value: db.s.hashKeyValue}
		}
	}
	if db.s.ttlKey != "" {
		// A number of epoch seconds, which DynamoDB's TTL needs (YCSB
		// writes a string, which TTL ignores).
		exp := time.Now().Add(db.s.ttlDuration).Unix()
		it[db.s.ttlKey] = &types.AttributeValueMemberN{Value: strconv.FormatInt(exp, 10)}
	}
	return it
}

// Insert implements adapters.DB with PutItem (which replaces an existing
// item).
func (db *DB) Insert(ctx context.Context, table, key string, values []adapters.Field) error {
	sc := getScratch()
	_, err := db.client.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: db.tableName(table),
		Item:      db.item(sc, key, values),
	})
	sc.put()
	if err != nil {
		return db.fail(fmt.Errorf("dynamodb: insert %q: %w", key, classify(err)))
	}
	return nil
}

// Delete implements adapters.DB with DeleteItem. A missing key is not an
// error (DeleteItem is idempotent, and asking for the old item would make
// it a read-modify-write on Alternator).
func (db *DB) Delete(ctx context.Context, table, key string) error {
	sc := getScratch()
	_, err := db.client.DeleteItem(ctx, &dynamodb.DeleteItemInput{
		TableName: db.tableName(table),
		Key:       sc.primaryKey(db, key),
	})
	sc.put()
	if err != nil {
		return db.fail(fmt.Errorf("dynamodb: delete %q: %w", key, classify(err)))
	}
	return nil
}

// Scan implements adapters.DB. On a hash-keyed table it does what YCSB's
// binding does: GetItem of startKey (Scan's ExclusiveStartKey excludes it),
// then Scan from ExclusiveStartKey=startKey with Limit, which returns the
// items after startKey in the table's hash order, not in key order. With
// HASH_AND_RANGE it is a Query "range key >= startKey" under the one hash
// key value, in key order.
func (db *DB) Scan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	if count <= 0 {
		return dst, nil
	}
	var err error
	if db.s.keyType == KeyTypeHashAndRange {
		dst, err = db.query(ctx, table, startKey, count, fields, dst)
	} else {
		dst, err = db.hashScan(ctx, table, startKey, count, fields, dst)
	}
	if err != nil {
		return dst, db.fail(fmt.Errorf("dynamodb: scan %d from %q: %w", count, startKey, err))
	}
	return dst, nil
}

func (db *DB) hashScan(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	var names map[string]string
	var proj *string
	if fields != nil {
		names = make(map[string]string, len(fields)+1)
		proj = aws.String(db.projection(fields, names))
	}
	start := len(dst)
	startAV := db.primaryKeyAV(startKey)
	got, err := db.client.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(table),
		Key:                      startAV,
		ConsistentRead:           aws.Bool(db.s.consistentReads),
		ProjectionExpression:     proj,
		ExpressionAttributeNames: names,
	})
	if err != nil {
		return dst, classify(err)
	}
	if len(got.Item) > 0 {
		dst = db.appendRecord(dst, got.Item)
	}
	esk := startAV
	for len(dst)-start < count {
		out, err := db.client.Scan(ctx, &dynamodb.ScanInput{
			TableName:                aws.String(table),
			ExclusiveStartKey:        esk,
			Limit:                    aws.Int32(int32(min(count-(len(dst)-start), 1<<30))),
			ConsistentRead:           aws.Bool(db.s.consistentReads),
			ProjectionExpression:     proj,
			ExpressionAttributeNames: names,
		})
		if err != nil {
			return dst, classify(err)
		}
		for _, it := range out.Items {
			dst = db.appendRecord(dst, it)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break // the end of the table
		}
		esk = out.LastEvaluatedKey
	}
	return dst, nil
}

func (db *DB) query(ctx context.Context, table, startKey string, count int, fields []string, dst []adapters.Record) ([]adapters.Record, error) {
	names := make(map[string]string, len(fields)+2)
	names[keyPH] = db.s.primaryKey
	names[hashPH] = db.s.hashKeyName
	var proj *string
	if fields != nil {
		proj = aws.String(db.projection(fields, names))
	}
	in := &dynamodb.QueryInput{
		TableName:              aws.String(table),
		KeyConditionExpression: aws.String(hashPH + " = " + hashValPH + " AND " + keyPH + " >= " + startPH),
		ExpressionAttributeValues: map[string]types.AttributeValue{
			hashValPH: &types.AttributeValueMemberS{Value: db.s.hashKeyValue},
			startPH:   &types.AttributeValueMemberS{Value: startKey},
		},
		ExpressionAttributeNames: names,
		ProjectionExpression:     proj,
		ConsistentRead:           aws.Bool(db.s.consistentReads),
	}
	start := len(dst)
	for len(dst)-start < count {
		in.Limit = aws.Int32(int32(min(count-(len(dst)-start), 1<<30)))
		out, err := db.client.Query(ctx, in)
		if err != nil {
			return dst, classify(err)
		}
		for _, it := range out.Items {
			dst = db.appendRecord(dst, it)
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	return dst, nil
}

func (db *DB) appendRecord(dst []adapters.Record, item map[string]types.AttributeValue) []adapters.Record {
	k, ok := db.itemKey(item)
	if !ok {
		return dst // not one of ours: no string key attribute
	}
	return append(dst, adapters.Record{Key: k, Fields: db.appendFields(nil, item)})
}

// BatchSize implements adapters.BatchInserter: BatchWriteItem's limit.
func (db *DB) BatchSize() int { return batchSize }

// InsertBatch implements adapters.BatchInserter with BatchWriteItem, 25
// items per request; unprocessed items are retried with a bounded
// exponential backoff. A key must not appear twice in one call.
func (db *DB) InsertBatch(ctx context.Context, table string, records []adapters.Record) error {
	for len(records) > 0 {
		n := min(batchSize, len(records))
		if err := db.writeBatch(ctx, table, records[:n]); err != nil {
			return db.fail(err)
		}
		records = records[n:]
	}
	return nil
}

func (db *DB) writeBatch(ctx context.Context, table string, records []adapters.Record) error {
	reqs := make([]types.WriteRequest, len(records))
	for i, r := range records {
		reqs[i] = types.WriteRequest{PutRequest: &types.PutRequest{Item: db.item(nil, r.Key, r.Fields)}}
	}
	pending := map[string][]types.WriteRequest{table: reqs}
	for retry := 0; ; retry++ {
		out, err := db.client.BatchWriteItem(ctx, &dynamodb.BatchWriteItemInput{RequestItems: pending})
		if err != nil {
			return fmt.Errorf("dynamodb: batch insert of %d records from %q: %w", len(records), records[0].Key, classify(err))
		}
		left := 0
		for _, l := range out.UnprocessedItems {
			left += len(l)
		}
		if left == 0 {
			return nil
		}
		if retry == batchRetries {
			return fmt.Errorf("dynamodb: batch insert of %d records from %q: %d still unprocessed after %d retries: %w",
				len(records), records[0].Key, left, retry, adapters.WithKind(adapters.KindThrottled, errUnprocessed))
		}
		if err := sleep(ctx, backoff(retry, db.batchBase)); err != nil {
			return fmt.Errorf("dynamodb: batch insert of %d records from %q: %d unprocessed: %w", len(records), records[0].Key, left, err)
		}
		pending = out.UnprocessedItems
	}
}

// backoff is the delay before retry n (0-based): base·2^n capped, with
// "equal jitter" (half fixed, half random) so that retries spread out.
func backoff(n int, base time.Duration) time.Duration {
	d := base << min(n, 16)
	if d > batchBackoffMax || d <= 0 {
		d = batchBackoffMax
	}
	return d/2 + rand.N(d/2+1)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
