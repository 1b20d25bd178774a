package nats

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
	"benchtop/workload/stream/streamtest"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig(adapters.Properties{"workload": "stream"})
	if err != nil {
		t.Fatal(err)
	}
	if c.URL != "nats://127.0.0.1:4222" || c.Storage != jetstream.FileStorage || c.Timeout != 10*time.Second {
		t.Errorf("defaults: %+v", c)
	}
	for _, tc := range []struct{ key, value string }{
		{"workload", "core"}, {"nats.url", "http://x"}, {"nats.url", "::"}, {"nats.storage", "tape"}, {"nats.timeout", "-1s"},
	} {
		p := adapters.Properties{"workload": "stream", tc.key: tc.value}
		_, err := ParseConfig(p)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key {
			t.Errorf("%s=%s: %v, want a ConfigError naming %s", tc.key, tc.value, err, tc.key)
		}
	}
	_, err = ParseConfig(adapters.Properties{"workload": "stream", "nats.url": "ftp://bob:hunter2@h:1"})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("bad URL error shows the password or none: %v", err)
	}
}

func TestDescribeMasksPassword(t *testing.T) {
	db := &DB{cfg: Config{URL: "nats://bob:hunter2@127.0.0.1:4222"}}
	if d := db.Describe(); strings.Contains(d, "hunter2") {
		t.Errorf("Describe() = %q", d)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind string
	}{
		{context.DeadlineExceeded, adapters.KindTimeout},
		{natsgo.ErrTimeout, adapters.KindTimeout},
		{natsgo.ErrNoResponders, adapters.KindUnavailable},
		{natsgo.ErrConnectionClosed, adapters.KindUnavailable},
		{jetstream.ErrStreamNotFound, adapters.KindNotFound},
		{errors.New("other"), adapters.KindOther},
	} {
		if k := adapters.Kind(classify(tc.err)); k != tc.kind {
			t.Errorf("Kind(classify(%v)) = %q, want %q", tc.err, k, tc.kind)
		}
	}
}

// openTestServer opens the adapter against BENCHTOP_NATS_URL, or skips.
func openTestServer(t testing.TB) *DB {
	t.Helper()
	u := os.Getenv("BENCHTOP_NATS_URL")
	if u == "" {
		t.Skip("no NATS server: run `eval \"$(bash .ci/servers/nats.sh start)\"` (sets BENCHTOP_NATS_URL) to enable")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	db, err := Open(ctx, adapters.Properties{"nats.url": u, "workload": "stream"})
	if err != nil {
		t.Fatalf("Open(%s): %v", adapters.MaskURL(u), err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestStreamConformance(t *testing.T) {
	db := openTestServer(t)
	streamtest.Run(t, db, streamtest.Options{Rows: 20000})
}

// Readers purge what they have read; Close deletes the stream.
func TestStreamCleansUp(t *testing.T) {
	db := openTestServer(t)
	ctx := t.Context()
	name := "bttest-clean-" + time.Now().Format("150405") + "-" + strings.ReplaceAll(time.Now().Format(".000000"), ".", "")
	s, err := db.OpenStream(ctx, name, 1)
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]adapters.StreamRow, 0, 1000)
	for range 1000 {
		rows = append(rows, adapters.StreamRow{Partition: 0, Data: []byte("row")})
	}
	for range (purgeEvery + 1000) / 1000 {
		if err := s.Produce(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	r, err := s.Reader(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got int
	for got < purgeEvery+1000 {
		out, err := r.Read(ctx, nil, 5000)
		if err != nil {
			t.Fatal(err)
		}
		got += len(out)
	}
	info, err := s.(*stream).st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs > 2000 {
		t.Errorf("the stream still holds %d messages after %d were read", info.State.Msgs, got)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := db.js.Stream(ctx, name); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("stream after Close: %v, want not found", err)
	}
}

func TestKeys(t *testing.T) {
	d, _ := adapters.Lookup("nats")
	adaptertest.CheckKeys(t, d.Prefixes, d.Keys, adapters.Properties{}, func(r *adapters.Reader) { readConfig(r) })
}
