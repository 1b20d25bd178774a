package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
	"benchtop/workload/stream/streamtest"
)

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig(adapters.Properties{"workload": "stream"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Brokers, ",") != "127.0.0.1:9092" || c.Acks != "all" || c.Linger != 5*time.Millisecond ||
		c.BatchSize != 1<<20 || c.Compression != "none" || c.Group != "" || c.Topic != "" || c.Replication != -1 || c.Timeout != 10*time.Second {
		t.Errorf("defaults: %+v", c)
	}
	c, err = ParseConfig(adapters.Properties{"workload": "stream", PropBrokers: " a:1, b:2 ,", PropAcks: "-1",
		PropLinger: "0", PropBatchSize: "16384", PropCompression: "zstd", PropGroup: "g1", PropTopic: "t.1_x-y"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Brokers, ",") != "a:1,b:2" || c.Acks != "all" || c.Linger != 0 || c.BatchSize != 16384 ||
		c.Compression != "zstd" || c.Group != "g1" || c.Topic != "t.1_x-y" {
		t.Errorf("parsed: %+v", c)
	}
	for _, tc := range []struct{ key, value string }{
		{"workload", "core"}, {PropBrokers, ""}, {PropBrokers, "nohost"}, {PropAcks, "2"},
		{PropLinger, "-1"}, {PropBatchSize, "10"}, {PropCompression, "brotli"},
		{PropTopic, "a/b"}, {PropReplication, "0"}, {PropTimeout, "0s"},
	} {
		p := adapters.Properties{"workload": "stream", tc.key: tc.value}
		_, err := ParseConfig(p)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key {
			t.Errorf("%s=%q: %v, want a ConfigError naming %s", tc.key, tc.value, err, tc.key)
		}
	}
}

func TestKeys(t *testing.T) {
	d, ok := adapters.Lookup("kafka")
	if !ok {
		t.Fatal("kafka is not registered")
	}
	adaptertest.CheckKeys(t, d.Prefixes, d.Keys, adapters.Properties{}, func(r *adapters.Reader) { readConfig(r) })
	w, err := d.Unknown(map[string]string{"kafka.linger": "5", "kafka.brokers": "x:1"})
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "kafka.linger") || !strings.Contains(w[0], "kafka.linger.ms") {
		t.Errorf("Unknown(kafka.linger) = %q, %v; want one warning suggesting kafka.linger.ms", w, err)
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		err  error
		kind string
	}{
		{context.DeadlineExceeded, adapters.KindTimeout},
		{context.Canceled, adapters.KindCanceled},
		{kerr.UnknownTopicOrPartition, adapters.KindNotFound},
		{kerr.NotLeaderForPartition, adapters.KindUnavailable},
		{&net.OpError{Op: "dial", Err: errors.New("refused")}, adapters.KindUnavailable},
		{errors.New("other"), adapters.KindOther},
	} {
		if k := adapters.Kind(classify(tc.err)); k != tc.kind {
			t.Errorf("Kind(classify(%v)) = %q, want %q", tc.err, k, tc.kind)
		}
	}
}

func TestShrinkErrorSaysKafkaCannot(t *testing.T) {
	s := &stream{topic: "benchtop-ab12"}
	err := s.ShrinkError(8, 7)
	if !errors.Is(err, ErrCannotShrink) || !strings.Contains(err.Error(), "Kafka cannot remove partitions") ||
		!strings.Contains(err.Error(), "benchtop-ab12") || !strings.Contains(err.Error(), "8") {
		t.Errorf("ShrinkError(8, 7) = %v", err)
	}
}

func TestOpenRefusesBadProperties(t *testing.T) {
	_, err := Open(context.Background(), adapters.Properties{"workload": "stream", PropAcks: "most"})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != PropAcks {
		t.Errorf("Open with kafka.acks=most: %v", err)
	}
}

