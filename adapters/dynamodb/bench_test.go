package dynamodb

import (
	"testing"

	"benchtop/adapters/adaptertest"
)

// BenchmarkOps is the adapter's cost per single operation against the
// real server (BENCHTOP_DYNAMODB_ENDPOINT), on a fresh hash-keyed table
// dropped at the end: allocs/op and the client's cpu-us/op.
//
//	go test -run x -bench Ops -benchmem ./adapters/dynamodb/
func BenchmarkOps(b *testing.B) {
	table := testTable("bench")
	adaptertest.BenchOps(b, openTest(b, table, nil), adaptertest.BenchOptions{Table: table})
}
