package hbase

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/hbase/thrift2"
)

// SplitKeys returns the regions-1 row keys that split YCSB's key space
// into regions ranges holding about equal numbers of keys. YCSB's keys
// (insertorder=hashed, the default) are "user" followed by a 64-bit FNV
// hash made non-negative, in decimal: a number spread evenly over 0 to
// 2^63-1, whose strings sort by their leading digits (90 % have 19 digits,
// 9 % have 18). Each split is the shortest "user" + digits prefix (4
// digits; 6 beyond 100 regions) at which the share of keys sorting below
// it reaches i/regions. Ordered keys (insertorder=ordered) are not spread
// by these splits.
func SplitKeys(regions int) [][]byte {
	if regions <= 1 {
		return nil
	}
	digits := 4
	if regions > 100 {
		digits = 6
	}
	lo, hi := int64(math.Pow10(digits-1)), int64(math.Pow10(digits))-1
	keys := make([][]byte, 0, regions-1)
	for i := 1; i < regions; i++ {
		target := float64(i) / float64(regions)
		q := lo + int64(sort.Search(int(hi-lo+1), func(j int) bool { return shareBelow(lo+int64(j), digits) >= target }))
		key := []byte("user" + strconv.FormatInt(q, 10))
		if len(keys) > 0 && string(keys[len(keys)-1]) >= string(key) {
			continue
		}
		keys = append(keys, key)
	}
	return keys
}

// shareBelow is the share of numbers in 0..2^63-1 whose decimal string
// sorts below the digits of q (which has the given number of digits):
// for every length L >= digits, those of length L whose first digits
// are less than q. Shorter numbers are too few to matter.
func shareBelow(q int64, digits int) float64 {
	const top = float64(math.MaxInt64)
	var n float64
	for l := digits; l <= 19; l++ {
		first := math.Pow10(l - 1)
		last := math.Min(math.Pow10(l)-1, top)
		below := float64(q)*math.Pow10(l-digits) - first
		n += math.Max(0, math.Min(below, last-first+1))
	}
	return n / top
}

// createTableWait is the least time the creation of a table may take: the
// gateway's call returns once HBase's master has created and assigned
// every region, which on a busy cluster (or a master queueing other
// tables' creation) takes longer than an operation's 30 s. HBase's own
// client waits up to 10 minutes (hbase.client.sync.wait.timeout.msec).
const createTableWait = 5 * time.Minute

// createTimeout is how long the creation of a table may take:
// createTableWait, or hbase.thrift.timeout when that is longer.
func (c Config) createTimeout() time.Duration { return max(createTableWait, c.Timeout) }

// openTimeout is the driver's bound on Open (adapters.Driver.OpenTimeout):
// longer than the default only when Open creates the table.
func openTimeout(props adapters.Properties) time.Duration {
	cfg, err := ParseConfig(props)
	if err != nil || !cfg.CreateTable {
		return 0
	}
	return adapters.DefaultOpenTimeout + cfg.createTimeout()
}

// CreateTable creates table with the adapter's column family, pre-split
// into regions regions (SplitKeys), unless it exists. Creation is
// synchronous in the gateway, and may take Config.createTimeout.
func (db *DB) CreateTable(ctx context.Context, table string, regions int) error {
	name := tableName(table)
	var exists bool
	err := db.call(ctx, func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		var err error
		exists, err = c.TableExists(ctx, name)
		return err
	})
	if err != nil {
		return fmt.Errorf("does table %q exist: %w", table, classify(err))
	}
	if exists {
		return nil
	}
	desc := &thrift2.TTableDescriptor{
		TableName: name,
		Columns:   []*thrift2.TColumnFamilyDescriptor{{Name: db.family}},
	}
	err = db.callWithin(ctx, db.cfg.createTimeout(), func(ctx context.Context, c *thrift2.THBaseServiceClient) error {
		return c.CreateTable(ctx, desc, SplitKeys(regions))
	})
	if err != nil {
		return fmt.Errorf("create table %q (family %q, %d regions): %w", table, db.cfg.Family, regions, classify(err))
	}
	return nil
}
