package dynamodb

import (
	"testing"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

// The shared conformance suite, on a hash-keyed table (unordered scans) and
// on a HASH_AND_RANGE table (ordered scans through Query).

func TestIntegrationConformance(t *testing.T) {
	table := testTable("conformance")
	db := openTest(t, table, nil)
	adaptertest.Run(t, db, adaptertest.Options{Table: table})
}

func TestIntegrationConformanceHashAndRange(t *testing.T) {
	table := testTable("conformance_hr")
	db := openTest(t, table, adapters.Properties{
		"dynamodb.primaryKeyType": "HASH_AND_RANGE",
		"dynamodb.hashKeyName":    "hashkey",
	})
	adaptertest.Run(t, db, adaptertest.Options{Table: table})
}
