package metrics

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/klauspost/compress/snappy"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"benchtop/engine"
)

// writeRequestType is prometheus.WriteRequest as Prometheus's
// prompb/remote.proto and types.proto declare it (the members remote
// write 1.0 uses), so that protobuf's own decoder, not ours, reads what
// the pusher sends.
func writeRequestType(t *testing.T) *dynamicpb.Message {
	t.Helper()
	field := func(name string, n int32, typ descriptorpb.FieldDescriptorProto_Type, msg string, repeated bool) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{Name: proto.String(name), Number: proto.Int32(n), Type: typ.Enum(),
			Label: descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL.Enum(), JsonName: proto.String(name)}
		if repeated {
			f.Label = descriptorpb.FieldDescriptorProto_LABEL_REPEATED.Enum()
		}
		if msg != "" {
			f.TypeName = proto.String(".prometheus." + msg)
		}
		return f
	}
	const (
		msgT = descriptorpb.FieldDescriptorProto_TYPE_MESSAGE
		strT = descriptorpb.FieldDescriptorProto_TYPE_STRING
	)
	fd := &descriptorpb.FileDescriptorProto{Name: proto.String("remote.proto"), Package: proto.String("prometheus"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{
			{Name: proto.String("WriteRequest"), Field: []*descriptorpb.FieldDescriptorProto{field("timeseries", 1, msgT, "TimeSeries", true)}},
			{Name: proto.String("TimeSeries"), Field: []*descriptorpb.FieldDescriptorProto{field("labels", 1, msgT, "Label", true), field("samples", 2, msgT, "Sample", true)}},
			{Name: proto.String("Label"), Field: []*descriptorpb.FieldDescriptorProto{field("name", 1, strT, "", false), field("value", 2, strT, "", false)}},
			{Name: proto.String("Sample"), Field: []*descriptorpb.FieldDescriptorProto{
				field("value", 1, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, "", false),
				field("timestamp", 2, descriptorpb.FieldDescriptorProto_TYPE_INT64, "", false)}},
		}}
	f, err := protodesc.NewFile(fd, nil)
	if err != nil {
		t.Fatal(err)
	}
	return dynamicpb.NewMessage(f.Messages().ByName("WriteRequest"))
}

// decoded is one series of a decoded WriteRequest.
type decoded struct {
	Labels []struct{ Name, Value string }
	// Samples' values; protojson writes int64 timestamps as strings.
	Samples []struct {
		Value     float64
		Timestamp string
	}
}

func (d decoded) label(name string) string {
	for _, l := range d.Labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// decodeWrite reads a WriteRequest with protobuf's decoder.
func decodeWrite(t *testing.T, b []byte) []decoded {
	t.Helper()
	msg := writeRequestType(t)
	if err := proto.Unmarshal(b, msg); err != nil {
		t.Fatalf("protobuf cannot read the request: %v", err)
	}
	js, err := protojson.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	var w struct{ Timeseries []decoded }
	if err := json.Unmarshal(js, &w); err != nil {
		t.Fatal(err)
	}
	return w.Timeseries
}

// receiver is a remote-write endpoint that keeps what it was sent.
type receiver struct {
	mu     sync.Mutex
	writes [][]decoded
	status int
	header http.Header
}

func newReceiver(t *testing.T) (*receiver, *httptest.Server) {
	r := &receiver{status: http.StatusNoContent}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(req.Body)
		if err != nil {
			// The exporter was closed mid-push (a test's cleanup, on a
			// loaded machine): a body cut short is not a bad encoding.
			return
		}
		raw, err := snappy.Decode(nil, body)
		if err != nil {
			t.Errorf("not snappy: %v", err)
		}
		ts := decodeWrite(t, raw)
		r.mu.Lock()
		defer r.mu.Unlock()
		r.header = req.Header.Clone()
		if r.status/100 == 2 {
			r.writes = append(r.writes, ts)
		}
		w.WriteHeader(r.status)
	}))
	t.Cleanup(srv.Close)
	return r, srv
}

func (r *receiver) setStatus(code int) {
	r.mu.Lock()
	r.status = code
	r.mu.Unlock()
}

