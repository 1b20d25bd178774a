// The proof of issue 27 on the sim model server: --find-max's answer
// against the model's own (sim.Model.MaxRate, Predict), for three
// capacities, two SLOs on one model, and a client that saturates first.
//
// Each case runs in one of two forms of the same model (form): the long
// one, with BENCHTOP_ORACLE=long (today's timescales: service times of
// 10-100 ms, 1 s status intervals, about 7 minutes), and by default the
// short one: every time of the model and of the search a tenth (service
// times, bounds, the status interval), every rate ten times, at the same
// thread and server counts, so that the queue's arithmetic is the same
// and each search takes a tenth of the time (about a minute in all). Only
// the machine's own latency does not shrink: it weighs ten times more
// against a bound a tenth as long, which the checks allow for as they
// measure it (and say so when it is too much to check from below). So
// the searches run one after another, as in the long form, but for the
// two bounds on one model: three at once, at 10,000-40,000 ops/s on two
// cores, added 25-40 ms to the short form's p99 (half its bound: nothing
// could be checked from below), one alone 11 ms, as the long form's one
// alone adds a fifth of its bound.
package oracle

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"benchtop/internal/cli"
	"benchtop/internal/findmaxe2e"
	"benchtop/results/findmax"
)

// form is the oracle's timescale: k divides every time of the model and
// of the search and multiplies every rate.
type form struct {
	k    int
	long bool
}

// oracleForm is the long form when BENCHTOP_ORACLE=long, else the short.
func oracleForm() form {
	if os.Getenv("BENCHTOP_ORACLE") == "long" {
		return form{k: 1, long: true}
	}
	return form{k: 10}
}

// d is duration d at the form's timescale.
func (f form) d(d time.Duration) time.Duration { return d / time.Duration(f.k) }

// rate is rate r at the form's timescale.
func (f form) rate(r float64) float64 { return r * float64(f.k) }

// args are the search's flags at the form's timescale: the short form's
// status interval is 100 ms (a probe needs 5 of them), its budget the
// long form's.
func (f form) args(budget time.Duration) []string {
	a := []string{"--find-max-time", budget.String()}
	if !f.long {
		a = append(a, "-p", "status.interval="+f.d(time.Second).String())
	}
	return a
}

// The answer on sim sits within the precision asked of the rate at which
// the model's intended p99 crosses the bound, for three capacities; the
// same answer is in the text report, the JSON and the HTML page. Models
// of 10 ms mean service with threads to spare (one per operation a second:
// 60 % busy only at 600 ms of mean latency); a bound of 500 ms, well
// above the latency a loaded machine adds, where p99 climbs steeply with
// the rate (the backlog of a rate above capacity), so that what the
// machine adds moves the answer little. The searches run one after
// another: three at once would load the machine they measure.
func TestFindMaxOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("three searches take half a minute (long form: minutes; go test -short skips them)")
	}
	f := oracleForm()
	bound := f.d(500 * time.Millisecond)
	for _, c := range []int{1000, 2000, 4000} {
		t.Run(fmt.Sprint(c), func(t *testing.T) {
			props := map[string]string{"sim.capacity": fmt.Sprint(f.rate(float64(c))), "sim.latency": f.d(10 * time.Millisecond).String()}
			r := findmaxe2e.Sim(t, props, c, "p99<"+bound.String(), f.args(5*time.Minute)...)
			if r.Code != findmaxe2e.ExitOK && r.Code != findmaxe2e.ExitUntrusted {
				t.Fatalf("exit status %d:\n%s", r.Code, r.Stderr)
			}
			if r.Capacity.RateOpsSec == nil {
				t.Fatalf("no answer: %s", r.Capacity.Answer)
			}
			for _, why := range r.Capacity.Reasons {
				if why.Kind == findmax.ReasonThreads {
					t.Errorf("threads blamed with threads to spare: %s", why.Text)
				}
			}
			if (r.Code == findmaxe2e.ExitOK) != r.Capacity.Trusted {
				t.Errorf("exit status %d with trusted %v", r.Code, r.Capacity.Trusted)
			}
			r.SameAnswer(t)
			if _, lo, _ := r.CheckOracle(t, 0.99, bound, r.Capacity.Precision); lo == 0 {
				t.Skipf("the machine added half the bound or more to the model's p99, or another load shared the cores: too loaded to check the answer from below")
			}
		})
	}
}

