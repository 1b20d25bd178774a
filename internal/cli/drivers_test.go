package cli

import (
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"

	// The adapters and workloads benchtop's main links in
	// (TestDriversAsMain keeps the two lists one).
	_ "benchtop/adapters/cassandra"
	_ "benchtop/adapters/dynamodb"
	_ "benchtop/adapters/hbase"
	_ "benchtop/adapters/influx"
	_ "benchtop/adapters/kafka"
	_ "benchtop/adapters/memory"
	_ "benchtop/adapters/mongodb"
	_ "benchtop/adapters/mysql"
	_ "benchtop/adapters/nats"
	_ "benchtop/adapters/null"
	_ "benchtop/adapters/postgres"
	_ "benchtop/adapters/redis"
	_ "benchtop/adapters/sim"
	_ "benchtop/workload/stream"
	_ "benchtop/workload/timeseries"
	_ "benchtop/workload/ycsb"
)

// The tests run commands as the binary does: with the adapters and
// workloads that main.go links in, no more, no fewer.
func TestDriversAsMain(t *testing.T) {
	t.Parallel()
	blank := func(path string) []string {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, im := range f.Imports {
			if im.Name != nil && im.Name.Name == "_" {
				p, _ := strconv.Unquote(im.Path.Value)
				out = append(out, p)
			}
		}
		slices.Sort(out)
		return out
	}
	main, here := blank("../../main.go"), blank("drivers_test.go")
	if len(main) == 0 || !slices.Equal(main, here) {
		t.Errorf("main.go links in %v, the tests %v", main, here)
	}
}
