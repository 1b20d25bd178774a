package redis

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload/ycsb"
)

// commandStats returns INFO commandstats as command name -> calls.
func commandStats(t *testing.T, c *goredis.Client) map[string]int64 {
	t.Helper()
	info, err := c.Info(context.Background(), "commandstats").Result()
	if err != nil {
		t.Fatalf("INFO commandstats: %v", err)
	}
	out := map[string]int64{}
	for _, line := range strings.Split(info, "\n") {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		for _, kv := range strings.Split(rest, ",") {
			if v, ok := strings.CutPrefix(kv, "calls="); ok {
				n, _ := strconv.ParseInt(v, 10, 64)
				out[strings.TrimPrefix(name, "cmdstat_")] = n
			}
		}
	}
	return out
}

// delta is after - before for each command.
func delta(before, after map[string]int64) map[string]int64 {
	d := map[string]int64{}
	for k, v := range after {
		if n := v - before[k]; n != 0 {
			d[k] = n
		}
	}
	return d
}

var wlHost = host.NewSampler()

// runWorkload runs one phase of a workload through the engine's Runner
// against db and returns its result.
func runWorkload(t *testing.T, command string, props map[string]string, db adapters.DB) *engine.PhaseResult {
	t.Helper()
	cfg, warns, err := engine.NewConfig(command, "redis", props)
	if err != nil {
		t.Fatalf("NewConfig: %v", err)
	}
	if len(warns) > 0 {
		t.Fatalf("warnings: %q", warns)
	}
	r, err := engine.New(cfg, db, engine.Options{Host: wlHost})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := r.Run(ctx)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	if len(res) != 1 {
		t.Fatalf("%s: %d phases, want 1", command, len(res))
	}
	return res[0]
}

// opCount is the number of operations of type op a phase measured and how
// many failed.
func opCount(res *engine.PhaseResult, op int) (all, failed int64) {
	for _, v := range []int{measure.OK, measure.Failed} {
		if h := res.Set.H[measure.Slot(op, v)]; h != nil {
			all += h.TotalCount()
			if v == measure.Failed {
				failed += h.TotalCount()
			}
		}
	}
	return all, failed
}

// The commands each benchtop operation sends (the key index on, the
// default; see kv.go), by default as YCSB's redis binding, and with
// redis.strict=true:
//
//	                    default                      redis.strict=true
//	READ of all fields  HGETALL                      HGETALL
//	UPDATE              HSET                         EVALSHA of updateScript (EXISTS, HSET inside)
//	INSERT              HSET, ZADD                   MULTI, DEL, HSET, ZADD, EXEC
//	load batch of n     n × (HSET, ZADD)             MULTI, n × (DEL, HSET, ZADD), EXEC
//	SCAN                ZRANGEBYLEX, then one HGETALL per key found (both)
//	DELETE              DEL, ZREM                    MULTI, DEL, ZREM, EXEC
//	READ-MODIFY-WRITE   HGETALL, then the UPDATE's
//
// YCSB's workloads A to F run through the Runner (load, then run); the
// report's counts per operation type are checked against the mix, and
// against the server's INFO commandstats: every operation reached it as
// the commands above, and no other command did.
func TestWorkloadsAtoF(t *testing.T) {
	db, exact := openStatsServer(t)
	ctx := context.Background()
	// Every EVALSHA finds the script: no NOSCRIPT retry to count.
	if err := updateScript.Load(ctx, db.client).Err(); err != nil {
		t.Fatal(err)
	}
	for _, strict := range []bool{false, true} {
		for _, wl := range []string{"a", "b", "c", "d", "e", "f"} {
			t.Run(fmt.Sprintf("workload%s/strict=%v", wl, strict), func(t *testing.T) {
				testWorkload(t, db, exact, wl, strict)
			})
		}
	}
}

