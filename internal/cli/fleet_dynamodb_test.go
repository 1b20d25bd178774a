package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// The published Alternator arithmetic, scaled down to counts: three
// agents x 5 threads run workloads/alternator-a-uniform against a
// DynamoDB-API server (dynalite in CI) at a fixed fleet target; the load
// splits the key range, the run splits the target and the operation
// count, and the merged figures are the agents' added up (counts) and
// their histograms merged (p99). scripts/reproduce-alternator.sh is the
// same with 15 x 50 and rates.
func TestFleetAlternator(t *testing.T) {
	t.Parallel()
	ep := os.Getenv("BENCHTOP_DYNAMODB_ENDPOINT")
	if ep == "" {
		t.Skip("BENCHTOP_DYNAMODB_ENDPOINT is not set: start dynalite with eval \"$(bash .ci/servers/dynamodb.sh start)\" to run the Alternator fleet test")
	}
	bin := builtBenchtop(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(fleetToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var agents []string
	for i := range 3 {
		agents = append(agents, fmt.Sprintf("c%02d=%s", i+1, startAgentProc(t, bin).addr))
	}
	table := fmt.Sprintf("benchtop_fleet_%x", rand.Uint32())
	client := dynamoClient(ep)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, _ = client.DeleteTable(ctx, &dynamodb.DeleteTableInput{TableName: aws.String(table)})
	})
	const records, ops, agentsN = 300, 600, 3
	common := []string{"dynamodb", "-P", "../../workloads/alternator-a-uniform", "-p", "dynamodb.endpoint=" + ep,
		"-p", "table=" + table, "-p", "recordcount=" + strconv.Itoa(records),
		"--agents", strings.Join(agents, ","), "--token-file", tokenFile, "--headless"}

	// The load: each agent its third of the key range, the table created
	// by whichever agent comes first.
	js := filepath.Join(dir, "load.json")
	out, errs, code := runBenchtop(t, bin, append([]string{"load"}, append(common, "-threads", "2", "-target", "0", "--json", js)...)...)
	if code != 0 {
		t.Fatalf("load: exit %d\n%s\n%s", code, errs, out)
	}
	if n := ycsbValue(t, out, "INSERT", "Return=OK"); n != records {
		t.Errorf("merged inserts = %d, want %d", n, records)
	}
	if n := countItems(t, client, table); n != records {
		t.Errorf("the table holds %d items, want recordcount %d: the agents' key ranges overlap or leave gaps", n, records)
	}

	// The run: 5 threads an agent, the fleet's target and operation count
	// split three ways.
	js, hl := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.hlog")
	out, errs, code = runBenchtop(t, bin, append([]string{"run"}, append(common, "-threads", "5", "-target", "300",
		"-p", "operationcount="+strconv.Itoa(ops), "-p", "maxexecutiontime=0", "--json", js, "--hdr-log", hl)...)...)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, errs, out)
	}
	f := readFleetJSON(t, js)
	if len(f.Agents) != agentsN {
		t.Fatalf("%d agents in the JSON, want %d", len(f.Agents), agentsN)
	}
	var sum int64
	for _, a := range f.Agents {
		if a.State != "done" || a.Share.Threads != 5 || a.Share.Target != 100 || a.Share.OperationCount != ops/agentsN {
			t.Errorf("agent %s: state %s, share %+v; want done, 5 threads, target 100, operationcount %d", a.Name, a.State, a.Share, ops/agentsN)
		}
		// Each agent's own YCSB report, as each client VM's was.
		own := ycsbValue(t, a.Report, "READ", "Operations") + ycsbValue(t, a.Report, "UPDATE", "Operations")
		if own != ops/agentsN {
			t.Errorf("agent %s: its own report has %d operations, want %d", a.Name, own, ops/agentsN)
		}
		sum += own
	}
	merged := ycsbValue(t, out, "READ", "Operations") + ycsbValue(t, out, "UPDATE", "Operations")
	if merged != ops || sum != merged {
		t.Errorf("merged operations %d, the agents' reports add up to %d, operationcount %d", merged, sum, ops)
	}
	for _, op := range []string{"READ", "UPDATE"} {
		if n := ycsbValue(t, out, op, "Return=OK"); n != ycsbValue(t, out, op, "Operations") {
			t.Errorf("%s: %d of %d OK", op, n, ycsbValue(t, out, op, "Operations"))
		}
		h := hlogMerge(t, hl, func(tag string) bool { return strings.HasSuffix(tag, "/"+op) && !strings.HasPrefix(tag, "Intended-") })
		if h.TotalCount() != ycsbValue(t, out, op, "Operations") {
			t.Errorf("%s: the agents' HDR log lines hold %d values, the merged report %d", op, h.TotalCount(), ycsbValue(t, out, op, "Operations"))
		}
		if want, got := h.ValueAtQuantile(99)/1000, ycsbValue(t, out, op, "99thPercentileLatency(us)"); got != want {
			t.Errorf("%s p99: merged report %d µs, the agents' histograms added up independently %d µs", op, got, want)
		}
	}
}

func dynamoClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("benchtop", "benchtop", ""),
	})
}

// countItems counts the table's items with a paginated COUNT scan.
func countItems(t *testing.T, c *dynamodb.Client, table string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := 0
	p := dynamodb.NewScanPaginator(c, &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("scan %s: %v", table, err)
		}
		n += int(page.Count)
	}
	return n
}
