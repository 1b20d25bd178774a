package dynamodb

import (
	"strings"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"benchtop/adapters"
)

// scratch holds what one single-item operation hands the SDK: the key
// map, expression names and values, the item, and the attribute values
// they point to. The SDK serializes its input into a request body of its
// own before the call returns and keeps no reference to it (the retryer
// resends that body, not the input), so once the call has returned the
// maps and values are reused by the next operation instead of being
// allocated again.
type scratch struct {
	key   map[string]types.AttributeValue
	keyS  [2]types.AttributeValueMemberS // the key attribute, and the hash key with HASH_AND_RANGE
	names map[string]string
	vals  map[string]types.AttributeValue
	item  map[string]types.AttributeValue
	bs    []types.AttributeValueMemberB
}

var scratchPool = sync.Pool{New: func() any {
	return &scratch{
		key:   make(map[string]types.AttributeValue, 2),
		names: make(map[string]string, 4),
		vals:  make(map[string]types.AttributeValue, 4),
		item:  make(map[string]types.AttributeValue, 16),
	}
}}

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// put clears sc (so that it pins no caller's bytes) and pools it.
func (sc *scratch) put() {
	if cap(sc.bs) > maxPooledFields || len(sc.item) > maxPooledFields {
		return // an unusually wide record: let its maps go
	}
	clear(sc.key)
	clear(sc.names)
	clear(sc.vals)
	clear(sc.item)
	sc.keyS = [2]types.AttributeValueMemberS{}
	clear(sc.bs)
	sc.bs = sc.bs[:0]
	scratchPool.Put(sc)
}

// maxPooledFields bounds the records whose scratch is pooled, so that
// one very wide record does not pin its maps' room for good.
const maxPooledFields = 1024

// primaryKey fills sc.key with the item key for key and returns it.
func (sc *scratch) primaryKey(db *DB, key string) map[string]types.AttributeValue {
	sc.keyS[0].Value = key
	sc.key[db.s.primaryKey] = &sc.keyS[0]
	if db.s.keyType == KeyTypeHashAndRange {
		sc.keyS[1].Value = db.s.hashKeyValue
		sc.key[db.s.hashKeyName] = &sc.keyS[1]
	}
	return sc.key
}

// binary returns n B attribute values in sc, whose addresses stay valid
// until sc is put back.
func (sc *scratch) binary(n int) []types.AttributeValueMemberB {
	if cap(sc.bs) < n {
		sc.bs = make([]types.AttributeValueMemberB, n)
	}
	return sc.bs[:n]
}

// updateExprs are "SET #f0 = :v0, #f1 = :v1, ..." for 1 to len-1 fields.
var updateExprs = func() (e [17]string) {
	for n := 1; n < len(e); n++ {
		e[n] = buildUpdateExpr(n)
	}
	return
}()

func updateExpr(n int) string {
	if n < len(updateExprs) {
		return updateExprs[n]
	}
	return buildUpdateExpr(n)
}

func buildUpdateExpr(n int) string {
	var b strings.Builder
	b.Grow(4 + 12*n)
	b.WriteString("SET ")
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(nameAt(i))
		b.WriteString(" = ")
		b.WriteString(valueAt(i))
	}
	return b.String()
}

// tableName returns a *string holding table that the SDK can be given on
// every call (it only reads it), one per table name.
func (db *DB) tableName(table string) *string {
	if p, ok := db.tables.Load(table); ok {
		return p.(*string)
	}
	s := strings.Clone(table) // the engine's string is only lent
	p, _ := db.tables.LoadOrStore(s, &s)
	return p.(*string)
}

// fieldsSorted is a cmp function for sorting fields by name.
func fieldsSorted(a, b adapters.Field) int { return strings.Compare(a.Name, b.Name) }