// openTestServer opens the adapter against BENCHTOP_KAFKA_BROKERS, or skips.
func openTestServer(t testing.TB, extra ...string) *DB {
	t.Helper()
	b := os.Getenv("BENCHTOP_KAFKA_BROKERS")
	if b == "" {
		t.Skip("no Kafka: run `eval \"$(bash .ci/servers/kafka.sh start)\"` (sets BENCHTOP_KAFKA_BROKERS) to enable")
	}
	props := adapters.Properties{PropBrokers: b, "workload": "stream"}
	for i := 0; i+1 < len(extra); i += 2 {
		props[extra[i]] = extra[i+1]
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	db, err := Open(ctx, props)
	if err != nil {
		t.Fatalf("Open(%s): %v", b, err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// uniqueName is a topic or group name of its own for one test.
func uniqueName(prefix string) string {
	return fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano()%1e12)
}

func TestStreamConformance(t *testing.T) {
	db := openTestServer(t)
	streamtest.Run(t, db, streamtest.Options{Rows: 20000, Timeout: 90 * time.Second})
}

// The same suite with the readers in a consumer group of one member:
// partitions added live reach it through a rebalance.
func TestStreamConformanceInAGroup(t *testing.T) {
	db := openTestServer(t, PropGroup, uniqueName("bttest-group"))
	streamtest.Run(t, db, streamtest.Options{Rows: 20000, Timeout: 120 * time.Second})
}

// Close deletes the topic the stream created.
func TestCloseDeletesTopic(t *testing.T) {
	db := openTestServer(t)
	ctx := t.Context()
	name := uniqueName("bttest-clean")
	s, err := db.OpenStream(ctx, name, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Produce(ctx, []adapters.StreamRow{{Partition: 1, Data: []byte("row")}}); err != nil {
		t.Fatal(err)
	}
	if err := s.Produce(ctx, []adapters.StreamRow{{Partition: 2, Data: []byte("row")}}); err == nil {
		t.Error("Produce to partition 2 of 2 accepted")
	}
	td, err := db.admin.ListTopics(ctx, name)
	if err != nil || td[name].Err != nil || len(td[name].Partitions) != 2 {
		t.Fatalf("topic %s before Close: %+v, %v; want 2 partitions", name, td[name], err)
	}
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// The broker's metadata forgets a deleted topic shortly after.
	deadline := time.Now().Add(15 * time.Second)
	for {
		all, err := db.admin.ListTopics(ctx) // every topic: no retries on a missing one
		if _, ok := all[name]; err == nil && !ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("topic %s still exists 15 s after Close (%v)", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kafka.topic.delete=false keeps a topic the run created.
func TestTopicDeleteFalseKeepsTopic(t *testing.T) {
	db := openTestServer(t, PropTopicDelete, "false")
	ctx := t.Context()
	name := uniqueName("bttest-keep")
	s, err := db.OpenStream(ctx, name, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = db.admin.DeleteTopic(context.Background(), name) })
	if err := s.Close(ctx); err != nil {
		t.Fatal(err)
	}
	all, err := db.admin.ListTopics(ctx)
	if _, ok := all[name]; err != nil || !ok {
		t.Errorf("topic %s is gone after Close with kafka.topic.delete=false (%v)", name, err)
	}
}

// A member of a group reports the positions it read, and the topic's
// spans: what it delivered covers them.
func TestGroupPositionsAndSpans(t *testing.T) {
	db := openTestServer(t, PropGroup, uniqueName("bttest-spans"))
	ctx := t.Context()
	s, err := db.OpenStream(ctx, uniqueName("bttest-spans"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	rows := make([]adapters.StreamRow, 50)
	for i := range rows {
		rows[i] = adapters.StreamRow{Data: []byte{byte(i)}}
	}
	if err := s.Produce(ctx, rows); err != nil {
		t.Fatal(err)
	}
	r, err := s.Reader(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	pr, ok := r.(adapters.PositionedReader)
	if !ok {
		t.Fatal("the group's reader has no positions")
	}
	var got []int64
	deadline := time.Now().Add(30 * time.Second)
	for len(got) < 50 && time.Now().Before(deadline) {
		out, err := r.Read(ctx, nil, 20)
		if err != nil {
			t.Fatal(err)
		}
		if len(pr.Positions()) != len(out) {
			t.Fatalf("%d rows, %d positions", len(out), len(pr.Positions()))
		}
		got = append(got, pr.Positions()...)
	}
	for i, p := range got {
		if p != int64(i) {
			t.Fatalf("positions %v: want 0..49", got)
		}
	}
	gs := s.(adapters.GroupStream)
	spans, err := gs.Spans(ctx)
	if err != nil || len(spans) != 1 || spans[0] != (adapters.Span{Partition: 0, From: 0, End: 50}) {
		t.Errorf("spans %+v (%v), want partition 0 from 0 to 50", spans, err)
	}
	// Every row delivered is committed within a second; the group's lag,
	// measured every second, falls to 0.
	for {
		if lag := gs.Lag(); len(lag) == 1 && lag[0] == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the group's lag is %v, not [0], 30 s after every row was read", gs.Lag())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
