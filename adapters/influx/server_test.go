package influx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
)

func freshDB() string {
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	return "benchtop_test_" + hex.EncodeToString(rnd[:])
}

// firstTime returns the time column of the first row of a query.
func firstTime(t *testing.T, db *DB, stmt string) time.Time {
	t.Helper()
	res, err := db.query(context.Background(), http.MethodGet, stmt, db.database())
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if len(res.Results) == 0 || len(res.Results[0].Series) == 0 || len(res.Results[0].Series[0].Values) == 0 {
		t.Fatalf("%s: no rows", stmt)
	}
	s, _ := res.Results[0].Series[0].Values[0][0].(string)
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("%s: time %q: %v", stmt, s, err)
	}
	return ts
}

// influx.precision is sent with every write: a timestamp in seconds,
// milliseconds or microseconds is stored as that instant.
func TestIntegrationPrecisionStoresTheInstant(t *testing.T) {
	instant := time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC)
	for _, tc := range []struct {
		precision string
		unit      time.Duration
	}{{"s", time.Second}, {"ms", time.Millisecond}, {"us", time.Microsecond}, {"ns", time.Nanosecond}} {
		t.Run(tc.precision, func(t *testing.T) {
			db := openTest(t, adapters.Properties{PropPrecision: tc.precision})
			ts := instant.UnixNano() / int64(tc.unit)
			if err := db.WriteLines(context.Background(), []byte(fmt.Sprintf("cpu,run=p v=1 %d\n", ts)), 1); err != nil {
				t.Fatal(err)
			}
			got := firstTime(t, db, `SELECT v FROM cpu WHERE run='p'`)
			if want := instant.Truncate(tc.unit); !got.Equal(want) {
				t.Errorf("stored %v, want %v", got, want)
			}
		})
	}
}

// influx.rp writes into that retention policy, not the default one.
func TestIntegrationRetentionPolicy(t *testing.T) {
	db := openTest(t, nil)
	ctx := context.Background()
	if err := db.Exec(ctx, "CREATE RETENTION POLICY short ON "+QuoteIdent(db.cfg.DB)+" DURATION 2h REPLICATION 1"); err != nil {
		t.Fatal(err)
	}
	cfg := db.Config()
	cfg.RP = "short"
	rp := New(cfg)
	defer rp.Close()
	body, n := lines(0, 50, "rp", rp.Precision())
	if err := rp.WriteLines(ctx, body, n); err != nil {
		t.Fatal(err)
	}
	if got, err := rp.CountPoints(ctx, "cpu", nil); err != nil || got != 50 {
		t.Errorf("CountPoints with influx.rp=short = %d, %v; want 50", got, err)
	}
	if got, err := db.CountPoints(ctx, "cpu", nil); err != nil || got != 0 {
		t.Errorf("CountPoints in the default policy = %d, %v; want 0 (the points went to short)", got, err)
	}
}

// influx.createdb=false leaves a missing database missing: Open does not
// create it and a write is refused with the server's "database not found".
func TestIntegrationCreateDBFalse(t *testing.T) {
	u := os.Getenv(envURL)
	if u == "" {
		t.Skip("integration test: needs InfluxDB 1.x; enable with `eval \"$(bash .ci/servers/influx.sh start)\"`")
	}
	name := freshDB()
	ctx := context.Background()
	db, err := Open(ctx, adapters.Properties{"workload": "timeseries", PropURL: u, PropDB: name, PropCreateDB: "false"})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer db.Close()
	res, err := db.query(ctx, http.MethodGet, "SHOW DATABASES", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Results[0].Series[0].Values {
		if v[0] == name {
			t.Fatalf("database %s created with influx.createdb=false", name)
		}
	}
	err = db.WriteLines(ctx, []byte("cpu v=1\n"), 1)
	if err == nil || !strings.Contains(err.Error(), "database not found") {
		t.Errorf("write to the missing database: %v, want database not found", err)
	}
}

// Basic auth against an InfluxDB with auth-enabled (the second server of
// .ci/servers/influx.sh, BENCHTOP_INFLUX_AUTH=1): no credentials or a wrong
// password are refused at Open, without showing the password; the right
// ones create the database, write and count.
func TestIntegrationBasicAuth(t *testing.T) {
	u, user, pass := os.Getenv("BENCHTOP_INFLUX_AUTH_URL"), os.Getenv("BENCHTOP_INFLUX_AUTH_USER"), os.Getenv("BENCHTOP_INFLUX_AUTH_PASSWORD")
	if u == "" || user == "" || pass == "" {
		t.Skip("no InfluxDB with auth: run `eval \"$(BENCHTOP_INFLUX_PORT=8096 BENCHTOP_INFLUX_RPC=8098 BENCHTOP_INFLUX_AUTH=1 bash .ci/servers/influx.sh start)\"` (sets BENCHTOP_INFLUX_AUTH_URL, _USER, _PASSWORD) to enable")
	}
	ctx := context.Background()
	name := freshDB()
	for _, creds := range [][2]string{{"", ""}, {user, "wrong-" + pass}} {
		db, err := Open(ctx, adapters.Properties{"workload": "timeseries", PropURL: u, PropDB: name, PropUsername: creds[0], PropPassword: creds[1]})
		if err == nil {
			db.Close()
			t.Fatalf("Open with user %q, password %q succeeded on a server with auth", creds[0], creds[1])
		}
		if strings.Contains(err.Error(), pass) {
			t.Errorf("the error shows the password: %v", err)
		}
		if k := adapters.Kind(err); k == adapters.KindNotFound || k == adapters.KindTimeout {
			t.Errorf("refused credentials: kind %q (%v)", k, err)
		}
	}
	db, err := Open(ctx, adapters.Properties{"workload": "timeseries", PropURL: u, PropDB: name, PropUsername: user, PropPassword: pass})
	if err != nil {
		t.Fatalf("Open with the right credentials: %v", err)
	}
	defer func() {
		_ = db.Exec(context.Background(), "DROP DATABASE "+QuoteIdent(name))
		db.Close()
	}()
	if strings.Contains(db.Describe(), pass) {
		t.Errorf("Describe() shows the password: %q", db.Describe())
	}
	body, n := lines(0, 100, "auth", db.Precision())
	if err := db.WriteLines(ctx, body, n); err != nil {
		t.Fatal(err)
	}
	if got, err := db.CountPoints(ctx, "cpu", nil); err != nil || got != 100 {
		t.Errorf("CountPoints = %d, %v; want 100", got, err)
	}
}
