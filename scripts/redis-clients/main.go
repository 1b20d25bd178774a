// Command redis-clients measures client CPU and allocations per one-field
// HGETALL from 16 goroutines for three ways of talking to Redis: the
// benchtop redis adapter with its lean client (redis.client=benchtop, the
// default), the same adapter on go-redis (redis.client=go-redis), and
// github.com/redis/rueidis, with auto-pipelining off (one request at a
// time per connection, as the others) and on (requests of several
// goroutines share a connection's writes: a different thing to measure,
// shown for scale). rueidis speaks RESP2 here, as the lean client does, and each reply is turned into []adapters.Field, as
// an adapter on it would. A separate module, so that benchtop does not
// depend on rueidis:
//
//	cd scripts/redis-clients && go run . -addr 127.0.0.1:6379 -rounds 3
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/redis/rueidis"

	"benchtop/adapters"
	"benchtop/adapters/redis"
)

type readFunc func(ctx context.Context, key string, dst []adapters.Field) ([]adapters.Field, error)

func main() {
	addr := flag.String("addr", "127.0.0.1:6379", "Redis server")
	n := flag.Int("n", 200000, "reads per client and round")
	conc := flag.Int("c", 16, "goroutines (and connections)")
	rounds := flag.Int("rounds", 3, "rounds, the clients alternating in each")
	flag.Parse()
	ctx := context.Background()
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "rc-" + strconv.Itoa(i)
	}
	clients := []string{"benchtop", "go-redis", "rueidis", "rueidis-autopipelining"}
	reads := map[string]readFunc{}
	for _, name := range clients[:2] {
		db, err := redis.Open(ctx, adapters.Properties{"redis.addr": *addr, "redis.client": name, "redis.strict": "false", "redis.index": "false"})
		if err != nil {
			fail(err)
		}
		defer db.Close()
		reads[name] = func(ctx context.Context, key string, dst []adapters.Field) ([]adapters.Field, error) {
			return db.Read(ctx, "usertable", key, nil, dst)
		}
		if name == "benchtop" {
			for _, k := range keys {
				if err := db.Insert(ctx, "usertable", k, []adapters.Field{{Name: "field0", Value: make([]byte, 100)}}); err != nil {
					fail(err)
				}
			}
		}
	}
	for _, name := range clients[2:] {
		c, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{*addr}, DisableCache: true, AlwaysRESP2: true,
			DisableAutoPipelining: name == "rueidis", BlockingPoolSize: *conc})
		if err != nil {
			fail(err)
		}
		defer c.Close()
		reads[name] = func(ctx context.Context, key string, dst []adapters.Field) ([]adapters.Field, error) {
			m, err := c.Do(ctx, c.B().Hgetall().Key("usertable:"+key).Build()).ToArray()
			if err != nil {
				return dst, err
			}
			for i := 0; i+1 < len(m); i += 2 {
				name, err := m[i].ToString()
				if err != nil {
					return dst, err
				}
				v, err := m[i+1].AsBytes()
				if err != nil {
					return dst, err
				}
				dst = append(dst, adapters.Field{Name: name, Value: v})
			}
			return dst, nil
		}
	}
	fmt.Printf("%d goroutines, %d one-field HGETALLs per run; load average %s\n", *conc, *n, loadavg())
	fmt.Printf("%-24s %5s %10s %12s %10s\n", "client", "round", "ops/s", "cpu-us/op", "allocs/op")
	for r := 1; r <= *rounds; r++ {
		for _, name := range clients {
			ops, cpu, allocs := run(reads[name], keys, *n, *conc)
			fmt.Printf("%-24s %5d %10.0f %12.2f %10.1f\n", name, r, ops, cpu, allocs)
		}
	}
	fmt.Printf("load average after: %s\n", loadavg())
}

func run(read readFunc, keys []string, n, conc int) (ops, cpuUs, allocs float64) {
	ctx := context.Background()
	if _, err := read(ctx, keys[0], nil); err != nil {
		fail(err)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	c0, t0 := cpu(), time.Now()
	for range conc {
		wg.Go(func() {
			dst := make([]adapters.Field, 0, 4)
			var err error
			for i := int(next.Add(1)); i <= n; i = int(next.Add(1)) {
				if dst, err = read(ctx, keys[i%len(keys)], dst[:0]); err != nil || len(dst) != 1 {
					fail(fmt.Errorf("read: %v (%d fields)", err, len(dst)))
				}
			}
		})
	}
	wg.Wait()
	el, c1 := time.Since(t0), cpu()
	runtime.ReadMemStats(&m1)
	return float64(n) / el.Seconds(), float64(c1-c0) / 1e3 / float64(n), float64(m1.Mallocs-m0.Mallocs) / float64(n)
}

// cpu is the process's user+sys CPU time so far, in ns.
func cpu() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) > 3 {
		f = f[:3]
	}
	return strings.Join(f, " ")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "redis-clients:", err)
	os.Exit(1)
}
