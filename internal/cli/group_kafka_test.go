package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"benchtop/workload/stream"
)

// memberRun is one standalone process of a consumer group, as run.
type memberRun struct {
	out, errs string
	code      int
	json      string
	doc       struct {
		Stream struct {
			stream.RowCounts
			Verdict           string         `json:"verdict"`
			ConsumedElsewhere int64          `json:"consumed_elsewhere"`
			PartitionsFinal   int            `json:"partitions_final"`
			Origin            int            `json:"origin"`
			Ledger            *stream.Ledger `json:"ledger"`
		} `json:"stream"`
		Events []struct {
			Kind, Text string
		} `json:"events"`
	}
}

// runMembers runs one benchtop per extra argument list at once, every one
// in consumer group group on topic topic, and reads their JSON summaries.
func runMembers(t *testing.T, bin, brokers, group, topic string, extra ...[]string) []*memberRun {
	t.Helper()
	dir := t.TempDir()
	runs := make([]*memberRun, len(extra))
	var wg sync.WaitGroup
	for i, x := range extra {
		r := &memberRun{json: filepath.Join(dir, "member"+string(rune('a'+i))+".json")}
		runs[i] = r
		args := append([]string{"run", "kafka", "-P", "../../workloads/stream-tunnel", "-p", "kafka.brokers=" + brokers,
			"-p", "kafka.group=" + group, "-p", "kafka.topic=" + topic, "-p", "kafka.topic.delete=true", "-p", "partitions=4",
			"-threads", "2", "-target", "2000", "-p", "maxexecutiontime=9", "--headless", "--json", r.json}, x...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.out, r.errs, r.code = runBenchtop(t, bin, args...)
		}()
	}
	wg.Wait()
	for i, r := range runs {
		b, err := os.ReadFile(r.json)
		if err != nil {
			t.Fatalf("member %d (exit %d): %v\n%s", i, r.code, err, r.errs)
		}
		if err := json.Unmarshal(b, &r.doc); err != nil {
			t.Fatal(err)
		}
	}
	return runs
}

