package hbase

import (
	"errors"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/hbase/thrift2"
)

func TestParseConfigDefaults(t *testing.T) {
	c, err := ParseConfig(adapters.Properties{PropColumnFamily: "family"})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Family: "family", WriteBufferSize: 12 << 20, Addr: "127.0.0.1:9090",
		ConnectTimeout: 5 * time.Second, Timeout: 30 * time.Second, MaxIdle: 50 * time.Second,
		BatchSize: 100, ScanPage: 1000, Regions: 8, Table: "usertable",
	}
	if c != want {
		t.Errorf("defaults:\n got %+v\nwant %+v", c, want)
	}
}

func TestParseConfigValues(t *testing.T) {
	c, err := ParseConfig(adapters.Properties{
		PropColumnFamily: "cf", PropDurability: "async_wal", PropClientBuffering: "true", PropWriteBufferSize: "4096",
		PropAddr: "hbase1:9091", PropTransport: "Framed", PropProtocol: "compact", PropPoolSize: "16",
		PropConnectTimeout: "250", PropTimeout: "2s", PropMaxIdle: "10s", PropBatchSize: "50", PropScanPage: "100",
		PropCreateTable: "yes", PropRegions: "16", PropTable: "ns:t",
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Durability == nil || *c.Durability != thrift2.TDurability_ASYNC_WAL || !c.ClientBuffering || c.WriteBufferSize != 4096 ||
		c.Addr != "hbase1:9091" || !c.Framed || !c.Compact || c.PoolSize != 16 || c.ConnectTimeout != 250*time.Millisecond ||
		c.Timeout != 2*time.Second || c.MaxIdle != 10*time.Second || c.BatchSize != 50 || c.ScanPage != 100 ||
		!c.CreateTable || c.Regions != 16 || c.Table != "ns:t" || c.StrictUpdate {
		t.Errorf("parsed %+v", c)
	}
}

// Creating the table may outlast the default open bound and an
// operation's timeout (CI: an 8-region table not created in 30 s).
func TestCreateTableBounds(t *testing.T) {
	for _, c := range []struct {
		props  adapters.Properties
		create time.Duration // Config.createTimeout
		open   time.Duration // the driver's open bound; 0: the default
	}{
		{adapters.Properties{PropColumnFamily: "f"}, 5 * time.Minute, 0},
		{adapters.Properties{PropColumnFamily: "f", PropCreateTable: "true"}, 5 * time.Minute, 5*time.Minute + adapters.DefaultOpenTimeout},
		{adapters.Properties{PropColumnFamily: "f", PropCreateTable: "true", PropTimeout: "10m"}, 10 * time.Minute, 10*time.Minute + adapters.DefaultOpenTimeout},
		{adapters.Properties{PropColumnFamily: "f", PropCreateTable: "maybe"}, 0, 0}, // refused by Open
	} {
		cfg, _ := ParseConfig(c.props)
		if got := openTimeout(c.props); got != c.open || (c.create > 0 && cfg.createTimeout() != c.create) {
			t.Errorf("%v: open bound %v, creation %v; want %v and %v", c.props, got, cfg.createTimeout(), c.open, c.create)
		}
	}
	if got := adapters.OpenTimeout("hbase", adapters.Properties{PropColumnFamily: "f", PropCreateTable: "true"}); got != 5*time.Minute+adapters.DefaultOpenTimeout {
		t.Errorf("registry's open bound for hbase.createtable=true: %v", got)
	}
}

func TestStrictUpdateFollowsDataIntegrity(t *testing.T) {
	for _, tc := range []struct {
		props adapters.Properties
		want  bool
	}{
		{adapters.Properties{}, false},
		{adapters.Properties{PropDataIntegrity: "true"}, true},
		{adapters.Properties{PropDataIntegrity: "true", PropStrictUpdate: "false"}, false},
		{adapters.Properties{PropStrictUpdate: "true"}, true},
	} {
		tc.props[PropColumnFamily] = "f"
		c, err := ParseConfig(tc.props)
		if err != nil || c.StrictUpdate != tc.want {
			t.Errorf("%v: StrictUpdate %v, %v; want %v", tc.props, c.StrictUpdate, err, tc.want)
		}
	}
}

func TestParseConfigRejects(t *testing.T) {
	for _, tc := range []struct{ key, value string }{
		{PropColumnFamily, ""}, {PropColumnFamily, "  "},
		{PropDurability, "SOMETIMES"}, {PropClientBuffering, "maybe"}, {PropWriteBufferSize, "0"},
		{PropAddr, "nohostport"}, {PropAddr, ":9090"}, {PropTransport, "http"}, {PropProtocol, "json"},
		{PropPoolSize, "-1"}, {PropConnectTimeout, "0"}, {PropTimeout, "soon"}, {PropMaxIdle, "-5s"},
		{PropBatchSize, "0"}, {PropScanPage, "x"}, {PropStrictUpdate, "perhaps"}, {PropCreateTable, "2"},
		{PropRegions, "0"},
	} {
		props := adapters.Properties{PropColumnFamily: "family", tc.key: tc.value}
		_, err := ParseConfig(props)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key {
			t.Errorf("%s=%q: %v, want a ConfigError naming %s", tc.key, tc.value, err, tc.key)
		}
	}
	// columnfamily is required, as in YCSB.
	_, err := ParseConfig(adapters.Properties{})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != PropColumnFamily || !strings.Contains(ce.Allowed, "required") {
		t.Errorf("no columnfamily: %v, want a ConfigError saying it is required", err)
	}
	// A buffered put cannot be a checked update.
	_, err = ParseConfig(adapters.Properties{PropColumnFamily: "f", PropClientBuffering: "true", PropStrictUpdate: "true"})
	if !errors.As(err, &ce) || ce.Key != PropStrictUpdate {
		t.Errorf("clientbuffering with strictupdate: %v, want a ConfigError", err)
	}
}

func TestTableName(t *testing.T) {
	if n := tableName("usertable"); n.Ns != nil || string(n.Qualifier) != "usertable" {
		t.Errorf("tableName(usertable) = %+v", n)
	}
	if n := tableName("ns:t"); string(n.Ns) != "ns" || string(n.Qualifier) != "t" {
		t.Errorf("tableName(ns:t) = %+v", n)
	}
}

// The split keys cut YCSB's hashed keys (user + a non-negative 63-bit
// number in decimal) into regions of about equal size.
func TestSplitKeysSpreadHashedKeys(t *testing.T) {
	if SplitKeys(1) != nil {
		t.Error("SplitKeys(1) is not empty")
	}
	for _, regions := range []int{2, 8, 32} {
		splits := SplitKeys(regions)
		if len(splits) != regions-1 {
			t.Fatalf("SplitKeys(%d): %d keys, want %d", regions, len(splits), regions-1)
		}
		strs := make([]string, len(splits))
		for i, s := range splits {
			strs[i] = string(s)
		}
		if !sort.StringsAreSorted(strs) {
			t.Fatalf("SplitKeys(%d) not sorted: %q", regions, strs)
		}
		counts := make([]int, regions)
		r := rand.New(rand.NewPCG(1, 2))
		const n = 100000
		for range n {
			key := "user" + strconv.FormatInt(r.Int64(), 10)
			counts[sort.SearchStrings(strs, key+"\x00")]++
		}
		for i, c := range counts {
			share := float64(c) * float64(regions) / n
			if share < 0.8 || share > 1.2 {
				t.Errorf("SplitKeys(%d): region %d holds %.2f of an even share (%v)", regions, i, share, strs)
			}
		}
	}
}

func TestLendIsTheStringsBytes(t *testing.T) {
	for _, s := range []string{"", "k", "user1234"} {
		b := lend(s)
		if b == nil || string(b) != s {
			t.Errorf("lend(%q) = %q (nil %v), want the same bytes, never nil", s, b, b == nil)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = lend("user1234") }); n != 0 {
		t.Errorf("lend allocates %v times, want 0", n)
	}
}
