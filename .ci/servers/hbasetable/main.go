// Command hbasetable creates a table through HBase's Thrift2 gateway,
// waiting until HBase accepts it: .ci/servers/hbase.sh runs it once the
// gateway listens, as its readiness test (the hbase shell needs a JRuby jar
// that the script does not fetch).
//
//	go run ./.ci/servers/hbasetable -addr 127.0.0.1:9090 -table usertable -family family -regions 8 -wait 180s
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/hbase"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9090", "Thrift2 gateway host:port")
	table := flag.String("table", "usertable", "table to create")
	family := flag.String("family", "family", "its column family")
	regions := flag.Int("regions", 8, "regions to pre-split it into")
	wait := flag.Duration("wait", 3*time.Minute, "how long to keep trying")
	flag.Parse()
	if *regions < 1 || *regions > 1000 {
		fmt.Fprintf(os.Stderr, "hbasetable: -regions %d: allowed 1 to 1000\n", *regions)
		os.Exit(2)
	}
	t0 := time.Now()
	if err := waitCreate(*addr, *table, *family, *regions, *wait); err != nil {
		fmt.Fprintf(os.Stderr, "hbasetable: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "hbasetable: table %s (family %s, %d regions) ready after %v\n", *table, *family, *regions, time.Since(t0).Round(100*time.Millisecond))
}

// waitCreate opens the adapter with hbase.createtable=true until it works
// or wait has passed: a freshly started HBase refuses (PleaseHoldException
// and the like) until its master has initialised.
func waitCreate(addr, table, family string, regions int, wait time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	props := adapters.Properties{
		hbase.PropAddr: addr, hbase.PropTable: table, hbase.PropColumnFamily: family,
		hbase.PropCreateTable: "true", hbase.PropRegions: strconv.Itoa(regions),
		hbase.PropTimeout: "60s",
	}
	for {
		db, err := hbase.Open(ctx, props)
		if err == nil {
			return db.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("gave up after %v: %w", wait, errors.Join(err, ctx.Err()))
		case <-time.After(time.Second):
		}
	}
}
