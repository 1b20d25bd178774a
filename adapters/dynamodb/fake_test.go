package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
)

// These tests run the adapter against a tiny fake DynamoDB endpoint on
// 127.0.0.1 that answers DescribeTable and fails everything else the way a
// test asks, so that error kinds, retries and timeouts are checked without
// a real server.

const sentinelSecret = "SENTINEL-secret-wJalrXUtnFEMI"

type fake struct {
	srv      *httptest.Server
	requests atomic.Int64 // data-plane requests (not DescribeTable)
	describe func(w http.ResponseWriter)
	data     func(w http.ResponseWriter, r *http.Request)
	secret   atomic.Bool // set if the secret key ever reached the server
}

func newFake(t *testing.T) *fake {
	t.Helper()
	f := &fake{
		describe: func(w http.ResponseWriter) {
			reply(w, 200, `{"Table":{"TableName":"usertable","TableStatus":"ACTIVE","KeySchema":[{"AttributeName":"key","KeyType":"HASH"}]}}`)
		},
		data: func(w http.ResponseWriter, r *http.Request) { reply(w, 200, `{}`) },
	}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.Header.Get("Authorization"), sentinelSecret) {
			f.secret.Store(true)
		}
		op := r.Header.Get("X-Amz-Target")
		if strings.HasSuffix(op, ".DescribeTable") {
			f.describe(w)
			return
		}
		f.requests.Add(1)
		f.data(w, r)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func reply(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	w.WriteHeader(status)
	fmt.Fprint(w, body)
}

func apiError(w http.ResponseWriter, code string) {
	reply(w, 400, `{"__type":"com.amazonaws.dynamodb.v20120810#`+code+`","message":"synthetic"}`)
}

