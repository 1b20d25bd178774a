package hbase

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/apache/thrift/lib/go/thrift"

	"benchtop/adapters"
	"benchtop/adapters/hbase/thrift2"
)

// fake is a THBaseService served over Thrift on 127.0.0.1, for what a
// real gateway will not do on demand: fail, stall, count connections in
// use. Methods it does not override panic (the embedded interface is
// nil), so a test that calls one fails loudly.
type fake struct {
	thrift2.THBaseService

	getDelay time.Duration // Get sleeps this long (or until the test ends)
	barrier  int           // Get waits until this many Gets run at once (5 s at most)
	putErr   error
	rowsErr  error

	mu          sync.Mutex
	inFlight    int
	maxInFlight int
	rows        int // rows received by PutMultiple
	multiples   int // PutMultiple calls
	lastPut     *thrift2.TPut
	lastCheck   []byte // qualifier of the last CheckAndMutate
	lastOp      thrift2.TCompareOp
	lastValue   []byte
	exists      bool
	firstValues [][]byte // value of the first cell of each PutMultiple
	stop        chan struct{}
}

// read runs fn under the fake's lock: the race detector sees no order in
// a TCP round trip, so the test reads what handlers wrote under the lock.
func (f *fake) read(fn func()) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn()
}

func (f *fake) TableExists(context.Context, *thrift2.TTableName) (bool, error) { return true, nil }

func (f *fake) Get(ctx context.Context, table []byte, get *thrift2.TGet) (*thrift2.TResult_, error) {
	f.mu.Lock()
	f.inFlight++
	f.maxInFlight = max(f.maxInFlight, f.inFlight)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		f.inFlight--
		f.mu.Unlock()
	}()
	if f.barrier > 0 {
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			f.mu.Lock()
			n := f.maxInFlight
			f.mu.Unlock()
			if n >= f.barrier {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	select {
	case <-time.After(f.getDelay):
	case <-f.stop:
	}
	if string(get.Row) == "absent" {
		return &thrift2.TResult_{}, nil
	}
	return &thrift2.TResult_{Row: get.Row, ColumnValues: []*thrift2.TColumnValue{
		{Family: []byte("family"), Qualifier: []byte("f0"), Value: []byte("v0")},
		{Family: []byte("other"), Qualifier: []byte("f1"), Value: []byte("not ours")},
	}}, nil
}

func (f *fake) Exists(context.Context, []byte, *thrift2.TGet) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.exists, nil
}

func (f *fake) Put(_ context.Context, _ []byte, put *thrift2.TPut) error {
	f.mu.Lock()
	f.lastPut = put
	f.mu.Unlock()
	return f.putErr
}

func (f *fake) PutMultiple(_ context.Context, _ []byte, puts []*thrift2.TPut) error {
	f.mu.Lock()
	f.multiples++
	f.rows += len(puts)
	f.firstValues = append(f.firstValues, puts[0].ColumnValues[0].Value)
	f.mu.Unlock()
	return nil
}

func (f *fake) CheckAndMutate(_ context.Context, _, _, _, qualifier []byte, op thrift2.TCompareOp, value []byte, _ *thrift2.TRowMutations) (bool, error) {
	f.mu.Lock()
	f.lastCheck, f.lastOp, f.lastValue = qualifier, op, value
	f.mu.Unlock()
	return false, nil
}

func (f *fake) OpenScanner(context.Context, []byte, *thrift2.TScan) (int32, error) { return 7, nil }

func (f *fake) GetScannerRows(context.Context, int32, int32) ([]*thrift2.TResult_, error) {
	return nil, f.rowsErr
}

// serveFake serves f and returns its address; the server stops when the
// test ends (after the adapters the test opened are closed).
func serveFake(t *testing.T, f *fake) string {
	t.Helper()
	f.stop = make(chan struct{})
	sock, err := thrift.NewTServerSocket("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := sock.Listen(); err != nil {
		t.Fatal(err)
	}
	srv := thrift.NewTSimpleServer4(thrift2.NewTHBaseServiceProcessor(f), sock,
		thrift.NewTBufferedTransportFactory(16<<10), thrift.NewTBinaryProtocolFactoryConf(nil))
	go srv.Serve()
	t.Cleanup(func() {
		close(f.stop)
		srv.Stop()
	})
	return sock.Addr().String()
}