func testWorkload(t *testing.T, db *DB, exact bool, wl string, strict bool) {
	ctx := context.Background()
	props, err := engine.LoadPropertiesFile(filepath.Join("..", "..", "workloads", "workload"+wl))
	if err != nil {
		t.Fatal(err)
	}
	table := fmt.Sprintf("bt_wl%s_%d", wl, time.Now().UnixNano())
	for k, v := range map[string]string{"recordcount": "500", "operationcount": "1000", "threadcount": "4",
		"table": table, "redis.addr": db.cfg.Addr, "redis.password": db.cfg.Password, "status.interval": "100ms",
		"redis.strict": strconv.FormatBool(strict)} {
		props[k] = v
	}
	t.Cleanup(func() { dropTable(t, db, table) })
	// The runs open adapters of their own, with the properties above.
	sdb, err := Open(ctx, adapters.Properties(props))
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()

	before := commandStats(t, db.client)
	load := runWorkload(t, "load", props, sdb)
	afterLoad := commandStats(t, db.client)
	ld := delta(before, afterLoad)
	if n, failed := opCount(load, ycsb.OpInsert); n != 500 || failed != 0 || load.Set.Ops != 500 {
		t.Fatalf("load: %d INSERTs (%d failed), Ops %d; want 500", n, failed, load.Set.Ops)
	}
	// Batched: 100 records per pipeline (redis.batchsize).
	want := map[string]int64{"hset": 500, "zadd": 500}
	if strict {
		want = map[string]int64{"hset": 500, "zadd": 500, "del": 500, "multi": 5, "exec": 5}
	}
	checkCommands(t, "load", ld, want, exact)
	if n := db.client.ZCard(ctx, indexKey(table)).Val(); n != 500 {
		t.Errorf("index holds %d keys after the load, want 500", n)
	}

	run := runWorkload(t, "run", props, sdb)
	rd := delta(afterLoad, commandStats(t, db.client))
	counts := map[int]int64{}
	for op := range ycsb.OpNames {
		n, failed := opCount(run, op)
		if failed != 0 {
			t.Errorf("%s: %d of %d failed (%v)", ycsb.OpNames[op], failed, n, run.Set.Causes[op])
		}
		counts[op] = n
	}
	if run.Set.Ops != 1000 {
		t.Errorf("run: Ops = %d, want 1000", run.Set.Ops)
	}
	rmw := counts[ycsb.OpRMW]
	top := counts[ycsb.OpRead] + counts[ycsb.OpUpdate] + counts[ycsb.OpInsert] + counts[ycsb.OpScan] + counts[ycsb.OpDelete] - rmw
	if top != 1000 {
		t.Errorf("run: operations %v add up to %d (the read-modify-writes' READ and UPDATE counted once), want 1000", counts, top)
	}
	checkMix(t, wl, props, counts)

	// Every operation reached the server, as the commands listed above.
	ins, upd := counts[ycsb.OpInsert], counts[ycsb.OpUpdate]
	want = map[string]int64{"zadd": ins, "hset": upd + ins, "zrangebylex": counts[ycsb.OpScan]}
	if strict {
		// The script's own EXISTS and HSET count as calls too.
		want = map[string]int64{"zadd": ins, "hset": ins + upd, "evalsha": upd, "exists": upd, "del": ins, "multi": ins, "exec": ins,
			"zrangebylex": counts[ycsb.OpScan]}
	}
	// Scans fetch the records they found with HGETALL too: at least the
	// start key, which is always loaded.
	hgetall := rd["hgetall"]
	delete(rd, "hgetall")
	checkCommands(t, "run", rd, want, exact)
	if got, want := hgetall, counts[ycsb.OpRead]; (counts[ycsb.OpScan] == 0 && !calls(got, want, exact)) || got < want+counts[ycsb.OpScan] {
		t.Errorf("READ: %d measured (with the read-modify-writes'), %d scans, %d HGETALL on the server", want, counts[ycsb.OpScan], got)
	}
	if got := db.client.ZCard(ctx, indexKey(table)).Val(); got != 500+ins {
		t.Errorf("index holds %d keys after the run, want %d", got, 500+ins)
	}
}

// checkCommands checks the calls of each command a phase made on the
// server (got, INFO commandstats' delta) against want: each as calls
// says, and on a server of the test's own no command beside them (the
// test's own INFO and ZCARD and the connections' HELLO aside).
func checkCommands(t *testing.T, phase string, got, want map[string]int64, exact bool) {
	t.Helper()
	for cmd, n := range want {
		if !calls(got[cmd], n, exact) {
			t.Errorf("%s reached the server as %v; want %d %s", phase, got, n, cmd)
		}
	}
	if !exact {
		return
	}
	for cmd, n := range got {
		if _, ok := want[cmd]; !ok && cmd != "info" && cmd != "hello" && cmd != "zcard" && n > 0 {
			t.Errorf("%s reached the server as %v; %d %s not expected", phase, got, n, cmd)
		}
	}
}

// checkMix checks that the measured counts follow the workload's
// proportions: every operation type with a share was done, within 5
// standard deviations of its expected count, and no other.
func checkMix(t *testing.T, wl string, props map[string]string, counts map[int]int64) {
	t.Helper()
	share := func(k string) float64 { v, _ := strconv.ParseFloat(props[k], 64); return v }
	want := map[int]float64{
		ycsb.OpRead:   share("readproportion") + share("readmodifywriteproportion"),
		ycsb.OpUpdate: share("updateproportion") + share("readmodifywriteproportion"),
		ycsb.OpInsert: share("insertproportion"),
		ycsb.OpScan:   share("scanproportion"),
		ycsb.OpRMW:    share("readmodifywriteproportion"),
	}
	for op, p := range want {
		n := counts[op]
		if p == 0 {
			if n != 0 {
				t.Errorf("workload%s: %d %s, want none", wl, n, ycsb.OpNames[op])
			}
			continue
		}
		// Binomial spread of the share of 1000 operations.
		exp := 1000 * p
		sd := max(math.Sqrt(1000*p*(1-p)), 0.5)
		if float64(n) < exp-5*sd || float64(n) > exp+5*sd {
			t.Errorf("workload%s: %d %s, want about %.0f", wl, n, ycsb.OpNames[op], exp)
		}
	}
}

// dropTable removes a test table's records and index.
func dropTable(t *testing.T, db *DB, table string) {
	ctx := context.Background()
	iter := db.client.Scan(ctx, 0, table+":*", 1000).Iterator()
	var keys []string
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
		if len(keys) == 500 {
			db.client.Unlink(ctx, keys...)
			keys = keys[:0]
		}
	}
	if len(keys) > 0 {
		db.client.Unlink(ctx, keys...)
	}
	db.client.Unlink(ctx, indexKey(table))
}
