package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

// redis.client=go-redis keeps every operation on go-redis; it passes the
// same suite.
func TestClientGoRedisConformance(t *testing.T) {
	base := openTestServer(t)
	db, err := openWith(t, adapters.Properties{"redis.addr": base.cfg.Addr, "redis.password": base.cfg.Password, "redis.client": "go-redis"})
	if err != nil {
		t.Fatal(err)
	}
	if db.lean != nil {
		t.Fatal("redis.client=go-redis opened the lean client")
	}
	adaptertest.Run(t, db, adaptertest.Options{})
}

func openLean(t *testing.T, poolsize int) (*DB, *DB) {
	t.Helper()
	base := openTestServer(t)
	db, err := openWith(t, adapters.Properties{"redis.addr": base.cfg.Addr, "redis.password": base.cfg.Password, "redis.poolsize": fmt.Sprint(poolsize)})
	if err != nil {
		t.Fatal(err)
	}
	if db.lean == nil {
		t.Fatal("the default client is not the lean one")
	}
	return base, db
}

// An error reply (WRONGTYPE) is the operation's error, and the connection
// stays in the pool, in step with the server: the next reads on it get
// their own replies.
func TestLeanServerErrorKeepsConnection(t *testing.T) {
	base, db := openLean(t, 1)
	ctx := context.Background()
	key := fmt.Sprintf("bt-lean-%d", time.Now().UnixNano())
	str := key + "-str"
	if err := base.client.Set(ctx, hashKey("usertable", str), "x", 0).Err(); err != nil {
		t.Fatal(err)
	}
	defer base.client.Del(ctx, hashKey("usertable", str))
	if err := db.Insert(ctx, "usertable", key, []adapters.Field{{Name: "f", Value: []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	defer db.Delete(ctx, "usertable", key)
	if err := base.client.ZAdd(ctx, indexKey("usertable"), goredis.Z{Member: str}).Err(); err != nil {
		t.Fatal(err)
	}
	defer base.client.ZRem(ctx, indexKey("usertable"), str)
	for i := range 3 {
		// The scan's pipeline meets the string key among records: its
		// error, and every other reply read.
		lo := min(key, str)
		if _, err := db.Scan(ctx, "usertable", lo, 2, nil, nil); err == nil || !strings.Contains(err.Error(), "WRONGTYPE") {
			t.Fatalf("Scan over a string key: %v, want WRONGTYPE", err)
		}
		if _, err := db.Read(ctx, "usertable", str, nil, nil); err == nil || adapters.Kind(err) == adapters.KindNotFound {
			t.Fatalf("Read of a string key: %v, want WRONGTYPE", err)
		}
		if err := db.Update(ctx, "usertable", str, []adapters.Field{{Name: "f", Value: []byte("w")}}); err == nil {
			t.Fatal("Update of a string key succeeded")
		}
		got, err := db.Read(ctx, "usertable", key, []string{"f", "g"}, nil)
		if err != nil || len(got) != 1 || got[0].Name != "f" || string(got[0].Value) != "v" {
			t.Fatalf("round %d: Read after an error reply = %+v, %v", i, got, err)
		}
	}
	if open, idle, dials := len(db.lean.slots), len(db.lean.idle), db.lean.dials.Load(); open != 1 || idle != 1 || dials != 1 {
		t.Errorf("%d connections open, %d idle, %d opened; want the one connection kept", open, idle, dials)
	}
}

// No more than redis.poolsize connections are open, however many
// goroutines share the adapter, and all of them go back to the pool.
func TestLeanPoolBounded(t *testing.T) {
	base, db := openLean(t, 2)
	ctx := context.Background()
	key := fmt.Sprintf("bt-lean-pool-%d", time.Now().UnixNano())
	if err := db.Insert(ctx, "usertable", key, []adapters.Field{{Name: "f", Value: []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	defer db.Delete(ctx, "usertable", key)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			for range 50 {
				if _, err := db.Read(ctx, "usertable", key, nil, nil); err != nil {
					errs <- err
					return
				}
				if n := len(db.lean.slots); n > 2 {
					errs <- fmt.Errorf("%d connections open", n)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if open, idle := len(db.lean.slots), len(db.lean.idle); open > 2 || open != idle || open == 0 {
		t.Errorf("%d open, %d idle after the reads; want 1 or 2, all idle", open, idle)
	}
	_ = base
}

// After Close an operation fails as unavailable, without a connection.
func TestLeanClosed(t *testing.T) {
	_, db := openLean(t, 4)
	ctx := context.Background()
	if _, err := db.Read(ctx, "usertable", "nokey", nil, nil); adapters.Kind(err) != adapters.KindNotFound {
		t.Fatalf("Read of a missing key: %v", err)
	}
	db.lean.Close()
	_, err := db.Read(ctx, "usertable", "nokey", nil, nil)
	if !errors.Is(err, errPoolClosed) || adapters.Kind(err) != adapters.KindUnavailable {
		t.Errorf("Read after Close: %v (kind %q)", err, adapters.Kind(err))
	}
	if n := len(db.lean.slots); n != 0 {
		t.Errorf("%d connections still open", n)
	}
}

// A strict update after SCRIPT FLUSH gets NOSCRIPT, sends the script with
// EVAL, and succeeds; so does the next one (EVALSHA again).
func TestLeanUpdateReloadsScript(t *testing.T) {
	base, db := openLean(t, 1)
	db.cfg.Strict = true
	ctx := context.Background()
	key := fmt.Sprintf("bt-lean-script-%d", time.Now().UnixNano())
	if err := db.Insert(ctx, "usertable", key, []adapters.Field{{Name: "f", Value: []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	defer db.Delete(ctx, "usertable", key)
	if err := base.client.ScriptFlush(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"w1", "w2"} {
		if err := db.Update(ctx, "usertable", key, []adapters.Field{{Name: "f", Value: []byte(v)}}); err != nil {
			t.Fatalf("Update after SCRIPT FLUSH: %v", err)
		}
		if got := base.client.HGet(ctx, hashKey("usertable", key), "f").Val(); got != v {
			t.Fatalf("field f = %q, want %q", got, v)
		}
	}
	if err := db.Update(ctx, "usertable", key+"-missing", []adapters.Field{{Name: "f", Value: []byte("x")}}); adapters.Kind(err) != adapters.KindNotFound {
		t.Errorf("Update of a missing record: %v, want not found", err)
	}
	if dials := db.lean.dials.Load(); dials != 1 {
		t.Errorf("%d connections opened, want 1 (NOSCRIPT is an error reply, not a broken connection)", dials)
	}
}