func openFake(t *testing.T, addr string, extra ...string) *DB {
	t.Helper()
	props := adapters.Properties{PropAddr: addr, PropColumnFamily: "family"}
	for i := 0; i+1 < len(extra); i += 2 {
		props[extra[i]] = extra[i+1]
	}
	db, err := Open(t.Context(), props)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestReadTakesOurFamilyOnly(t *testing.T) {
	db := openFake(t, serveFake(t, &fake{}))
	got, err := db.Read(t.Context(), "usertable", "k", []string{"f0", "f1"}, nil)
	if err != nil || len(got) != 1 || got[0].Name != "f0" || string(got[0].Value) != "v0" {
		t.Errorf("Read = %v, %v; want f0=v0 only", got, err)
	}
}

func TestReadAbsent(t *testing.T) {
	f := &fake{}
	db := openFake(t, serveFake(t, f))
	_, err := db.Read(t.Context(), "usertable", "absent", nil, nil)
	if !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("Read(all) of an empty result: %v, want not found", err)
	}
	// With chosen columns, an empty result is not found whether the row
	// exists or not (YCSB's hbase2 binding), in one round trip.
	_, err = db.Read(t.Context(), "usertable", "absent", []string{"f9"}, nil)
	if !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("Read(f9) of an absent row: %v, want not found", err)
	}
	f.read(func() { f.exists = true })
	got, err := db.Read(t.Context(), "usertable", "absent", []string{"f9"}, nil)
	if !errors.Is(err, adapters.ErrNotFound) || len(got) != 0 {
		t.Errorf("Read(f9) of a row without f9 = %v, %v; want not found", got, err)
	}
}

func TestDeadlineIsTimeoutAndDropsTheConnection(t *testing.T) {
	db := openFake(t, serveFake(t, &fake{getDelay: 10 * time.Second}))
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := db.Read(ctx, "usertable", "k", nil, nil)
	if k := adapters.Kind(err); k != adapters.KindTimeout {
		t.Fatalf("Read past its deadline: %v of kind %q, want %q", err, k, adapters.KindTimeout)
	}
	if open, _ := db.pool.stats(); open != 0 {
		t.Errorf("%d connections open after a timed-out call, want 0 (its reply may still arrive)", open)
	}
}

func TestCallTimeoutProperty(t *testing.T) {
	db := openFake(t, serveFake(t, &fake{getDelay: 10 * time.Second}), PropTimeout, "150ms")
	_, err := db.Read(t.Context(), "usertable", "k", nil, nil)
	if k := adapters.Kind(err); k != adapters.KindTimeout {
		t.Fatalf("Read past hbase.thrift.timeout: %v of kind %q, want %q", err, k, adapters.KindTimeout)
	}
}

func TestCancelInterrupts(t *testing.T) {
	db := openFake(t, serveFake(t, &fake{getDelay: 10 * time.Second}))
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := db.Read(ctx, "usertable", "k", nil, nil)
	if k := adapters.Kind(err); k != adapters.KindCanceled {
		t.Fatalf("Read cancelled mid-call: %v of kind %q, want %q", err, k, adapters.KindCanceled)
	}
}

func TestTIOErrorKeepsTheConnection(t *testing.T) {
	msg := "org.apache.hadoop.hbase.NotServingRegionException: region is closing\n\tat org.apache.hadoop..."
	db := openFake(t, serveFake(t, &fake{putErr: &thrift2.TIOError{Message: &msg}}))
	err := db.Insert(t.Context(), "usertable", "k", []adapters.Field{{Name: "f0", Value: []byte("v")}})
	if k := adapters.Kind(err); k != adapters.KindOther {
		t.Fatalf("Insert answered by a TIOError: %v of kind %q, want %q", err, k, adapters.KindOther)
	}
	if !strings.Contains(err.Error(), "TIOError: org.apache.hadoop.hbase.NotServingRegionException: region is closing") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error text %q: want the exception's first line", err)
	}
	var ioe *thrift2.TIOError
	if !errors.As(err, &ioe) {
		t.Errorf("error %v does not wrap the TIOError", err)
	}
	if open, idle := db.pool.stats(); open != 1 || idle != 1 {
		t.Errorf("after a TIOError: %d open, %d idle; want the connection kept (1, 1)", open, idle)
	}
}

func TestTIllegalArgumentIsError(t *testing.T) {
	msg := "Invalid scanner Id"
	db := openFake(t, serveFake(t, &fake{rowsErr: &thrift2.TIllegalArgument{Message: &msg}}), PropScanPage, "2")
	_, err := db.Scan(t.Context(), "usertable", "k", 5, nil, nil)
	if k := adapters.Kind(err); k != adapters.KindOther || !strings.Contains(err.Error(), "TIllegalArgument: Invalid scanner Id") {
		t.Fatalf("Scan answered by a TIllegalArgument: %v of kind %q", err, k)
	}
}

func TestRefusedAndResetAreUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	// A server that accepts and hangs up at once.
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	_, err = Open(t.Context(), adapters.Properties{PropAddr: addr, PropColumnFamily: "family"})
	if k := adapters.Kind(err); k != adapters.KindUnavailable {
		t.Errorf("Open against a server that hangs up: %v of kind %q, want %q", err, k, adapters.KindUnavailable)
	}
	ln.Close()
	_, err = Open(t.Context(), adapters.Properties{PropAddr: addr, PropColumnFamily: "family"})
	if k := adapters.Kind(err); k != adapters.KindUnavailable {
		t.Errorf("Open against a closed port: %v of kind %q, want %q", err, k, adapters.KindUnavailable)
	}
}