// Two SLOs on one model give the answers the model predicts for each: a
// search that ignored the bound would give one. The model's servers are
// many (5,000 ops/s) and the threads few (200 of 100 ms: 2,000 ops/s at
// most), so each thread's own queue sets latency, and it grows steadily
// with the rate: the answers are the threads', flagged so, not reported
// as the database's capacity. A 100 ms service time keeps what a loaded
// machine adds small beside the bounds.
func TestFindMaxTwoSLOs(t *testing.T) {
	if testing.Short() {
		t.Skip("a search takes a minute in the long form (go test -short skips it)")
	}
	f := oracleForm()
	props := map[string]string{"sim.servers": "500", "sim.latency": f.d(100 * time.Millisecond).String()}
	// The subtests are named by the long form's bounds in both forms.
	bounds := []time.Duration{700 * time.Millisecond, 1000 * time.Millisecond}
	got, lo, hi := make([]float64, 2), make([]float64, 2), make([]float64, 2)
	var precision float64
	crowded := false
	var mu sync.Mutex
	t.Run("slos", func(t *testing.T) {
		for i, long := range bounds {
			t.Run(long.String(), func(t *testing.T) {
				t.Parallel()
				b := f.d(long)
				// --find-max-over: the first probes show the threads as
				// the limit, which ends a plain search at once (exit 4,
				// no answer); over a thread count the search goes on.
				r := findmaxe2e.Sim(t, props, 0, "p99<"+b.String(), append(f.args(5*time.Minute), "--find-max-over", "threads=200")...)
				if r.Code != findmaxe2e.ExitUntrusted || r.Capacity.Trusted {
					t.Errorf("exit status %d, trusted %v: want %d, the threads the limit", r.Code, r.Capacity.Trusted, findmaxe2e.ExitUntrusted)
				}
				threads := false
				for _, why := range r.Capacity.Reasons {
					threads = threads || why.Kind == findmax.ReasonThreads
				}
				if !threads {
					if r.Crowded() {
						// Two busy loops beside the test: the search saw
						// them and named the client (8,700 ops/s, benchtop
						// at 15 % of the cores).
						defer t.Skipf("reasons %v: another load on the cores was flagged, not the threads: too loaded to tell the threads' limit", r.Capacity.Reasons)
					} else {
						t.Errorf("reasons %v: the threads not named", r.Capacity.Reasons)
					}
				}
				if !strings.Contains(r.Stderr, "find-max: the answer cannot be trusted: ") {
					t.Errorf("no stderr line saying why: %s", r.Stderr)
				}
				if r.Capacity.RateOpsSec == nil {
					t.Fatalf("no answer: %s", r.Capacity.Answer)
				}
				got[i], lo[i], hi[i] = r.CheckOracle(t, 0.99, b, r.Capacity.Precision)
				mu.Lock()
				precision = max(precision, r.Capacity.Precision)
				crowded = crowded || r.Crowded()
				mu.Unlock()
			})
		}
	})
	t.Logf("answers %.0f and %.0f; the model's %.0f-%.0f and %.0f-%.0f", got[0], got[1], lo[0], hi[0], lo[1], hi[1])
	if got[0] == 0 || got[1] == 0 {
		t.FailNow()
	}
	if crowded {
		// An answer may be the client's limit (CI: 1,070 under the
		// tighter bound, 605 under the looser one, every probe of the
		// second "client saturated"): the gain says nothing of the bound.
		t.Skipf("another load shared the cores: an answer may be the client's limit, not the bound's")
	}
	// The looser bound goes further: by more than the search's own
	// resolution, its precision (a search ignoring the bound gives one
	// answer for both, within it). Not by half the difference of the
	// bands' upper edges, as this asked before: the bands overlap (the
	// model's own gain between their middles is under that half), and
	// with one busy loop beside the suite both answers, inside their
	// bands, gained 900 ops/s against 1,332 asked.
	res := precision * got[0]
	if d, wd := got[1]-got[0], hi[1]-hi[0]; d <= res {
		t.Errorf("the looser bound gained %.0f ops/s (the model's upper edges %.0f), no more than the search's precision (%.0f): as if the bound were ignored", d, wd, res)
	}
	if lo[0] == 0 || lo[1] == 0 {
		t.Skipf("the machine added half a bound or more to the model's p99: too loaded to check the answers from below")
	}
}

