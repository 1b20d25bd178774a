package hbase

import (
	"testing"

	"benchtop/adapters/adaptertest"
)

// BenchmarkOps is the adapter's cost per single operation against the
// real gateway (BENCHTOP_HBASE_THRIFT), in the shared usertable (its rows
// are deleted at the end): allocs/op and the client's cpu-us/op.
//
//	go test -run x -bench Ops -benchmem ./adapters/hbase/
func BenchmarkOps(b *testing.B) {
	adaptertest.BenchOps(b, openTestServer(b), adaptertest.BenchOptions{Cleanup: true})
}
