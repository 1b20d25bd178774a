package influx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
)

// envURL names the server of the integration tests.
const envURL = "BENCHTOP_INFLUX_URL"

// openTest opens the adapter on a fresh database of the server named by
// BENCHTOP_INFLUX_URL, dropped when the test ends, or skips the test.
func openTest(t testing.TB, extra adapters.Properties) *DB {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		t.Skip("integration test: needs InfluxDB 1.x; enable with " +
			"`eval \"$(bash .ci/servers/influx.sh start)\"` (exports " + envURL + "=http://127.0.0.1:8086)")
	}
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	props := adapters.Properties{"workload": "timeseries", PropURL: u, PropDB: "benchtop_test_" + hex.EncodeToString(rnd[:])}
	for k, v := range extra {
		props[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	db, err := Open(ctx, props)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := db.Exec(ctx, "DROP DATABASE "+QuoteIdent(db.cfg.DB)); err != nil {
			t.Errorf("drop database: %v", err)
		}
		db.Close()
	})
	return db
}

func lines(from, n int, run string, precision time.Duration) ([]byte, int) {
	var b strings.Builder
	base := time.Now().UnixNano() / int64(precision)
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "cpu,host=h%d,run=%s a=%d.5,b=%di %d\n", i%10, run, i, i, base+int64(i))
	}
	return []byte(b.String()), n
}

func TestIntegrationWriteAndCount(t *testing.T) {
	for _, tc := range []struct {
		name  string
		props adapters.Properties
	}{
		{"plain-ns", nil},
		{"gzip-ms", adapters.Properties{PropGzip: "true", PropPrecision: "ms"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTest(t, tc.props)
			ctx := context.Background()
			total := 0
			for i := 0; i < 3; i++ {
				body, n := lines(i*2000, 2000, "r1", db.Precision())
				if err := db.WriteLines(ctx, body, n); err != nil {
					t.Fatalf("WriteLines: %v", err)
				}
				total += n
			}
			body, n := lines(0, 5, "r2", db.Precision())
			if err := db.WriteLines(ctx, body, n); err != nil {
				t.Fatal(err)
			}
			got, err := db.CountPoints(ctx, "cpu", map[string]string{"run": "r1"})
			if err != nil || got != int64(total) {
				t.Errorf("CountPoints(run=r1) = %d, %v; want %d", got, err, total)
			}
			all, err := db.CountPoints(ctx, "cpu", nil)
			if err != nil || all != int64(total+5) {
				t.Errorf("CountPoints(all) = %d, %v; want %d", all, err, total+5)
			}
			none, err := db.CountPoints(ctx, "nothing_here", nil)
			if err != nil || none != 0 {
				t.Errorf("CountPoints(missing measurement) = %d, %v", none, err)
			}
		})
	}
}

func TestIntegrationErrors(t *testing.T) {
	db := openTest(t, nil)
	ctx := context.Background()
	err := db.WriteLines(ctx, []byte("cpu,host=a a=1 notatime\n"), 1)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 400 || adapters.Kind(err) != adapters.KindOther || !strings.Contains(err.Error(), "bad timestamp") {
		t.Errorf("bad line: %v (kind %q)", err, adapters.Kind(err))
	}
	// A database that does not exist, and is not created: 404.
	cfg := db.Config()
	cfg.DB += "_missing"
	missing := New(cfg)
	defer missing.Close()
	missing.writeURL = strings.Replace(db.writeURL, db.cfg.DB, cfg.DB, 1)
	err = missing.WriteLines(ctx, []byte("cpu a=1\n"), 1)
	if !errors.As(err, &he) || he.Status != 404 || !strings.Contains(err.Error(), "database not found") {
		t.Errorf("missing database: %v", err)
	}
	// A field type conflict is a 400 too.
	if err := db.WriteLines(ctx, []byte("cpu,host=a a=1i\n"), 1); err != nil {
		t.Fatal(err)
	}
	err = db.WriteLines(ctx, []byte("cpu,host=a a=\"text\"\n"), 1)
	if !errors.As(err, &he) || he.Status != 400 {
		t.Errorf("field type conflict: %v", err)
	}
}
