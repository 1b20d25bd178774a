package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

// fake is a DB on a fake clock: operations arrive at the clock's
// reading, and a wait moves the clock to its end (one caller at a time).
type fake struct {
	*DB
	clock int64
	waits []int64 // each wait's end, on the sim's clock
}

func openFake(t *testing.T, props map[string]string) *fake {
	t.Helper()
	db, err := Open(props)
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{DB: db, clock: 1e9} // the clock starts at the first operation, not at 0
	db.now = func() int64 { return f.clock }
	db.wait = func(_ context.Context, at int64) error {
		f.waits = append(f.waits, at-db.zero)
		f.clock = max(f.clock, at)
		return nil
	}
	t.Cleanup(func() { db.Close() })
	return f
}

// at sets the clock to ms milliseconds after the sim's clock started (the
// first operation's arrival).
func (f *fake) at(ms float64) { f.clock = 1e9 + int64(ms*1e6) }

func (f *fake) lastWait() time.Duration {
	if len(f.waits) == 0 {
		return -1
	}
	return time.Duration(f.waits[len(f.waits)-1])
}

func ms(f float64) time.Duration { return time.Duration(f * 1e6) }

var ctx = context.Background()

func rec(v string) []adapters.Field { return []adapters.Field{{Name: "f", Value: []byte(v)}} }

// TestServeQueues: the adapter's operations go through the queue on its
// clock, which starts at the first operation: with one server and a
// constant 1 ms, a second operation arriving 0.5 ms after the first ends
// at 2 ms.
func TestServeQueues(t *testing.T) {
	f := openFake(t, map[string]string{"sim.servers": "1", "sim.latency": "1ms", "sim.service": "const"})
	f.at(0)
	if err := f.Insert(ctx, "t", "a", rec("1")); err != nil || f.lastWait() != ms(1) {
		t.Fatalf("first insert: %v, ends at %v, want 1ms", err, f.lastWait())
	}
	f.at(0.5)
	if err := f.Insert(ctx, "t", "b", rec("2")); err != nil || f.lastWait() != ms(2) {
		t.Fatalf("second insert: %v, ends at %v, want 2ms (queued behind the first)", err, f.lastWait())
	}
	f.at(5)
	got, err := f.Read(ctx, "t", "b", nil, nil)
	if err != nil || len(got) != 1 || string(got[0].Value) != "2" || f.lastWait() != ms(6) {
		t.Fatalf("read: %v %v, ends at %v, want the record at 6ms", got, err, f.lastWait())
	}
	f.at(7)
	if _, err := f.Read(ctx, "t", "zz", nil, nil); !errors.Is(err, adapters.ErrNotFound) || f.lastWait() != ms(8) {
		t.Fatalf("read of a missing key: %v at %v, want NOT_FOUND after its service at 8ms", err, f.lastWait())
	}
}

// TestScanCostsPerRow: a scan of n records costs 1 + scanrow × n units
// of work, and returns records in key order.
func TestScanCostsPerRow(t *testing.T) {
	f := openFake(t, map[string]string{"sim.servers": "1", "sim.latency": "1ms", "sim.service": "const", "sim.scanrow": "0.5", "sim.load": "instant"})
	var recs []adapters.Record
	for _, k := range []string{"k5", "k1", "k3", "k2", "k4"} {
		recs = append(recs, adapters.Record{Key: k, Fields: rec(k)})
	}
	if err := f.InsertBatch(ctx, "t", recs); err != nil {
		t.Fatal(err)
	}
	if f.started {
		t.Fatal("a batch of the load phase started the sim's clock")
	}
	f.at(0)
	got, err := f.Scan(ctx, "t", "k2", 3, nil, nil)
	if err != nil || len(got) != 3 || got[0].Key != "k2" || got[1].Key != "k3" || got[2].Key != "k4" {
		t.Fatalf("scan: %v %v, want k2 k3 k4", got, err)
	}
	if f.lastWait() != ms(2.5) {
		t.Errorf("a scan of 3 records ends at %v, want 2.5ms (1 + 0.5 × 3 units of 1ms)", f.lastWait())
	}
}