func credsFile(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "AWSCredentials.properties")
	if err := os.WriteFile(p, []byte("accessKey = AKIDBENCHTOP\nsecretKey = "+sentinelSecret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func openAt(t *testing.T, endpoint string, props adapters.Properties) (*DB, error) {
	t.Helper()
	p := adapters.Properties{
		"dynamodb.endpoint":           endpoint,
		"dynamodb.awsCredentialsFile": credsFile(t),
	}
	for k, v := range props {
		p[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return open(ctx, p)
}

func mustOpen(t *testing.T, f *fake, props adapters.Properties) *DB {
	t.Helper()
	db, err := openAt(t, f.srv.URL, props)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestFakeThrottledAndRetries(t *testing.T) {
	for _, c := range []struct {
		codes   []string
		retries string
		want    int64
	}{
		{[]string{"ProvisionedThroughputExceededException"}, "0", 1},
		{[]string{"ThrottlingException"}, "0", 1},
		{[]string{"RequestLimitExceeded"}, "1", 2},
	} {
		t.Run(c.codes[0]+"/retries="+c.retries, func(t *testing.T) {
			f := newFake(t)
			f.data = func(w http.ResponseWriter, r *http.Request) { apiError(w, c.codes[0]) }
			db := mustOpen(t, f, adapters.Properties{"dynamodb.maxRetries": c.retries})
			_, err := db.Read(context.Background(), "usertable", "user1", nil, nil)
			if got := adapters.Kind(err); got != adapters.KindThrottled {
				t.Errorf("Kind = %q, want throttled (%v)", got, err)
			}
			if n := f.requests.Load(); n != c.want {
				t.Errorf("%d requests, want %d (maxRetries %s)", n, c.want, c.retries)
			}
			if err == nil || strings.Contains(err.Error(), sentinelSecret) {
				t.Errorf("error %v", err)
			}
		})
	}
}

func TestFakeEveryOperationClassified(t *testing.T) {
	f := newFake(t)
	f.data = func(w http.ResponseWriter, r *http.Request) { apiError(w, "ThrottlingException") }
	db := mustOpen(t, f, adapters.Properties{"dynamodb.maxRetries": "0"})
	ctx := context.Background()
	vals := []adapters.Field{{Name: "field0", Value: []byte("v")}}
	_, readErr := db.Read(ctx, "usertable", "k", []string{"field0"}, nil)
	_, scanErr := db.Scan(ctx, "usertable", "k", 10, nil, nil)
	errs := map[string]error{
		"read":   readErr,
		"scan":   scanErr,
		"update": db.Update(ctx, "usertable", "k", vals),
		"insert": db.Insert(ctx, "usertable", "k", vals),
		"delete": db.Delete(ctx, "usertable", "k"),
		"batch":  db.InsertBatch(ctx, "usertable", []adapters.Record{{Key: "k", Fields: vals}}),
	}
	for op, err := range errs {
		if adapters.Kind(err) != adapters.KindThrottled {
			t.Errorf("%s: Kind = %q (%v)", op, adapters.Kind(err), err)
		}
		if !strings.HasPrefix(fmt.Sprint(err), "dynamodb: ") {
			t.Errorf("%s: error without context: %v", op, err)
		}
	}
}

func TestFakeBatchUnprocessedBounded(t *testing.T) {
	f := newFake(t)
	// Always hand the one item back as unprocessed.
	f.data = func(w http.ResponseWriter, r *http.Request) {
		reply(w, 200, `{"UnprocessedItems":{"usertable":[{"PutRequest":{"Item":{"key":{"S":"k"}}}}]}}`)
	}
	db := mustOpen(t, f, nil)
	db.batchBase = time.Millisecond
	start := time.Now()
	err := db.InsertBatch(context.Background(), "usertable", []adapters.Record{{Key: "k"}})
	if adapters.Kind(err) != adapters.KindThrottled || !errors.Is(err, errUnprocessed) {
		t.Errorf("err = %v (kind %q), want throttled unprocessed", err, adapters.Kind(err))
	}
	if n := f.requests.Load(); n != batchRetries+1 {
		t.Errorf("%d requests, want %d", n, batchRetries+1)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestFakeServerGone(t *testing.T) {
	f := newFake(t)
	db := mustOpen(t, f, nil) // default retries: 3 attempts
	f.srv.Close()
	start := time.Now()
	_, err := db.Read(context.Background(), "usertable", "user1", nil, nil)
	if got := adapters.Kind(err); got != adapters.KindUnavailable {
		t.Errorf("Kind = %q, want unavailable (%v)", got, err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("a refused connection took %s to fail", d)
	}
}

func TestFakeHungServerTimesOut(t *testing.T) {
	f := newFake(t)
	release := make(chan struct{})
	f.data = func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}
	defer close(release)
	db := mustOpen(t, f, adapters.Properties{"dynamodb.requestTimeout": "300ms", "dynamodb.maxRetries": "1"})
	start := time.Now()
	err := db.Update(context.Background(), "usertable", "user1", []adapters.Field{{Name: "f", Value: []byte("v")}})
	if got := adapters.Kind(err); got != adapters.KindTimeout {
		t.Errorf("Kind = %q, want timeout (%v)", got, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("2 attempts of 300ms took %s", d)
	}
}

func TestFakeNotFound(t *testing.T) {
	f := newFake(t)
	db := mustOpen(t, f, nil) // GetItem answers {}: no item
	_, err := db.Read(context.Background(), "usertable", "nobody", nil, nil)
	if !errors.Is(err, adapters.ErrNotFound) || adapters.Kind(err) != adapters.KindNotFound {
		t.Errorf("err = %v, want ErrNotFound", err)
	}
}

func TestFakeOpenErrors(t *testing.T) {
	t.Run("missing table, createTable=false", func(t *testing.T) {
		f := newFake(t)
		f.describe = func(w http.ResponseWriter) { apiError(w, "ResourceNotFoundException") }
		_, err := openAt(t, f.srv.URL, adapters.Properties{"dynamodb.createTable": "false"})
		if err == nil || !strings.Contains(err.Error(), "dynamodb.createTable=false") || !strings.Contains(err.Error(), `"usertable"`) {
			t.Errorf("err = %v", err)
		}
		if f.requests.Load() != 0 {
			t.Error("a table was created although dynamodb.createTable=false")
		}
	})
	t.Run("key schema mismatch", func(t *testing.T) {
		f := newFake(t)
		f.describe = func(w http.ResponseWriter) {
			reply(w, 200, `{"Table":{"TableName":"usertable","TableStatus":"ACTIVE","KeySchema":[{"AttributeName":"id","KeyType":"HASH"}]}}`)
		}
		_, err := openAt(t, f.srv.URL, nil)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != PropPrimaryKey || !strings.Contains(err.Error(), `"id"`) {
			t.Errorf("err = %v, want a ConfigError on %s naming \"id\"", err, PropPrimaryKey)
		}
	})
	t.Run("server not running", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there now
		_, err = openAt(t, "http://"+addr, nil)
		if adapters.Kind(err) != adapters.KindUnavailable || !strings.Contains(fmt.Sprint(err), addr) {
			t.Errorf("err = %v (kind %q)", err, adapters.Kind(err))
		}
		if strings.Contains(fmt.Sprint(err), sentinelSecret) {
			t.Errorf("error shows the secret: %v", err)
		}
	})
	t.Run("bad credentials file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "creds")
		os.WriteFile(p, []byte("secretKey="+sentinelSecret+"\n"), 0o600)
		_, err := open(context.Background(), adapters.Properties{"dynamodb.endpoint": "http://127.0.0.1:1", "dynamodb.awsCredentialsFile": p})
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != PropCredentialsFile || strings.Contains(err.Error(), sentinelSecret) {
			t.Errorf("err = %v", err)
		}
	})
}

func TestSecretNeverShown(t *testing.T) {
	f := newFake(t)
	f.data = func(w http.ResponseWriter, r *http.Request) {
		// A hostile server echoing a secret back must not get it on screen.
		apiError(w, "ValidationException")
	}
	db := mustOpen(t, f, adapters.Properties{"dynamodb.maxRetries": "0"})
	if d := db.Describe(); strings.Contains(d, sentinelSecret) || strings.Contains(d, "AKIDBENCHTOP") || !strings.Contains(d, f.srv.URL) {
		t.Errorf("Describe() = %q", d)
	}
	err := db.Insert(context.Background(), "usertable", sentinelSecret, nil)
	if err == nil || strings.Contains(err.Error(), sentinelSecret) || !strings.Contains(err.Error(), "****") {
		t.Errorf("err = %v", err)
	}
	if f.secret.Load() {
		t.Error("the secret key was sent to the server")
	}
}

func TestDescribe(t *testing.T) {
	db := &DB{s: settings{endpoint: "http://user:pw@127.0.0.1:8000", region: "us-east-1", table: "usertable", keyType: KeyTypeHash}}
	if got, want := db.Describe(), "http://user:****@127.0.0.1:8000 region us-east-1 table usertable"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	db.s.endpoint = ""
	if got := db.Describe(); !strings.HasPrefix(got, "AWS DynamoDB us-east-1") {
		t.Errorf("Describe() = %q", got)
	}
	if !db.Capabilities().UnorderedScan {
		t.Error("a HASH table must report UnorderedScan")
	}
	db.s.keyType = KeyTypeHashAndRange
	if db.Capabilities().UnorderedScan {
		t.Error("a HASH_AND_RANGE table scans in key order")
	}
}

func TestRegistered(t *testing.T) {
	d, ok := adapters.Lookup("dynamodb")
	if !ok || len(d.Prefixes) != 1 || d.Prefixes[0] != "dynamodb." || d.Open == nil {
		t.Errorf("driver = %+v, %v", d, ok)
	}
	_, err := adapters.Open(context.Background(), "dynamodb", adapters.Properties{"dynamodb.primaryKeyType": "nope"})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) {
		t.Errorf("bad property: err = %v, want a ConfigError", err)
	}
}
