package redis

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

func openWith(t *testing.T, props adapters.Properties) (*DB, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := Open(ctx, props)
	if err == nil {
		t.Cleanup(func() { db.Close() })
	}
	return db, err
}

// redis.db selects the logical database: the records are there and not
// in database 0.
func TestRedisDB(t *testing.T) {
	base := openTestServer(t)
	db, err := openWith(t, adapters.Properties{"redis.addr": base.cfg.Addr, "redis.password": base.cfg.Password, "redis.db": "7"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	key := fmt.Sprintf("bt-db-%d", time.Now().UnixNano())
	if err := db.Insert(ctx, "usertable", key, []adapters.Field{{Name: "f", Value: []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	defer db.Delete(ctx, "usertable", key)
	raw7 := goredis.NewClient(&goredis.Options{Addr: base.cfg.Addr, Password: base.cfg.Password, DB: 7})
	defer raw7.Close()
	if v := raw7.HGet(ctx, hashKey("usertable", key), "f").Val(); v != "v" {
		t.Errorf("database 7 holds %q, want the record", v)
	}
	if got, err := db.Read(ctx, "usertable", key, nil, nil); err != nil || len(got) != 1 || string(got[0].Value) != "v" {
		t.Errorf("Read from database 7 = %+v, %v", got, err)
	}
	if n := base.client.Exists(ctx, hashKey("usertable", key)).Val(); n != 0 {
		t.Errorf("database 0 holds the record too")
	}
	if d := db.Describe(); d != "redis://"+base.cfg.Addr+"/7" {
		t.Errorf("Describe() = %q", d)
	}
}

// redis.index=false keeps no key index: inserts send no ZADD (the server
// says so), reads and updates work, and a scan says it needs the index.
func TestRedisNoIndex(t *testing.T) {
	base, exact := openStatsServer(t)
	db, err := openWith(t, adapters.Properties{"redis.addr": base.cfg.Addr, "redis.password": base.cfg.Password, "redis.index": "false"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	table := fmt.Sprintf("bt_noindex_%d", time.Now().UnixNano())
	t.Cleanup(func() { dropTable(t, base, table) })
	before := commandStats(t, base.client)
	for i := 0; i < 20; i++ {
		if err := db.Insert(ctx, table, fmt.Sprintf("k%02d", i), []adapters.Field{{Name: "f", Value: []byte("v")}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.InsertBatch(ctx, table, []adapters.Record{{Key: "k20", Fields: []adapters.Field{{Name: "f", Value: []byte("v")}}}}); err != nil {
		t.Fatal(err)
	}
	d := delta(before, commandStats(t, base.client))
	if (exact && d["zadd"] != 0) || !calls(d["hset"], 21, exact) {
		t.Errorf("inserts reached the server as %v; want 21 HSET and no ZADD", d)
	}
	if n := base.client.Exists(ctx, indexKey(table)).Val(); n != 0 {
		t.Errorf("the index key exists")
	}
	if got, err := db.Read(ctx, table, "k20", nil, nil); err != nil || len(got) != 1 {
		t.Errorf("Read = %v, %v", got, err)
	}
	if err := db.Update(ctx, table, "k03", []adapters.Field{{Name: "f", Value: []byte("w")}}); err != nil {
		t.Errorf("Update: %v", err)
	}
	if _, err := db.Scan(ctx, table, "k00", 5, nil, nil); err == nil || !strings.Contains(err.Error(), "redis.index=true") {
		t.Errorf("Scan without the index: %v, want an error naming redis.index=true", err)
	}
}

// redis.password against a server with requirepass (a second server:
// BENCHTOP_REDIS_AUTH_ADDR): no password or a wrong one is refused with an
// error that never shows it; the right one passes the conformance suite.
func TestRedisPassword(t *testing.T) {
	addr, pass := os.Getenv("BENCHTOP_REDIS_AUTH_ADDR"), os.Getenv("BENCHTOP_REDIS_AUTH_PASSWORD")
	if addr == "" || pass == "" {
		t.Skip("no Redis server with a password: run `eval \"$(BENCHTOP_REDIS_PORT=6380 BENCHTOP_REDIS_REQUIREPASS=secret bash .ci/servers/redis.sh start)\"` (sets BENCHTOP_REDIS_AUTH_ADDR and _PASSWORD) to enable")
	}
	for _, wrong := range []string{"", "not-" + pass} {
		_, err := openWith(t, adapters.Properties{"redis.addr": addr, "redis.password": wrong})
		if err == nil {
			t.Fatalf("password %q accepted by a server that requires %q", wrong, pass)
		}
		if strings.Contains(err.Error(), pass) || (wrong != "" && strings.Contains(err.Error(), wrong)) {
			t.Errorf("the error shows the password: %v", err)
		}
		if k := adapters.Kind(err); k == adapters.KindNotFound {
			t.Errorf("refused login classified as %q", k)
		}
	}
	db, err := openWith(t, adapters.Properties{"redis.addr": addr, "redis.password": pass})
	if err != nil {
		t.Fatalf("Open with the password: %v", err)
	}
	if strings.Contains(db.Describe(), pass) {
		t.Errorf("Describe() shows the password: %q", db.Describe())
	}
	adaptertest.Run(t, db, adaptertest.Options{})
}