// TestStall: an operation in service when a stall begins resumes at its
// end; one arriving during it waits for its end.
func TestStall(t *testing.T) {
	f := openFake(t, map[string]string{"sim.servers": "2", "sim.latency": "1ms", "sim.service": "const", "sim.stall": "0.01:0.005"})
	f.at(0)
	_ = f.Insert(ctx, "t", "a", rec("1")) // starts the clock
	f.at(9.5)
	_ = f.Insert(ctx, "t", "b", rec("2"))
	if f.lastWait() != ms(15.5) {
		t.Errorf("in service at the stall's start: ends at %v, want 15.5ms", f.lastWait())
	}
	f.at(11)
	_ = f.Insert(ctx, "t", "c", rec("3"))
	if f.lastWait() != ms(16) {
		t.Errorf("arrived during the stall: ends at %v, want 16ms", f.lastWait())
	}
}

// TestOutage: during an outage every operation fails at once with kind
// unavailable and changes nothing; one in service when it begins fails
// then; afterwards operations succeed.
func TestOutage(t *testing.T) {
	f := openFake(t, map[string]string{"sim.servers": "1", "sim.latency": "1ms", "sim.service": "const", "sim.outage": "0.010:0.005"})
	f.at(0)
	_ = f.Insert(ctx, "t", "a", rec("1"))
	f.at(9.5)
	err := f.Update(ctx, "t", "a", rec("cut"))
	if adapters.Kind(err) != adapters.KindUnavailable || f.lastWait() != ms(10) {
		t.Errorf("in service at the outage's start: %v (kind %s) at %v, want unavailable at 10ms", err, adapters.Kind(err), f.lastWait())
	}
	waits := len(f.waits)
	f.at(12)
	err = f.Insert(ctx, "t", "b", rec("2"))
	if adapters.Kind(err) != adapters.KindUnavailable || len(f.waits) != waits {
		t.Errorf("during the outage: %v (kind %s), waited %v; want unavailable at once", err, adapters.Kind(err), len(f.waits) > waits)
	}
	f.at(15)
	if got, err := f.Read(ctx, "t", "a", nil, nil); err != nil || string(got[0].Value) != "1" {
		t.Errorf("after the outage: %v %v, want the record as before it (the cut update not applied)", got, err)
	}
	if f.lastWait() != ms(16) {
		t.Errorf("after the outage the read ends at %v, want 16ms (the lost work gone)", f.lastWait())
	}
	if _, err := f.Read(ctx, "t", "b", nil, nil); !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("the insert refused during the outage: read %v, want NOT_FOUND", err)
	}
}

