package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"benchtop/workload/stream"
)

// kafkaOrSkip returns the brokers of a real Kafka, or skips.
func kafkaOrSkip(t *testing.T) string {
	t.Helper()
	b := os.Getenv("BENCHTOP_KAFKA_BROKERS")
	if b == "" {
		t.Skip("BENCHTOP_KAFKA_BROKERS is not set: start a server with eval \"$(bash .ci/servers/kafka.sh start)\" to run the Kafka fleet test")
	}
	return b
}

// fleetStreamDoc is what the test reads of a fleet run's JSON summary.
type fleetStreamDoc struct {
	Properties map[string]string `json:"properties"`
	Stream     struct {
		PartitionsFinal int               `json:"partitions_final"`
		Verdict         string            `json:"verdict"`
		Scenarios       []stream.Scenario `json:"scenarios"`
	} `json:"stream"`
	Events []struct {
		Kind string `json:"kind"`
		To   string `json:"to"`
		Text string `json:"text"`
	} `json:"events"`
	Fleet struct {
		Stream *struct {
			stream.Verdict
			OK             bool `json:"ok"`
			MissingLedgers int  `json:"missing_ledgers"`
		} `json:"stream"`
	} `json:"fleet"`
	Agents []struct {
		Name    string
		State   string
		Summary struct {
			Stream struct {
				Consumed        int64  `json:"consumed"`
				PartitionsFinal int    `json:"partitions_final"`
				Verdict         string `json:"verdict"`
			} `json:"stream"`
		}
	}
}

// Two agents in one consumer group on one topic, the topic grown from 4
// to 8 partitions by the coordinator while rows flow: Kafka splits the
// partitions between the agents and rebalances at the growth, and the
// fleet's verdict (every agent's ledger merged) finds every row delivered
// exactly once, each partition in order. The stream table counts the
// topic's partitions once (4, then 8, not the agents' sum) and says the
// threads per agent and in all; the rebalance after the growth is an
// event.
func TestFleetKafkaGroup(t *testing.T) {
	t.Parallel()
	brokers := kafkaOrSkip(t)
	bin := builtBenchtop(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(fleetToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, b := startAgentProc(t, bin), startAgentProc(t, bin)
	js := filepath.Join(dir, "run.json")
	out, errs, code := runBenchtop(t, bin, "run", "kafka", "-p", "workload=stream", "-p", "kafka.brokers="+brokers,
		"-p", "kafka.group=auto", "-p", "partitions=4", "-threads", "2", "-target", "3000",
		"-p", "maxexecutiontime=12", "--at", "4s:partitions=8",
		"--agents", a.addr+","+b.addr, "--token-file", tokenFile, "--headless", "--json", js)
	if code != 0 {
		t.Fatalf("exit %d\nstderr:\n%s\nstdout:\n%s\nagent A:\n%s\nagent B:\n%s", code, errs, out, a.log, b.log)
	}
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc fleetStreamDoc
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	v := doc.Fleet.Stream
	if v == nil {
		t.Fatalf("no fleet.stream verdict in the JSON:\n%s", raw)
	}
	t.Logf("fleet verdict: produced %d, consumed %d, lost %d, duplicated %d, out of order %d, unknown %d; per agent %+v",
		v.Produced, v.Consumed, v.Lost, v.Duplicated, v.OutOfOrder, v.Unknown, v.PerLedger)
	if v.Produced == 0 || v.Consumed != v.Produced || v.Distinct != v.Produced || v.Lost != 0 || v.Duplicated != 0 || v.OutOfOrder != 0 || v.Unknown != 0 {
		t.Errorf("want every row delivered exactly once, in order: %+v", v.Verdict)
	}
	if !v.OK || v.MissingLedgers != 0 || v.Ledgers != 2 {
		t.Errorf("verdict ok %v, %d ledgers, %d missing; want ok with 2 and 0", v.OK, v.Ledgers, v.MissingLedgers)
	}
	if len(v.PerLedger) != 2 {
		t.Fatalf("per ledger: %+v", v.PerLedger)
	}
	for _, l := range v.PerLedger {
		if l.Produced == 0 || l.Consumed == 0 {
			t.Errorf("origin %d produced %d and consumed %d rows: want both agents to produce and Kafka to give both partitions", l.Origin, l.Produced, l.Consumed)
		}
	}
	if len(doc.Agents) != 2 {
		t.Fatalf("%d agents in the JSON", len(doc.Agents))
	}
	for _, ag := range doc.Agents {
		s := ag.Summary.Stream
		if ag.State != "done" || s.PartitionsFinal != 8 || s.Verdict != stream.VerdictPartial {
			t.Errorf("agent %s: state %s, final partitions %d, verdict %q; want done, 8, partial (the other agent consumed some rows)", ag.Name, ag.State, s.PartitionsFinal, s.Verdict)
		}
	}
	if !strings.Contains(out, "[STREAM-FLEET], Verdict, OK") {
		t.Errorf("no OK verdict line in the report:\n%s", out)
	}
	// One partition count: the topic's, not the agents' sum; threads per
	// agent and in all.
	if st := doc.Stream; st.PartitionsFinal != 8 || st.Verdict != stream.VerdictMerged {
		t.Errorf("stream: final partitions %d, verdict %q; want 8 (the topic's), merged", st.PartitionsFinal, st.Verdict)
	}
	var parts []int
	for _, sc := range doc.Stream.Scenarios {
		parts = append(parts, sc.Partitions)
		if sc.Agents != 2 || sc.ThreadsPerAgent != 2 || sc.Threads != 4 {
			t.Errorf("scenario %+v: want 2 agents x 2 threads = 4", sc)
		}
	}
	if len(parts) == 0 || parts[0] != 4 || parts[len(parts)-1] != 8 {
		t.Errorf("the stream table's partitions %v: want 4 first and 8 last, the topic's", parts)
	}
	if !strings.Contains(out, "agents×threads") || !strings.Contains(out, "2×2=4") {
		t.Errorf("the stream table does not say the agents and their threads:\n%s", out)
	}
	var rebalance bool
	for _, e := range doc.Events {
		rebalance = rebalance || e.Kind == "rebalance" && e.To == "8" && strings.Contains(e.Text, "gave all 8 partitions a consumer")
	}
	if !rebalance {
		t.Errorf("no event says when the group gave the 8 partitions a consumer: %+v", doc.Events)
	}
	// The last agent to leave the group deleted the shared topic.
	topic := doc.Properties["kafka.topic"]
	if !strings.HasPrefix(topic, "benchtop-fleet-") {
		t.Fatalf("kafka.topic %q: want the coordinator's benchtop-fleet-… name", topic)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		all, err := adm.ListTopics(ctx)
		if _, ok := all[topic]; err == nil && !ok {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("topic %s still exists after the run (%v)", topic, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
