package timeseries

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/influx"
	"benchtop/engine"
	"benchtop/results/report"
)

// openInflux opens the influx adapter on a fresh database of the server
// named by BENCHTOP_INFLUX_URL, dropped when the test ends, or skips.
func openInflux(t *testing.T, extra map[string]string) (*influx.DB, map[string]string) {
	t.Helper()
	u := os.Getenv("BENCHTOP_INFLUX_URL")
	if u == "" {
		t.Skip("integration test: needs InfluxDB 1.x; enable with " +
			"`eval \"$(bash .ci/servers/influx.sh start)\"` (exports BENCHTOP_INFLUX_URL=http://127.0.0.1:8086)")
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	props := map[string]string{"workload": Name, influx.PropURL: u, influx.PropDB: "benchtop_test_" + hex.EncodeToString(rnd[:])}
	for k, v := range extra {
		props[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	db, err := influx.Open(ctx, adapters.Properties(props))
	if err != nil {
		t.Fatalf("influx.Open: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := db.Exec(ctx, "DROP DATABASE "+influx.QuoteIdent(props[influx.PropDB])); err != nil {
			t.Errorf("drop database: %v", err)
		}
		db.Close()
	})
	return db, props
}

// The published setup against a real InfluxDB: batches of 5,000, flushed
// at least every 300 ms, by 1, 2, 4 and then 8 writers (threads changed
// live, as --sweep threads=1,2,4,8 does), unthrottled; every point is
// counted back.
func TestIntegrationInfluxParallelism(t *testing.T) {
	t.Parallel()
	db, props := openInflux(t, nil)
	props["batch.size"] = "5000"
	props["flush.interval"] = "300ms"
	props["threadcount"] = "1"
	props["status.interval"] = "250ms"
	res, snaps, r := run(t, db, props, func(rn *engine.Runner) {
		// Each parallelism holds for 4 snapshots (a row needs two), however
		// slowly a busy machine samples.
		for _, n := range []int{2, 4, 8} {
			waitSnapshots(t, rn, 4)
			_ = rn.SetThreads(n)
		}
		waitSnapshots(t, rn, 4)
		rn.Stop()
	})
	if p := problems(res); len(p) > 0 {
		t.Errorf("problems: %v", p)
	}
	if r.Check != "ok" || r.Written == 0 || r.Stored != r.Written || r.Failed != 0 {
		t.Errorf("check %q: written %d, stored %d, failed %d", r.Check, r.Written, r.Stored, r.Failed)
	}
	var writers []int
	for _, row := range r.ByParallelism {
		writers = append(writers, row.Writers)
		if row.RecordsPerSec <= 0 || row.MBPerSec <= 0 {
			t.Errorf("%d writers: %.0f records/s, %.2f MB/s", row.Writers, row.RecordsPerSec, row.MBPerSec)
		}
	}
	if !risingRows(writers, 1, 8) || len(writers) != 4 {
		t.Errorf("table rows by writers = %v, want [1 2 4 8]", writers)
	}
	if len(res[0].Segments) != 4 {
		t.Errorf("%d segments, want 4", len(res[0].Segments))
	}
	var text bytes.Buffer
	report.WriteText(&text, res, engine.Info{})
	t.Logf("report:\n%s", text.String())
	if len(snaps) == 0 {
		t.Fatal("no snapshots")
	}
	if _, ok := snaps[len(snaps)/2].Workload.Figure("records"); !ok {
		t.Errorf("snapshot has no time-series figures: %+v", snaps[len(snaps)/2].Workload)
	}
}

// With a target rate batches fill slowly: flush.interval sends them, gzip
// on, timestamps in milliseconds.
func TestIntegrationInfluxTargetAndFlush(t *testing.T) {
	t.Parallel()
	db, props := openInflux(t, map[string]string{influx.PropGzip: "true", influx.PropPrecision: "ms"})
	props["batch.size"] = "5000"
	props["flush.interval"] = "300ms"
	props["threadcount"] = "2"
	props["target"] = "4000"
	// 6000 records at 4000/s last 1.5 s or more, whatever the load: the
	// 300 ms flush interval fires (counts, not rates, are asserted).
	props["operationcount"] = "6000"
	res, _, r := run(t, db, props, nil)
	if p := problems(res); len(p) > 0 || r.Check != "ok" || r.Written != 6000 || r.Stored != 6000 {
		t.Errorf("problems %v, check %q (written %d, stored %d), want 6000 written and stored", p, r.Check, r.Written, r.Stored)
	}
	if r.BatchesFull != 0 || r.BatchesFlushed < 1 {
		t.Errorf("batches: %d full, %d by flush.interval", r.BatchesFull, r.BatchesFlushed)
	}
}

// waitSnapshots waits until the runner published n more snapshots.
func waitSnapshots(t *testing.T, rn *engine.Runner, n int64) {
	t.Helper()
	seq := func() int64 {
		cur := rn.Current()
		if len(cur) == 0 || cur[len(cur)-1].Final == nil {
			return 0
		}
		return int64(cur[len(cur)-1].Final.Seq)
	}
	from := seq()
	deadline := time.Now().Add(time.Minute)
	for seq() < from+n {
		if time.Now().After(deadline) {
			t.Errorf("no %d snapshots within a minute", n)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// skipper acknowledges every fourth batch without writing it: the lost
// points must be found by the count against the real server.
type skipper struct {
	*influx.DB
	n atomic.Int64
}

func (s *skipper) WriteLines(ctx context.Context, body []byte, lines int) error {
	if s.n.Add(1)%4 == 0 {
		return nil
	}
	return s.DB.WriteLines(ctx, body, lines)
}

func TestIntegrationInfluxMismatchDetected(t *testing.T) {
	t.Parallel()
	db, props := openInflux(t, nil)
	props["batch.size"] = "1000"
	props["threadcount"] = "2"
	props["operationcount"] = "20000"
	props["timeseries.check.timeout"] = "1s"
	res, _, r := run(t, &skipper{DB: db}, props, nil)
	p := problems(res)
	if r.Check != "mismatch" || len(p) != 1 || !strings.Contains(p[0], "acknowledged points are missing") {
		t.Errorf("check %q, problems %q (written %d, stored %d)", r.Check, p, r.Written, r.Stored)
	}
	if r.Written != 20000 || r.Stored > 16000 {
		t.Errorf("written %d, stored %d: want 20000 acknowledged and a quarter missing", r.Written, r.Stored)
	}
}