// TestErrorShares: sim.errors fails that share of operations with kind
// error (in its window only, when it has one), sim.notfound that share of
// reads with NOT_FOUND; both after their service time.
func TestErrorShares(t *testing.T) {
	f := openFake(t, map[string]string{"sim.servers": "1000", "sim.latency": "1ms", "sim.errors": "0.3,1@100:100", "sim.notfound": "0.2"})
	if err := f.InsertBatch(ctx, "t", []adapters.Record{{Key: "k", Fields: rec("v")}}); err != nil {
		t.Fatal(err)
	}
	const n = 20000
	var failed, notFound, reads int
	for i := range n {
		f.at(float64(i) * 0.001) // 20 ms in all: before the window at 100 s
		var err error
		if i%2 == 0 {
			reads++
			_, err = f.Read(ctx, "t", "k", nil, nil)
		} else {
			err = f.Update(ctx, "t", "k", rec("w"))
		}
		if err == nil {
			continue
		}
		switch adapters.Kind(err) {
		case adapters.KindOther:
			failed++
		case adapters.KindNotFound:
			notFound++
			if i%2 != 0 {
				t.Fatalf("an update NOT_FOUND: %v", err)
			}
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	// Binomial: 3 standard deviations of n=20000 at 0.3 is 0.01.
	if got := float64(failed) / n; math.Abs(got-0.3) > 0.015 {
		t.Errorf("%.4f of operations failed with kind error, want 0.3", got)
	}
	// NOT_FOUND is drawn for reads that did not fail otherwise: 0.7 × 0.2.
	if got := float64(notFound) / float64(reads); math.Abs(got-0.14) > 0.015 {
		t.Errorf("%.4f of reads NOT_FOUND, want 0.14 (0.2 of those not failed)", got)
	}
	f.at(150_000) // in the window: all fail
	if err := f.Update(ctx, "t", "k", rec("x")); err == nil || adapters.Kind(err) != adapters.KindOther || f.lastWait() <= ms(150_000) {
		t.Errorf("in the error window: %v at %v, want kind error after its service", err, f.lastWait())
	}
}

// TestClientCostBurnsCPU: sim.clientcost is CPU spent by the caller,
// before the model, not in the model's latency.
func TestClientCostBurnsCPU(t *testing.T) {
	f := openFake(t, map[string]string{"sim.servers": "1", "sim.latency": "1ms", "sim.service": "const", "sim.clientcost": "2ms"})
	before := cpuTime()
	for i := range 20 {
		f.at(float64(i) * 10)
		_ = f.Insert(ctx, "t", fmt.Sprint(i), rec("v"))
	}
	used := cpuTime() - before
	if used < 20*time.Millisecond {
		t.Errorf("20 operations with a 2ms client cost used %v of CPU, want at least 20ms (half of it)", used)
	}
	if f.lastWait() != ms(191) {
		t.Errorf("the last operation ends at %v, want 191ms: the client's cost is not the model's", f.lastWait())
	}
}

// TestWaitEndsOnCancel: a caller waiting for a long service time returns
// when its context is cancelled, with the context's error.
func TestWaitEndsOnCancel(t *testing.T) {
	db, err := Open(map[string]string{"sim.servers": "1", "sim.latency": "1h", "sim.service": "const"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := db.Insert(c, "t", "k", rec("v")); !errors.Is(err, context.Canceled) || adapters.Kind(err) != adapters.KindCanceled {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}

// TestWaitReturnsNotBefore: the real wait never returns before the time
// asked for.
func TestWaitReturnsNotBefore(t *testing.T) {
	w := newWaiter()
	defer w.close()
	for i := range 200 {
		at := nanotime() + int64(i%20)*50_000
		if err := w.until(ctx, at); err != nil {
			t.Fatal(err)
		}
		if now := nanotime(); now < at {
			t.Fatalf("returned %dns before the time asked", at-now)
		}
	}
}

// The sim's store passes the adapters' conformance suite (a fast model:
// its waits are a few µs).
func TestConformance(t *testing.T) {
	db, err := Open(map[string]string{"sim.servers": "64", "sim.latency": "1us"})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	adaptertest.Run(t, db, adaptertest.Options{})
}

// An update replaces a record under a key the caller's buffer held: the
// store must keep its own copy of the key.
func TestUpdateKeepsItsKey(t *testing.T) {
	f := openFake(t, map[string]string{"sim.servers": "1", "sim.latency": "1us"})
	buf := []byte("user1")
	_ = f.Insert(ctx, "t", string(buf), rec("1"))
	_ = f.Insert(ctx, "t", "user2", rec("2"))
	key := unsafeKey(buf)
	if err := f.Update(ctx, "t", key, rec("x")); err != nil {
		t.Fatal(err)
	}
	copy(buf, "user9") // the engine reuses its key buffer
	for _, k := range []string{"user1", "user2"} {
		if _, err := f.Read(ctx, "t", k, nil, nil); err != nil {
			t.Errorf("read %s after the caller's buffer changed: %v", k, err)
		}
	}
}

// TestCloseEndsWaits: an operation waiting when the server is closed
// fails at once rather than waiting (or spinning) until its finish.
func TestCloseEndsWaits(t *testing.T) {
	db, err := Open(map[string]string{"sim.servers": "1", "sim.latency": "1h", "sim.service": "const"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- db.Insert(ctx, "t", "k", rec("v")) }()
	for {
		db.wt.mu.Lock()
		n := len(db.wt.q)
		db.wt.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	db.Close()
	if err := <-done; !errors.Is(err, errClosed) {
		t.Errorf("waiting at Close: %v, want %v", err, errClosed)
	}
	if err := db.Insert(ctx, "t", "k2", rec("v")); !errors.Is(err, errClosed) {
		t.Errorf("after Close: %v, want %v", err, errClosed)
	}
}
