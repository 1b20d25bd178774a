package influx

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

// fakeServer answers the 1.x API on a loopback port: /ping, /query
// (SHOW DATABASES, CREATE DATABASE, SELECT count) and /write, with the
// status the test sets.
type fakeServer struct {
	*httptest.Server
	mu       sync.Mutex
	status   int    // answer of /write, 0 = 204
	errText  string // its X-Influxdb-Error
	dbs      []string
	created  []string
	bodies   []string // decompressed write bodies
	queries  []string
	auth     []string
	writeURL []string
	encoding []string
}

func newFakeServer(t *testing.T) *fakeServer {
	f := &fakeServer{dbs: []string{"_internal"}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	switch r.URL.Path {
	case "/ping":
		w.WriteHeader(http.StatusNoContent)
	case "/query":
		_ = r.ParseForm()
		q := r.Form.Get("q")
		f.queries = append(f.queries, q)
		switch {
		case q == "SHOW DATABASES":
			var vals []string
			for _, d := range f.dbs {
				vals = append(vals, `["`+d+`"]`)
			}
			io.WriteString(w, `{"results":[{"statement_id":0,"series":[{"name":"databases","columns":["name"],"values":[`+strings.Join(vals, ",")+`]}]}]}`)
		case strings.HasPrefix(q, "CREATE DATABASE "):
			if r.Method != http.MethodPost {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			f.created = append(f.created, q)
			io.WriteString(w, `{"results":[{"statement_id":0}]}`)
		case strings.HasPrefix(q, "SELECT count(*)"):
			io.WriteString(w, `{"results":[{"statement_id":0,"series":[{"name":"cpu","columns":["time","count_a","count_b"],"values":[["1970-01-01T00:00:00Z",41,42]]}]}]}`)
		default:
			io.WriteString(w, `{"results":[{"statement_id":0,"error":"error parsing query"}]}`)
		}
	case "/write", "/api/v2/write":
		f.writeURL = append(f.writeURL, r.URL.String())
		f.encoding = append(f.encoding, r.Header.Get("Content-Encoding"))
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, _ := io.ReadAll(body)
		f.bodies = append(f.bodies, string(b))
		if f.status != 0 {
			w.Header().Set("X-Influxdb-Error", f.errText)
			w.WriteHeader(f.status)
			io.WriteString(w, `{"error":"`+f.errText+`"}`)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func openFake(t *testing.T, f *fakeServer, extra adapters.Properties) *DB {
	t.Helper()
	props := adapters.Properties{"workload": "timeseries", PropURL: f.URL, PropDB: "bench"}
	for k, v := range extra {
		props[k] = v
	}
	db, err := Open(context.Background(), props)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenCreatesDatabaseAndWrites(t *testing.T) {
	f := newFakeServer(t)
	db := openFake(t, f, adapters.Properties{PropPrecision: "us", PropUsername: "bob", PropPassword: "s3cret!"})
	if len(f.created) != 1 || f.created[0] != `CREATE DATABASE "bench"` {
		t.Errorf("created %q", f.created)
	}
	body := []byte("cpu a=1 1\ncpu a=2 2\n")
	if err := db.WriteLines(context.Background(), body, 2); err != nil {
		t.Fatal(err)
	}
	if f.bodies[0] != string(body) {
		t.Errorf("server got %q", f.bodies[0])
	}
	// v1 takes u, not us (which it would read as nanoseconds).
	if got := f.writeURL[0]; got != "/write?db=bench&precision=u" {
		t.Errorf("write URL %q", got)
	}
	for _, a := range f.auth {
		if !strings.HasPrefix(a, "Basic ") {
			t.Errorf("Authorization %q, want basic auth on every request", a)
		}
	}
	n, err := db.CountPoints(context.Background(), "cpu", map[string]string{"run": "x'y"})
	if err != nil || n != 42 {
		t.Errorf("CountPoints = %d, %v; want 42 (the largest field count)", n, err)
	}
	if q := f.queries[len(f.queries)-1]; q != `SELECT count(*) FROM "cpu" WHERE "run" = 'x\'y'` {
		t.Errorf("count query %q", q)
	}
	// An existing database is not created again.
	f.dbs = append(f.dbs, "bench")
	f.created = nil
	openFake(t, f, nil)
	if len(f.created) != 0 {
		t.Errorf("created an existing database: %q", f.created)
	}
}

func TestGzipAndV2(t *testing.T) {
	f := newFakeServer(t)
	db := openFake(t, f, adapters.Properties{PropAPI: "v2", PropOrg: "acme", PropBucket: "b1", PropToken: "tok-123", PropGzip: "true", PropPrecision: "ms"})
	body := bytes.Repeat([]byte("cpu,host=h a=1.5 1700000000000\n"), 1000)
	if err := db.WriteLines(context.Background(), body, 1000); err != nil {
		t.Fatal(err)
	}
	if f.bodies[0] != string(body) || f.encoding[0] != "gzip" {
		t.Errorf("gzip body not decoded to the original (encoding %q)", f.encoding[0])
	}
	if got := f.writeURL[0]; got != "/api/v2/write?bucket=b1&org=acme&precision=ms" {
		t.Errorf("v2 write URL %q", got)
	}
	if a := f.auth[len(f.auth)-1]; a != "Token tok-123" {
		t.Errorf("Authorization %q", a)
	}
	if len(f.created) != 0 {
		t.Error("v2 created a database")
	}
	if d := db.Describe(); strings.Contains(d, "tok-123") || !strings.Contains(d, "bucket b1") {
		t.Errorf("Describe() = %q", d)
	}
}

// HTTP statuses become kinds; the status stays visible through
// HTTPStatus; the server's text is in the message.
func TestWriteErrorsByStatus(t *testing.T) {
	f := newFakeServer(t)
	db := openFake(t, f, nil)
	for _, tc := range []struct {
		status int
		kind   string
	}{
		{400, adapters.KindOther},
		{401, adapters.KindOther},
		{404, adapters.KindOther},
		{413, adapters.KindOther},
		{429, adapters.KindThrottled},
		{500, adapters.KindOther},
		{502, adapters.KindUnavailable},
		{503, adapters.KindThrottled},
		{504, adapters.KindTimeout},
	} {
		f.mu.Lock()
		f.status, f.errText = tc.status, "engine says no"
		f.mu.Unlock()
		err := db.WriteLines(context.Background(), []byte("cpu a=1\n"), 1)
		if got := adapters.Kind(err); got != tc.kind {
			t.Errorf("HTTP %d: kind %q, want %q (%v)", tc.status, got, tc.kind, err)
		}
		var hs interface{ HTTPStatus() int }
		if !errors.As(err, &hs) || hs.HTTPStatus() != tc.status {
			t.Errorf("HTTP %d: status not visible in %v", tc.status, err)
		}
		if !strings.Contains(err.Error(), "engine says no") || !strings.Contains(err.Error(), "write 1 lines") {
			t.Errorf("HTTP %d: message %q", tc.status, err)
		}
	}
}

func TestTransportErrors(t *testing.T) {
	// A loopback port with nothing listening: connection refused.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	db := New(Config{URL: "http://" + addr, API: "v1", DB: "x", Password: "hunter2", Username: "u", Timeout: time.Second, Precision: time.Nanosecond})
	err = db.WriteLines(context.Background(), []byte("cpu a=1\n"), 1)
	if adapters.Kind(err) != adapters.KindUnavailable || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("refused: kind %q, %v", adapters.Kind(err), err)
	}
	_, err = Open(context.Background(), adapters.Properties{"workload": "timeseries", PropURL: "http://u:hunter2@" + addr})
	if err == nil || adapters.Kind(err) != adapters.KindUnavailable || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("Open on a closed port: %v", err)
	}

	// A server that does not answer in time: timeout.
	hang := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hang }))
	defer slow.Close()
	defer close(hang)
	db = New(Config{URL: slow.URL, API: "v1", DB: "x", Timeout: 100 * time.Millisecond, Precision: time.Nanosecond})
	err = db.WriteLines(context.Background(), []byte("cpu a=1\n"), 1)
	if adapters.Kind(err) != adapters.KindTimeout {
		t.Errorf("slow server: kind %q, %v", adapters.Kind(err), err)
	}
	// A cancelled context: canceled.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = db.WriteLines(ctx, []byte("cpu a=1\n"), 1)
	if adapters.Kind(err) != adapters.KindCanceled {
		t.Errorf("cancelled: kind %q, %v", adapters.Kind(err), err)
	}
}

func TestConfig(t *testing.T) {
	c, err := ParseConfig(adapters.Properties{})
	if err != nil || c.URL != DefaultURL || c.DB != "benchtop" || c.API != "v1" || c.Precision != time.Nanosecond || !c.CreateDB || c.Gzip {
		t.Errorf("defaults: %+v, %v", c, err)
	}
	c, err = ParseConfig(adapters.Properties{PropURL: "http://alice:pw@127.0.0.1:9999/"})
	if err != nil || c.URL != "http://127.0.0.1:9999" || c.Username != "alice" || c.Password != "pw" {
		t.Errorf("credentials in the URL: %+v, %v", c, err)
	}
	if d := New(*c).Describe(); strings.Contains(d, "pw") || !strings.Contains(d, "user alice") {
		t.Errorf("Describe() = %q", d)
	}
	for _, tc := range []struct {
		props adapters.Properties
		key   string
	}{
		{adapters.Properties{PropURL: "ftp://x"}, PropURL},
		{adapters.Properties{PropURL: "http://127.0.0.1:8086/?db=x"}, PropURL},
		{adapters.Properties{PropAPI: "v3"}, PropAPI},
		{adapters.Properties{PropPrecision: "m"}, PropPrecision},
		{adapters.Properties{PropGzip: "perhaps"}, PropGzip},
		{adapters.Properties{PropTimeout: "0"}, PropTimeout},
		{adapters.Properties{PropToken: "t", PropUsername: "u"}, PropToken},
		{adapters.Properties{PropPassword: "p"}, PropUsername},
	} {
		_, err := ParseConfig(tc.props)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key {
			t.Errorf("%v: %v, want a ConfigError for %s", tc.props, err, tc.key)
		}
		if err != nil && (strings.Contains(err.Error(), `"t"`) || strings.Contains(err.Error(), `"p"`)) {
			t.Errorf("%v: the error repeats a secret: %v", tc.props, err)
		}
	}
}

// The YCSB core workload cannot run on the adapter: one clear line.
func TestCoreWorkloadRefused(t *testing.T) {
	for _, wl := range []string{"", "site.ycsb.workloads.CoreWorkload"} {
		props := adapters.Properties{}
		if wl != "" {
			props["workload"] = wl
		}
		_, err := adapters.Open(context.Background(), "influx", props)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != "workload" || !strings.Contains(err.Error(), "-p workload=timeseries") {
			t.Errorf("workload %q: %v", wl, err)
		}
	}
	db := New(Config{URL: DefaultURL, API: "v1", DB: "x", Timeout: time.Second})
	if _, err := db.Read(context.Background(), "t", "k", nil, nil); !errors.Is(err, ErrKeyValue) || strings.Contains(err.Error(), "\n") {
		t.Errorf("Read: %v", err)
	}
	if err := db.Insert(context.Background(), "t", "k", nil); !errors.Is(err, ErrKeyValue) {
		t.Errorf("Insert: %v", err)
	}
}

func TestRegistered(t *testing.T) {
	d, ok := adapters.Lookup("influx")
	if !ok || d.Open == nil || len(d.Prefixes) != 1 || d.Prefixes[0] != "influx." {
		t.Errorf("driver = %+v, %v", d, ok)
	}
}

func TestKeys(t *testing.T) {
	d, _ := adapters.Lookup("influx")
	adaptertest.CheckKeys(t, d.Prefixes, d.Keys, adapters.Properties{}, func(r *adapters.Reader) { readConfig(r) })
}
