package findmaxe2e

// --find-max against real servers (Redis, dynalite): each skips, saying
// how to run it, when its server's variable is unset; .ci/run sets them.

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"benchtop/internal/cli"
	"benchtop/results/findmax"
)

func needServer(t *testing.T, env, how string) string {
	t.Helper()
	v := os.Getenv(env)
	if v == "" {
		t.Skipf("%s is not set: start the server with eval \"$(bash .ci/servers/%s.sh start)\" to run this search", env, how)
	}
	return v
}

// A table of its own on a shared server: nobody else's data.
func freshTable(prefix string) string { return fmt.Sprintf("%s%08x", prefix, rand.Uint32()) }

// A search with a loose SLO on a real server ends with an answer,
// trusted or flagged with its reason (a server on the client's own cores
// shares its CPU), its probe staircase, and the same answer in the text
// report, the JSON and the HTML page.
func checkServerSearch(t *testing.T, r *Run) {
	t.Helper()
	c := r.Capacity
	if c.Outcome != findmax.Answer || c.RateOpsSec == nil || *c.RateOpsSec <= 0 {
		if r.Crowded() {
			// The server shares this host: with other work on its cores
			// (CI's lanes), dynalite served 95 ops/s where it serves 1,000.
			t.Skipf("exit %d, no answer, with another load on the cores the server shares: too loaded to search it: %s", r.Code, c.Answer)
		}
		t.Fatalf("exit %d, no answer: %s\n%s", r.Code, c.Answer, r.Stderr)
	}
	switch {
	case c.Trusted && r.Code != ExitOK:
		t.Errorf("trusted, exit status %d", r.Code)
	case !c.Trusted && (r.Code != ExitUntrusted || len(c.Reasons) == 0):
		t.Errorf("not trusted, exit status %d, reasons %v", r.Code, c.Reasons)
	case !c.Trusted && !strings.Contains(r.Stderr, "find-max: the answer cannot be trusted: "+c.Reasons[0].Text):
		t.Errorf("stderr does not say why: %s", r.Stderr)
	}
	if threadsAtOnce(c) {
		// The first paced probe kept the unlimited probe's latency with
		// every thread busy: the threads are named at once, and a
		// headless search stops there (docs/find-max.md; CI: dynalite's
		// 2,840 ops/s unlimited and 2,600 paced at 8 threads, 2.8 and
		// 2.7 ms), with no failure above the answer to show.
		if len(c.Probes) != 2 || c.Probes[0].TargetOpsSec != 0 || c.Probes[1].Outcome != findmax.Pass || c.Probes[1].TargetOpsSec != *c.RateOpsSec {
			t.Errorf("threads named at once: want the unlimited probe and one paced pass at the answer, got %+v", c.Probes)
		}
		r.SameAnswer(t)
		return
	}
	// The staircase: the unlimited probe, then paced ones, one passing
	// at the answer and one failing above it.
	if len(c.Probes) < 3 || c.Probes[0].TargetOpsSec != 0 {
		t.Fatalf("probes %+v", c.Probes)
	}
	passed, failedAbove := false, false
	for _, p := range c.Probes[1:] {
		if p.TargetOpsSec <= 0 {
			t.Errorf("probe %d unpaced after the first", p.N)
		}
		passed = passed || (p.Outcome == findmax.Pass && p.TargetOpsSec == *c.RateOpsSec)
		failedAbove = failedAbove || (p.Outcome == findmax.Fail && p.TargetOpsSec > *c.RateOpsSec)
	}
	if !passed || (!failedAbove && c.Probes[0].Outcome != findmax.Fail) {
		unclosed := false
		for _, why := range c.Reasons {
			unclosed = unclosed || why.Kind == findmax.ReasonUnclosed
		}
		if passed && unclosed && r.Crowded() {
			// CI's lanes beside it held the unlimited probe down (26,373
			// ops/s), the passes climbed above it and the budget ran out
			// first: the search said so, untrusted.
			defer t.Skipf("the bracket did not close, with another load on the cores the server shares: too loaded to see a failure above the answer: %s", c.Answer)
		} else {
			t.Errorf("no passing probe at the answer with a failure above it: %+v", c.Probes)
		}
	}
	for i := range c.Probes {
		if !strings.Contains(r.Stdout, "# capacity probe "+strconv.Itoa(i+1)+": ") {
			t.Errorf("the report has no line for probe %d", i+1)
		}
	}
	r.SameAnswer(t)
}

// threadsAtOnce tells whether the search named the threads the limit
// from its first probes (results/findmax's threadsAtOnce).
func threadsAtOnce(c *findmax.Report) bool {
	for _, why := range c.Reasons {
		if why.Kind == findmax.ReasonThreads && strings.Contains(why.Text, "from the first probe") {
			return true
		}
	}
	return false
}

func TestFindMaxRedis(t *testing.T) {
	if testing.Short() {
		t.Skip("a search takes a minute or two (go test -short skips it)")
	}
	addr := needServer(t, "BENCHTOP_REDIS_ADDR", "redis")
	common := []string{"-p", "redis.addr=" + addr, "-p", "table=" + freshTable("findmax"), "-p", "recordcount=2000"}
	var out, errb syncBuffer
	if code := cli.Main(append([]string{"load", "redis", "-P", Workload("workloada"), "-threads", "4", "--headless"}, common...), os.Stdin, &out, &errb, nil); code != ExitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	r := Benchtop(t, "redis", 16, "p99<1s", append(common, "--find-max", "errors<1%", "--find-max-time", "2m", "--find-max-precision", "10%")...)
	checkServerSearch(t, r)
}

func TestFindMaxDynalite(t *testing.T) {
	if testing.Short() {
		t.Skip("a search takes a minute or two (go test -short skips it)")
	}
	ep := needServer(t, "BENCHTOP_DYNAMODB_ENDPOINT", "dynamodb")
	common := []string{"-p", "dynamodb.endpoint=" + ep, "-p", "table=" + freshTable("findmax"), "-p", "recordcount=500"}
	var out, errb syncBuffer
	if code := cli.Main(append([]string{"load", "dynamodb", "-P", Workload("workloada"), "-threads", "4", "--headless"}, common...), os.Stdin, &out, &errb, nil); code != ExitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	r := Benchtop(t, "dynamodb", 8, "p99<1s", append(common, "--find-max", "errors<1%", "--find-max-time", "2m", "--find-max-precision", "10%")...)
	checkServerSearch(t, r)
}