func TestPoolSizeBoundsCallsInFlight(t *testing.T) {
	f := &fake{getDelay: 20 * time.Millisecond}
	db := openFake(t, serveFake(t, f), PropPoolSize, "3")
	var wg sync.WaitGroup
	errs := make(chan error, 12)
	for range 12 {
		wg.Go(func() {
			_, err := db.Read(t.Context(), "usertable", "k", nil, nil)
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("Read through a pool of 3: %v", err)
		}
	}
	var most int
	f.read(func() { most = f.maxInFlight })
	if most > 3 || most < 1 {
		t.Errorf("%d calls in flight at once with hbase.thrift.poolsize=3", most)
	}
	if open, _ := db.pool.stats(); open > 3 {
		t.Errorf("%d connections open with hbase.thrift.poolsize=3", open)
	}
}

func TestUnboundedPoolGivesEachCallerAConnection(t *testing.T) {
	const callers = 12
	f := &fake{barrier: callers}
	db := openFake(t, serveFake(t, f))
	var wg sync.WaitGroup
	for range callers {
		wg.Go(func() {
			if _, err := db.Read(t.Context(), "usertable", "k", nil, nil); err != nil {
				t.Errorf("Read: %v", err)
			}
		})
	}
	wg.Wait()
	var most int
	f.read(func() { most = f.maxInFlight })
	if most != callers {
		t.Errorf("%d of %d concurrent callers were served at once, want all", most, callers)
	}
	if open, idle := db.pool.stats(); open != callers || idle != callers {
		t.Errorf("after %d concurrent calls: %d open, %d idle; want %d of each", callers, open, idle, callers)
	}
}

func TestIdleConnectionsAgeOut(t *testing.T) {
	db := openFake(t, serveFake(t, &fake{}), PropMaxIdle, "1ms")
	if _, err := db.Read(t.Context(), "usertable", "k", nil, nil); err != nil {
		t.Fatal(err)
	}
	first, _ := db.pool.get(t.Context())
	db.pool.put(first, true)
	time.Sleep(5 * time.Millisecond)
	second, err := db.pool.get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer db.pool.put(second, true)
	if first == second {
		t.Error("a connection idle past hbase.thrift.maxidle was reused")
	}
	if open, _ := db.pool.stats(); open != 1 {
		t.Errorf("%d connections open, want 1 (the aged one closed)", open)
	}
}

func TestStrictUpdateChecksTheFirstColumn(t *testing.T) {
	f := &fake{}
	db := openFake(t, serveFake(t, f), PropStrictUpdate, "true")
	err := db.Update(t.Context(), "usertable", "k", []adapters.Field{{Name: "f3", Value: []byte("v")}, {Name: "f4", Value: []byte("w")}})
	if !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("strict Update refused by checkAndMutate: %v, want not found", err)
	}
	f.read(func() {
		if string(f.lastCheck) != "f3" || f.lastOp != thrift2.TCompareOp_NOT_EQUAL || len(f.lastValue) != 0 {
			t.Errorf("checkAndMutate on %q %v %q; want f3 NOT_EQUAL no value", f.lastCheck, f.lastOp, f.lastValue)
		}
	})
}

func TestDurabilityIsSent(t *testing.T) {
	f := &fake{}
	db := openFake(t, serveFake(t, f), PropDurability, "skip_wal")
	if err := db.Update(t.Context(), "usertable", "k", []adapters.Field{{Name: "f0", Value: []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	f.read(func() {
		if f.lastPut == nil || f.lastPut.Durability == nil || *f.lastPut.Durability != thrift2.TDurability_SKIP_WAL {
			t.Errorf("put sent %+v, want durability SKIP_WAL", f.lastPut)
		}
	})
}

func TestClientBufferingFlushesWhenFullAndOnClose(t *testing.T) {
	f := &fake{}
	addr := serveFake(t, f)
	// Each put: row "k" (1) + family (6) + qualifier (2) + value (33) + 8 = 50 bytes.
	db, err := Open(t.Context(), adapters.Properties{PropAddr: addr, PropColumnFamily: "family", PropClientBuffering: "true", PropWriteBufferSize: "200"})
	if err != nil {
		t.Fatal(err)
	}
	value := []byte(strings.Repeat("x", 33))
	for range 10 {
		if err := db.Insert(t.Context(), "usertable", "k", []adapters.Field{{Name: "f0", Value: value}}); err != nil {
			t.Fatal(err)
		}
		value[0] = '!' // the buffer must hold its own copy
	}
	f.read(func() {
		if f.rows != 8 || f.multiples != 2 {
			t.Errorf("after 10 buffered puts of 50 bytes into 200: %d rows in %d putMultiple calls, want 8 in 2", f.rows, f.multiples)
		}
		if len(f.firstValues) > 0 && f.firstValues[0][0] != 'x' {
			t.Errorf("the first buffered put was sent with %q: the buffer kept the caller's bytes, not a copy", f.firstValues[0])
		}
	})
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	f.read(func() {
		if f.rows != 10 || f.multiples != 3 {
			t.Errorf("after Close: %d rows in %d putMultiple calls, want 10 in 3", f.rows, f.multiples)
		}
	})
}