// A client whose own work per operation (0.5 ms of CPU: at most 4,000
// ops/s on two idle cores) saturates its CPU long before the model's
// 20,000 ops/s: the answer is flagged as the client's, not reported as
// the database's capacity. The client's cost is CPU and its latency the
// cores' queue, which a timescale does not shrink: the short form keeps
// the long one's model and bound, shortens the status interval, and
// judges p90 rather than p99, whose 10,000 operations of evidence took
// 10 s a probe at the client's 1,000-4,000 ops/s (p90's 1,000: one
// second or less). What it proves is the flag, not a percentile.
func TestFindMaxClientSaturated(t *testing.T) {
	if testing.Short() {
		t.Skip("a search takes a minute or two in the long form (go test -short skips it)")
	}
	f := oracleForm()
	props := map[string]string{"sim.capacity": "20000", "sim.latency": "10ms", "sim.clientcost": "500us"}
	cond := "p90<300ms"
	if f.long {
		cond = "p99<300ms"
	}
	r := findmaxe2e.Sim(t, props, 200, cond, f.args(90*time.Second)...)
	if r.Code != findmaxe2e.ExitUntrusted && r.Crowded() {
		// The search saw the host's cores busy with work not its own
		// (two busy loops: benchtop had 1 % of them, and failed 16 ops/s):
		// its client's own saturation cannot be told apart from it.
		t.Skipf("exit status %d with another load on the cores: too loaded to see the client's own saturation", r.Code)
	}
	if r.Code != findmaxe2e.ExitUntrusted || r.Capacity.Trusted {
		t.Fatalf("exit status %d, trusted %v: want %d", r.Code, r.Capacity.Trusted, findmaxe2e.ExitUntrusted)
	}
	if r.Capacity.RateOpsSec != nil && *r.Capacity.RateOpsSec > 5000 {
		t.Errorf("answer %.0f ops/s: more than two cores can do at 0.5 ms each", *r.Capacity.RateOpsSec)
	}
	client := false
	for _, why := range r.Capacity.Reasons {
		client = client || why.Kind == findmax.ReasonClient
	}
	if !client {
		t.Errorf("reasons %v: the client not named", r.Capacity.Reasons)
	}
	if r.Capacity.RateOpsSec != nil && !strings.Contains(r.Capacity.Answer, "not trusted: the client saturated") {
		t.Errorf("answer %q", r.Capacity.Answer)
	}
	r.SameAnswer(t)
}

// The answer holds: on a model of 3,000 ops/s with 100 ms of service and
// 4,000 threads, a search once answered "sustainable 3,150 ops/s" from a
// 7-second probe, and a 22 s run at 3,150 failed the SLO (p99 1.27 s).
// The answer now held by the search itself, a 60 s run paced at it
// (-target, as a user would check it) meets the SLO. Real time only: a
// search, then a minute at the answer.
func TestFindMaxAnswerHolds(t *testing.T) {
	if !oracleForm().long {
		t.Skip("a search, then a minute at its answer, in real time: BENCHTOP_ORACLE=long runs it")
	}
	props := map[string]string{"sim.capacity": "3000", "sim.latency": "100ms"}
	r := findmaxe2e.Sim(t, props, 4000, "READ.p99<1s", "--find-max-time", "10m")
	if r.Capacity.HeldS < 30 && r.Crowded() {
		// Another load took the cores (CI: the hold's p99 987 ms, its
		// interval 973 ms-1.01 s around the 1 s bound, benchtop 6 % of
		// a full host): the search rightly gives no held answer, and
		// there is none to check.
		t.Skipf("no answer held, with another load on the cores: %s", r.Capacity.Answer)
	}
	if r.Capacity.RateOpsSec == nil || r.Capacity.HeldS < 30 {
		t.Fatalf("no answer held 30 s: %s", r.Capacity.Answer)
	}
	rate := *r.Capacity.RateOpsSec
	dir := t.TempDir()
	js := filepath.Join(dir, "hold.json")
	args := []string{"run", "sim", "-P", findmaxe2e.Workload("workloada"), "-p", "recordcount=1000", "-p", "sim.capacity=3000",
		"-p", "sim.latency=100ms", "-threads", "4000", "-target", strconv.FormatFloat(rate, 'f', -1, 64), "--duration", "60s",
		"--headless", "--json", js}
	var out, errb strings.Builder
	if code := cli.Main(args, strings.NewReader(""), &out, &errb, nil); code != 0 {
		t.Fatalf("the 60 s run at %.0f ops/s: exit %d\n%s", rate, code, errb.String())
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	// The run phase's operations, their latency from the intended start
	// (what the search judged, paced), the whole minute counted.
	var doc struct {
		Ops []struct {
			Name     string `json:"name"`
			Intended struct {
				P99US *float64 `json:"p99_us"`
			} `json:"intended"`
		} `json:"operations"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var p99 *float64
	for _, o := range doc.Ops {
		if o.Name == "READ" {
			p99 = o.Intended.P99US
		}
	}
	if p99 == nil {
		t.Fatalf("no READ p99 in the run at the answer:\n%s", b)
	}
	t.Logf("held 60 s at the answer %.0f ops/s: READ p99 %.0f ms (the search held it %.0f s)", rate, *p99/1e3, r.Capacity.HeldS)
	if *p99 >= 1e6 {
		t.Errorf("60 s at the answer %.0f ops/s: READ p99 %.0f ms, over the bound of 1 s", rate, *p99/1e3)
	}
}
