package mongodb

import (
	"testing"

	"benchtop/adapters/adaptertest"
)

// BenchmarkOps is the adapter's cost per single operation against the
// real server (BENCHTOP_MONGODB_URL), on a fresh database dropped at the
// end: allocs/op and the client's cpu-us/op.
//
//	go test -run x -bench Ops -benchmem ./adapters/mongodb/
func BenchmarkOps(b *testing.B) {
	adaptertest.BenchOps(b, openTest(b, nil), adaptertest.BenchOptions{})
}