// uniqueName is prefix and 8 random hex digits.
func uniqueName(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// Two standalone processes in one consumer group on one topic (the
// README's "several processes in one group split a topic"): each judges
// what it delivered and calls nothing lost, since the other may hold it
// (a partial verdict, exit 0); `benchtop verdict` merges their JSON
// summaries' ledgers into the group's verdict: every row once, in order,
// with or without one member growing the topic while the other runs, and
// a failing verdict when rows were really removed from a partition.
func TestKafkaGroupOfStandaloneProcesses(t *testing.T) {
	t.Parallel()
	brokers := kafkaOrSkip(t)
	bin := builtBenchtop(t)

	t.Run("two processes", func(t *testing.T) {
		runs := runMembers(t, bin, brokers, uniqueName("g"), uniqueName("benchtop-t"), nil, nil)
		checkMembers(t, runs, 4)
		checkVerdict(t, bin, runs, 0)
	})

	t.Run("one grows the topic, the other follows", func(t *testing.T) {
		runs := runMembers(t, bin, brokers, uniqueName("g"), uniqueName("benchtop-t"), []string{"--at", "3s:partitions=8"}, nil)
		checkMembers(t, runs, 8)
		followed := false
		for _, e := range runs[1].doc.Events {
			followed = followed || e.Kind == "partitions" && strings.Contains(e.Text, "partitions 4→8 (another member of the group grew the stream")
		}
		if !followed {
			t.Errorf("the second process did not say it followed the growth: %+v", runs[1].doc.Events)
		}
		checkVerdict(t, bin, runs, 0)
	})

	t.Run("rows removed from a partition", func(t *testing.T) {
		group, topic := uniqueName("g"), uniqueName("benchtop-t")
		removed := make(chan int64, 1)
		go func() { removed <- removeRows(t, brokers, group, topic) }()
		runs := runMembers(t, bin, brokers, group, topic, nil, nil)
		n := <-removed
		if n <= 0 {
			t.Fatalf("no rows were removed (%d): the test proves nothing", n)
		}
		checkMembers(t, runs, 4) // neither process could see it
		checkVerdict(t, bin, runs, n)
	})
}

// checkMembers: each process exited 0 with a partial verdict that says
// how many of its rows were consumed elsewhere, its own checks clean.
func checkMembers(t *testing.T, runs []*memberRun, parts int) {
	t.Helper()
	for i, r := range runs {
		s := r.doc.Stream
		if r.code != 0 {
			t.Errorf("member %d: exit %d, want 0\nstderr:\n%s\nstdout:\n%s", i, r.code, r.errs, r.out)
		}
		if s.Verdict != stream.VerdictPartial || s.Ledger == nil || s.Origin == 0 {
			t.Errorf("member %d: verdict %q, ledger %v, origin %d: want partial with a ledger and an origin drawn", i, s.Verdict, s.Ledger != nil, s.Origin)
		}
		if s.Duplicated != 0 || s.OutOfOrder != 0 || s.Unknown != 0 || s.PartitionsFinal != parts {
			t.Errorf("member %d: %+v, final partitions %d (want 0 duplicated, out of order, unknown and %d partitions)", i, s.RowCounts, s.PartitionsFinal, parts)
		}
		want := "partial: " + itoa(s.ConsumedElsewhere) + " rows produced here were consumed elsewhere"
		if !strings.Contains(r.out, want) || !strings.Contains(r.errs, want) {
			t.Errorf("member %d: %q is not in its report and on its stderr:\n%s\n%s", i, want, r.out, r.errs)
		}
	}
	if runs[0].doc.Stream.Origin == runs[1].doc.Stream.Origin {
		t.Logf("both processes drew origin %d (1 in 65535): the run ids tell them apart", runs[0].doc.Stream.Origin)
	}
}

// checkVerdict runs benchtop verdict on the members' summaries: OK and
// exit 0 when lost is 0, else FAILED, exit 1 and exactly lost rows lost.
func checkVerdict(t *testing.T, bin string, runs []*memberRun, lost int64) {
	t.Helper()
	args := []string{"verdict"}
	for _, r := range runs {
		args = append(args, r.json)
	}
	vj := filepath.Join(filepath.Dir(runs[0].json), "verdict.json")
	out, errs, code := runBenchtop(t, bin, append(args, "--json", vj)...)
	var doc struct {
		Stream struct {
			stream.Verdict
			OK bool `json:"ok"`
		} `json:"stream"`
	}
	b, err := os.ReadFile(vj)
	if err != nil {
		t.Fatalf("verdict exit %d: %v\n%s", code, err, errs)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	v := doc.Stream
	t.Logf("verdict: produced %d, consumed %d, distinct %d, lost %d, duplicated %d, redelivered %d, out of order %d", v.Produced, v.Consumed, v.Distinct, v.Lost, v.Duplicated, v.Redelivered, v.OutOfOrder)
	var produced int64
	for _, r := range runs {
		produced += r.doc.Stream.Produced
	}
	if v.Ledgers != len(runs) || v.Produced != produced || v.Lost != lost || v.Duplicated != 0 || v.OutOfOrder != 0 || v.Unknown != 0 || v.Distinct != produced-lost {
		t.Errorf("verdict %+v over %d ledgers; want %d produced (the processes' own counts), %d lost, none duplicated, out of order or unknown", v.RowCounts, v.Ledgers, produced, lost)
	}
	wantCode, wantLine := 0, "[STREAM-FLEET], Verdict, OK"
	if lost > 0 {
		wantCode, wantLine = 1, "[STREAM-FLEET], Verdict, FAILED"
	}
	if code != wantCode || !strings.Contains(out, wantLine) || v.OK != (lost == 0) {
		t.Errorf("benchtop verdict: exit %d, ok %v; want %d and %q\nstdout:\n%s\nstderr:\n%s", code, v.OK, wantCode, wantLine, out, errs)
	}
}

func itoa(n int64) string { b, _ := json.Marshal(n); return string(b) }

// removeRows joins the group as a third member that consumes nothing the
// processes see and commits nothing, removes (DeleteRecords) every row of
// one partition Kafka gives it, and leaves: the processes take the
// partition over from its new start, and the rows are gone. It returns
// how many rows it removed (0 or less: none, with the reason logged).
func removeRows(t *testing.T, brokers, group, topic string) int64 {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	seeds := kgo.SeedBrokers(strings.Split(brokers, ",")...)
	admin, err := kgo.NewClient(seeds)
	if err != nil {
		t.Log(err)
		return 0
	}
	defer admin.Close()
	adm := kadm.NewClient(admin)
	for { // the processes create the topic
		td, err := adm.ListTopics(ctx, topic)
		if err == nil && td.Has(topic) && len(td[topic].Partitions) == 4 {
			break
		}
		if ctx.Err() != nil {
			t.Logf("topic %s never came: %v", topic, err)
			return 0
		}
		time.Sleep(100 * time.Millisecond)
	}
	owned := make(chan int32, 8)
	cl, err := kgo.NewClient(seeds, kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic), kgo.DisableAutoCommit(),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, m map[string][]int32) {
			for _, p := range m[topic] {
				owned <- p
			}
		}))
	if err != nil {
		t.Log(err)
		return 0
	}
	polled := make(chan struct{})
	go func() { // stays a member; what it fetches is dropped
		defer close(polled)
		for ctx.Err() == nil {
			if fs := cl.PollFetches(ctx); fs.IsClientClosed() {
				return
			}
		}
	}()
	defer func() { cl.Close(); cancel(); <-polled }()
	var p int32
	select {
	case p = <-owned:
	case <-ctx.Done():
		t.Log("the third member got no partition")
		return 0
	}
	time.Sleep(2 * time.Second) // rows pile up in the partition it holds
	// What the process that held p before delivered, it committed (on
	// revocation): those rows are not lost by their removal.
	committed := int64(0)
	if got, err := adm.FetchOffsets(ctx, group); err == nil {
		if o, ok := got.Lookup(topic, p); ok && o.At > 0 {
			committed = o.At
		}
	}
	ends, err := adm.ListEndOffsets(ctx, topic)
	if err != nil {
		t.Log(err)
		return 0
	}
	end, _ := ends.Lookup(topic, p)
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: topic, Partition: p, At: end.Offset})
	res, err := adm.DeleteRecords(ctx, o)
	if err == nil {
		err = res.Error()
	}
	if err != nil {
		t.Logf("delete records of %s[%d] up to %d: %v", topic, p, end.Offset, err)
		return 0
	}
	t.Logf("removed rows %d..%d of %s[%d]: %d that no process had read", 0, end.Offset-1, topic, p, end.Offset-committed)
	return end.Offset - committed
}
