package dynamodb

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"benchtop/adapters"
)

func TestScratchIsClearedWhenPooled(t *testing.T) {
	db := &DB{s: settings{primaryKey: "key", keyType: KeyTypeHashAndRange, hashKeyName: "h", hashKeyValue: "hv"}}
	sc := getScratch()
	val := []byte("caller's bytes")
	it := db.item(sc, "user1", []adapters.Field{{Name: "field0", Value: val}})
	if len(it) != 3 || string(it["field0"].(*types.AttributeValueMemberB).Value) != "caller's bytes" {
		t.Fatalf("item = %v", it)
	}
	k := sc.primaryKey(db, "user2")
	if len(k) != 2 || k["key"].(*types.AttributeValueMemberS).Value != "user2" || k["h"].(*types.AttributeValueMemberS).Value != "hv" {
		t.Fatalf("key = %v", k)
	}
	sc.put()
	// Whatever the pool hands out next holds nothing of the last call:
	// no caller's bytes are pinned, and no stale attribute can leak into
	// the next request.
	if len(sc.key) != 0 || len(sc.item) != 0 || len(sc.names) != 0 || len(sc.vals) != 0 || len(sc.bs) != 0 || sc.keyS[0].Value != "" {
		t.Errorf("scratch not cleared: key %v item %v bs %d keyS %q", sc.key, sc.item, len(sc.bs), sc.keyS[0].Value)
	}
	if got := updateExpr(2); got != "SET #f0 = :v0, #f1 = :v1" {
		t.Errorf("updateExpr(2) = %q", got)
	}
	if got, want := updateExpr(20), buildUpdateExpr(20); got != want {
		t.Errorf("updateExpr(20) = %q, want %q", got, want)
	}
}