// Every interval is pushed, and Finish pushes once more: remote write
// 1.0's headers, a snappy protobuf WriteRequest that protobuf's decoder
// reads, the series as a scrape would give them (histogram buckets with
// the scrape's le values, job and run labels, the interval's time).
func TestPushWritesRemoteWrite10(t *testing.T) {
	t.Parallel()
	rec, srv := newReceiver(t)
	e, err := New(Config{Run: "push-run", Push: srv.URL + "/api/v1/write", Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Start()
	t0 := time.Now().Truncate(time.Millisecond)
	for i := range 3 {
		start := t0.Add(time.Duration(i) * time.Second)
		e.Interval(engine.PhaseRun, opNames, start, start.Add(time.Second), interval([]int64{2000, 3e6}, []int64{4e6}, []string{"timeout"}))
		e.Snapshot(&engine.Snapshot{Phase: engine.PhaseRun, Time: start.Add(time.Second), Threads: 2})
	}
	if line := e.Finish(nil); !strings.Contains(line, "4 intervals sent") {
		t.Errorf("account %q, want 4 intervals sent (3 and the final push)", line)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.writes) != 4 {
		t.Fatalf("%d requests received, want 4", len(rec.writes))
	}
	for k, want := range map[string]string{"Content-Encoding": "snappy", "Content-Type": "application/x-protobuf",
		"X-Prometheus-Remote-Write-Version": "0.1.0"} {
		if got := rec.header.Get(k); got != want {
			t.Errorf("%s: %q, want %q", k, got, want)
		}
	}
	// The third interval: 6 successful READs so far, at the interval's end.
	var found bool
	for _, s := range rec.writes[2] {
		if s.label("__name__") == nOperations && s.label("operation") == "READ" && s.label("outcome") == "success" {
			found = true
			if s.label("job") != "benchtop" || s.label("run") != "push-run" || s.label("phase") != "run" {
				t.Errorf("labels %v", s.Labels)
			}
			if len(s.Samples) != 1 || s.Samples[0].Value != 6 {
				t.Errorf("samples %v, want one of 6", s.Samples)
			}
			if want := t0.Add(3 * time.Second).UnixMilli(); s.Samples[0].Timestamp != jsonInt(want) {
				t.Errorf("timestamp %s, want the interval's end %d", s.Samples[0].Timestamp, want)
			}
		}
		if !slices.IsSortedFunc(s.Labels, func(a, b struct{ Name, Value string }) int { return strings.Compare(a.Name, b.Name) }) {
			t.Errorf("labels not sorted: %v", s.Labels)
		}
	}
	if !found {
		t.Fatal("no READ success series pushed")
	}
	// The le values pushed are those of an OpenMetrics scrape.
	pushed := map[string]bool{}
	for _, s := range rec.writes[3] {
		if s.label("__name__") == nLatency+"_bucket" {
			pushed[s.label("le")] = true
		}
	}
	scraped := map[string]bool{}
	req, _ := http.NewRequest("GET", e.URL(), nil)
	req.Header.Set("Accept", "application/openmetrics-text;version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	leRE := regexp.MustCompile(`^` + nLatency + `_bucket\{.*le="([^"]+)"`)
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if m := leRE.FindStringSubmatch(sc.Text()); m != nil {
			scraped[m[1]] = true
		}
	}
	if len(pushed) != len(Bounds)+1 || len(scraped) != len(pushed) {
		t.Fatalf("%d le values pushed, %d scraped, want %d", len(pushed), len(scraped), len(Bounds)+1)
	}
	for le := range scraped {
		if !pushed[le] {
			t.Errorf("le=%q scraped, not pushed", le)
		}
	}
}

func jsonInt(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// A failing endpoint is counted and shown on the snapshot as a warning
// while it fails, and the queue never blocks the hooks: it drops its
// oldest intervals when full.
func TestPushFailureCountedShownAndDropped(t *testing.T) {
	t.Parallel()
	rec, srv := newReceiver(t)
	rec.setStatus(http.StatusBadRequest) // not retried
	e, err := New(Config{Run: "r", Push: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.Start()
	snap := &engine.Snapshot{Phase: engine.PhaseRun, Time: time.Now()}
	e.Snapshot(snap)
	waitFor(t, func() bool { _, f, _ := e.push.counts(); return f == 1 })
	snap = &engine.Snapshot{Phase: engine.PhaseRun, Time: time.Now(), Warnings: []string{"host busy"}}
	e.Snapshot(snap)
	if len(snap.Warnings) != 2 || !strings.Contains(snap.Warnings[1], "metrics push failing") || !strings.Contains(snap.Warnings[1], "400") {
		t.Errorf("warnings %q, want the push's after the engine's", snap.Warnings)
	}
	rec.setStatus(http.StatusNoContent)
	waitFor(t, func() bool { ok, _, _ := e.push.counts(); return ok == 1 })
	snap = &engine.Snapshot{Phase: engine.PhaseRun, Time: time.Now()}
	e.Snapshot(snap)
	if len(snap.Warnings) != 0 {
		t.Errorf("warnings %q after a push went through", snap.Warnings)
	}

	// An endpoint that does not answer: the hooks go on, the queue drops.
	hold := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { <-hold }))
	defer slow.Close()
	defer close(hold)
	e2, err := New(Config{Run: "r", Push: slow.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	e2.Start()
	const n = pushQueue + 50
	for range n {
		e2.Snapshot(&engine.Snapshot{Phase: engine.PhaseRun, Time: time.Now()})
	}
	_, _, dropped := e2.push.counts()
	if dropped < n-pushQueue-1 || dropped > n-pushQueue {
		t.Errorf("%d intervals dropped of %d with a queue of %d", dropped, n, pushQueue)
	}
}

// waitFor polls cond for up to 10 s (the pusher's goroutine answers in
// its own time; this is no timing assertion).
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met within 10 s")
}
