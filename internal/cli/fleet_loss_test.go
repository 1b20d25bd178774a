package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// A lost agent is accounted for: the merged figures include its
// operations up to its loss, and its per-agent row, in the report, the
// JSON and the HTML page, shows them, so that the rows, the lost one's
// included, add up to the merged totals.
func TestLostAgentIsAccountedFor(t *testing.T) {
	if testing.Short() {
		t.Skip("an agent is killed in a 4 s fleet run (go test -short skips it)")
	}
	t.Parallel()
	bin := builtBenchtop(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(fleetToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	a, b, c := startAgentProc(t, bin), startAgentProc(t, bin), startAgentProc(t, bin)
	js, page := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.html")
	wl, err := filepath.Abs("../../workloads/workloada")
	if err != nil {
		t.Fatal(err)
	}
	coord := startIn(t, dir, t.TempDir(), "run", "memory", "-P", wl, "-p", "recordcount=300",
		"-p", "operationcount=0", "-p", "maxexecutiontime=4", "-p", "status.interval=250ms", "-target", "1500", "-threads", "2",
		"--agents", a.addr+","+b.addr+","+c.addr, "--token-file", tokenFile, "--headless", "-s", "--json", js, "--html", page)
	// The victim dies once the run phase has gone on for a while: three
	// of the coordinator's status lines of run-phase operations (a fixed
	// 2.5 s after the agent's "run from" line could fall in the load
	// phase on a busy machine, leaving it nothing to account for).
	poll(t, "the run phase to go on", func() bool {
		return strings.Count(coord.stderr.String(), "[READ:") >= 3 || !coord.running()
	})
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	code := coord.exit(t)
	out, errs := coord.stdout.String(), coord.stderr.String()
	if code != exitIncomplete {
		t.Fatalf("exit %d, want %d (an agent lost)\nstderr:\n%s", code, exitIncomplete, errs)
	}
	var doc struct {
		Phases []struct {
			Phase      string `json:"phase"`
			Operations int64  `json:"operations"`
		} `json:"phases"`
		Agents []struct {
			Name     string `json:"name"`
			State    string `json:"state"`
			UpToLoss bool   `json:"up_to_loss"`
			Phases   []struct {
				Phase      string `json:"phase"`
				Operations int64  `json:"operations"`
			} `json:"phases"`
		} `json:"agents"`
	}
	raw, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	victim := tcpName([]string{a.addr, b.addr, c.addr}, c.addr)
	var lostRun int64
	for _, ph := range doc.Phases {
		var sum int64
		for _, ag := range doc.Agents {
			for _, p := range ag.Phases {
				if p.Phase == ph.Phase {
					sum += p.Operations
					if ag.Name == victim && ph.Phase == "run" {
						lostRun = p.Operations
					}
				}
			}
		}
		if sum != ph.Operations || sum == 0 {
			t.Errorf("%s phase: the agents' rows add up to %d operations, the merged figures say %d", ph.Phase, sum, ph.Operations)
		}
		// The report: [FLEET] and [AGENT] lines add up the same.
		if got := ycsbValue(t, out, "FLEET", ph.Phase+" Operations"); got != ph.Operations {
			t.Errorf("[FLEET], %s Operations, %d; the merged figures say %d", ph.Phase, got, ph.Operations)
		}
		var lines int64
		for _, ag := range doc.Agents {
			if prefix := "[AGENT " + ag.Name + "], " + ph.Phase + " Operations, "; strings.Contains(out, prefix) {
				lines += ycsbValue(t, out, "AGENT "+ag.Name, ph.Phase+" Operations")
			}
		}
		if lines != ph.Operations {
			t.Errorf("the [AGENT] lines' %s operations add up to %d, the merged figures say %d", ph.Phase, lines, ph.Operations)
		}
	}
	for _, ag := range doc.Agents {
		if (ag.Name == victim) != (ag.State == "lost" && ag.UpToLoss) {
			t.Errorf("agent %s: state %s, up to loss %v (victim %s)", ag.Name, ag.State, ag.UpToLoss, victim)
		}
	}
	if lostRun == 0 {
		t.Errorf("the lost agent's row shows no run-phase operations up to its loss")
	}
	if !strings.Contains(out, "[AGENT "+victim+"], Figures, up to its loss at") {
		t.Errorf("the report does not say the lost agent's figures run up to its loss:\n%s", out)
	}
	// The page: an agents table whose total row is the merged run phase's.
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	total := regexp.MustCompile(`<tr class="total">.*?data-key="operations" data-value="(\d+)"`).FindSubmatch(bytesOneLine(html))
	var run int64
	for _, ph := range doc.Phases {
		if ph.Phase == "run" {
			run = ph.Operations
		}
	}
	if total == nil || string(total[1]) != strconv.FormatInt(run, 10) {
		t.Errorf("the page's agents table totals %q operations, the merged run phase %d", total, run)
	}
	if !strings.Contains(string(html), "up to its loss at") || !strings.Contains(string(html), "3 agents (1 lost)") {
		t.Errorf("the page does not show the lost agent's row or the clients line")
	}
}

// bytesOneLine is b with its newlines as spaces, for a regexp over HTML.
func bytesOneLine(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "\n", " ")) }
