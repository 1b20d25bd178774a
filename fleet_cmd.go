package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/measure"
	"benchtop/engine/report"
	"benchtop/engine/steps"
	"benchtop/engine/stream"
	"benchtop/fleet"
	"benchtop/tui"
)

// exitIncomplete is the exit status of a fleet run that lost an agent:
// the figures cover the agents that stayed.
const exitIncomplete = 3

// defaultAgentPort is the port of an agent address given without one.
const defaultAgentPort = "7070"

// fleetOptions are the coordinator's flags of `benchtop run|load`.
type fleetOptions struct {
	Agents     []string // [name=]host[:port]
	AgentsFile string
	TokenFile  string
	TLSCA      string
	SSH        []string // [user@]host
	SSHCopy    bool
	SSHConfig  string
	SSHRemote  string
	// Typed are the fleet flags as typed, for the report's command line.
	Typed []string
}

func (f *fleetOptions) enabled() bool {
	return len(f.Agents) > 0 || f.AgentsFile != "" || len(f.SSH) > 0
}

// fleetFlags are the flags splitFleetFlags takes out (all take a value
// but --ssh-copy).
var fleetFlags = map[string]bool{"agents": true, "agents-file": true, "token-file": true, "tls-ca": true,
	"ssh": true, "ssh-copy": false, "ssh-config": true, "ssh-remote": true}

// splitFleetFlags takes the coordinator's flags out of args and returns
// the rest for parseArgs.
func splitFleetFlags(args []string) (*fleetOptions, []string, error) {
	f := &fleetOptions{}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			rest = append(rest, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		val, hasVal := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, val, hasVal = k, v, true
		}
		if name == "token" {
			return nil, nil, usagef("--token: a token on the command line is visible to every user of the machine; use --token-file FILE or %s", fleet.TokenEnv)
		}
		takes, ok := fleetFlags[name]
		if !ok {
			rest = append(rest, a)
			continue
		}
		f.Typed = append(f.Typed, a)
		if takes && !hasVal {
			if i+1 >= len(args) {
				return nil, nil, usagef("flag --%s needs a value", name)
			}
			i++
			val = args[i]
			f.Typed = append(f.Typed, val)
		}
		switch name {
		case "agents":
			f.Agents = append(f.Agents, splitList(val)...)
		case "agents-file":
			f.AgentsFile = val
		case "token-file":
			f.TokenFile = val
		case "tls-ca":
			f.TLSCA = val
		case "ssh":
			f.SSH = append(f.SSH, splitList(val)...)
		case "ssh-copy":
			f.SSHCopy = true
		case "ssh-config":
			f.SSHConfig = val
		case "ssh-remote":
			f.SSHRemote = val
		}
	}
	if !f.enabled() && (f.TokenFile != "" || f.TLSCA != "" || f.SSHCopy || f.SSHConfig != "" || f.SSHRemote != "") {
		return nil, nil, usagef("--token-file, --tls-ca and --ssh-* go with --agents, --agents-file or --ssh")
	}
	return f, rest, nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// endpoints turns the flags into the agents to reach.
func (f *fleetOptions) endpoints(log io.Writer) ([]fleet.Endpoint, error) {
	specs := append([]string(nil), f.Agents...)
	if f.AgentsFile != "" {
		lines, err := readAgentsFile(f.AgentsFile)
		if err != nil {
			return nil, err
		}
		specs = append(specs, lines...)
	}
	var tlsCfg *tls.Config
	if f.TLSCA != "" {
		pem, err := os.ReadFile(f.TLSCA)
		if err != nil {
			return nil, usagef("--tls-ca %s: %v", f.TLSCA, unwrapPathErr(err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, usagef("--tls-ca %s: no PEM certificate in it", f.TLSCA)
		}
		tlsCfg = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	var names, addrs []string
	for _, s := range specs {
		name, addr, named := strings.Cut(s, "=")
		if !named {
			addr, name = s, ""
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(addr, defaultAgentPort)
		}
		if h, p, err := net.SplitHostPort(addr); err != nil || h == "" || p == "" {
			return nil, usagef("--agents %q: expected HOST:PORT or NAME=HOST:PORT", s)
		}
		names, addrs = append(names, name), append(addrs, addr)
	}
	auto := fleet.Names(addrs)
	var eps []fleet.Endpoint
	seen := map[string]bool{}
	for i, addr := range addrs {
		name := names[i]
		if name == "" {
			name = auto[i]
		}
		if seen[name] {
			return nil, usagef("--agents: agent name %q given twice", name)
		}
		seen[name] = true
		eps = append(eps, fleet.TCPEndpoint(name, addr, tlsCfg))
	}
	so := fleet.SSHOptions{Config: f.SSHConfig, Remote: f.SSHRemote, Log: log}
	if f.SSHCopy {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("--ssh-copy: cannot find this binary: %w", err)
		}
		so.Copy = exe
	}
	for _, target := range f.SSH {
		name, dest, named := strings.Cut(target, "=")
		if !named {
			dest = target
			name = target
			if _, h, ok := strings.Cut(target, "@"); ok {
				name = h
			}
		}
		if dest == "" || strings.ContainsAny(dest, " \t'\"") || strings.HasPrefix(dest, "-") {
			return nil, usagef("--ssh %q: expected [user@]host or NAME=[user@]host", target)
		}
		if seen[name] {
			name = dest
		}
		if seen[name] {
			return nil, usagef("--ssh: agent name %q given twice", name)
		}
		seen[name] = true
		eps = append(eps, fleet.SSHEndpoint(name, dest, so))
	}
	return eps, nil
}

// readAgentsFile reads one agent a line; # starts a comment.
func readAgentsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usagef("--agents-file %s: %v", path, unwrapPathErr(err))
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("--agents-file %s: %v", path, err)
	}
	if len(out) == 0 {
		return nil, usagef("--agents-file %s: no agents in it (one HOST:PORT a line)", path)
	}
	return out, nil
}

// runFleetCommand validates the configuration as a local run does, then
// coordinates the agents.
func runFleetCommand(o *cliOptions, f *fleetOptions, interactive bool, stdout, stderr io.Writer, intr *interrupts) int {
	// Names every agent must share (one Kafka topic and group) are picked
	// here, once, before the run is validated and hashed.
	o.Props = fleet.SharedProps(o.DB, o.Props)
	cfg, warns, err := engine.NewConfig(o.Command, o.DB, o.Props)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", describeConfigErr(err))
		return 2
	}
	for _, w := range warns {
		fmt.Fprintln(stderr, "benchtop:", w)
	}
	if err := checkExports(o); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	return runFleet(o, cfg, f, interactive, stdout, stderr, intr)
}

// runFleet is `benchtop run|load ... --agents ...`: the coordinator. It
// returns the exit status: 0, 1 (an error, an agent's problem), 2 (bad
// input), exitIncomplete (an agent was lost), 130/143 (a signal).
func runFleet(o *cliOptions, cfg *engine.Config, f *fleetOptions, interactive bool, stdout, stderr io.Writer, intr *interrupts) int {
	token, err := fleet.LoadToken(f.TokenFile)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	logw := stderr
	if interactive {
		// The screen owns the terminal; agents' lines would tear it.
		logw = io.Discard
	}
	eps, err := f.endpoints(logw)
	if err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 2
	}
	cc := fleet.CoordConfig{Config: cfg, Props: o.Props, Label: o.Workload, Token: token, Agents: eps, Log: logw,
		Meta: engine.CollectMeta(maskArgs(append(append([]string(nil), o.Args...), f.Typed...)))}
	e := &exports{}
	player := newPlayer(o, stderr, interactive)
	defer player.Close()
	coordHooks(&cc, o, cfg, e, player, interactive, stderr)

	c, err := fleet.Connect(intr.ctx, cc)
	if err != nil {
		if intr.signal() != nil {
			return notStarted(stderr, intr)
		}
		var ce *adapters.ConfigError
		if errors.As(err, &ce) {
			fmt.Fprintf(stderr, "benchtop: %v\n", describeConfigErr(err))
			return 2
		}
		fmt.Fprintf(stderr, "benchtop: %s\n", adapters.MaskSecretsIn(oneLine(err), o.Props))
		return 1
	}
	intr.onSignal(c.Interrupt)
	player.Bind(c)
	// The coordinator's clock starts with Run: the exports start now.
	if err := e.start(o, time.Now()); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		return 1
	}
	if !interactive {
		fmt.Fprintf(stderr, "benchtop: %d agents ready: %s\n", len(eps), agentNames(c))
	}
	results, runErr := runCoordinator(intr.ctx, c, o, e, interactive)
	if runErr != nil {
		fmt.Fprintf(stderr, "benchtop: %s\n", adapters.MaskSecretsIn(oneLine(runErr), o.Props))
	}
	player.Close()
	return finishFleet(o, c, e, player.Failures(), results, runErr, interactive, len(eps), stdout, stderr, intr)
}

// finishFleet writes the fleet's report and exports once the run is over
// and returns the exit status: the signal's, exitIncomplete when an agent
// was lost, 1 on an error, an agent's problem, a failed stream verdict or
// an integrity mismatch.
func finishFleet(o *cliOptions, c *fleet.Coordinator, e *exports, failed []steps.Failure, results []*engine.PhaseResult,
	runErr error, interactive bool, agents int, stdout, stderr io.Writer, intr *interrupts) int {
	for _, fl := range failed {
		if interactive {
			fmt.Fprintf(stderr, "benchtop: step failed: %s\n", fl)
		}
	}
	report.WriteText(stdout, results, c.Info())
	writeFleetText(stdout, c)
	writeFleetStream(stdout, c)
	writeFailedSteps(stdout, failed)
	o.Baseline.writeComment(stdout, results, c.Info()) // --baseline (baseline.go)
	if err := finishFleetExports(e, o, results, c, failed); err != nil {
		fmt.Fprintf(stderr, "benchtop: %v\n", err)
		runErr = err
	}
	for _, p := range e.paths {
		fmt.Fprintf(stderr, "benchtop: wrote %s\n", p)
	}
	if code := intr.exitCode(); code != 0 {
		return code
	}
	problems := c.Problems()
	for _, p := range problems {
		fmt.Fprintf(stderr, "benchtop: agent %s\n", p)
	}
	if v, _, ok := c.StreamVerdict(); ok {
		for _, p := range v.Problems() {
			fmt.Fprintf(stderr, "benchtop: fleet %s\n", p)
			problems = append(problems, p)
		}
	}
	if lost := c.Lost(); len(lost) > 0 {
		fmt.Fprintf(stderr, "benchtop: incomplete run: %d of %d agents lost: %s\n", len(lost), agents, strings.Join(lost, ", "))
		return exitIncomplete
	}
	if runErr != nil || len(problems) > 0 {
		return 1
	}
	if n := len(results); n > 0 && results[n-1].Set.Integrity > 0 {
		return 1
	}
	return 0
}

// coordHooks wires the exports, the status lines and the steps' player
// into the coordinator's configuration.
func coordHooks(cc *fleet.CoordConfig, o *cliOptions, cfg *engine.Config, e *exports, player *steps.Player, interactive bool, stderr io.Writer) {
	var opts engine.Options
	e.hooks(&opts)
	cc.OnSnapshot = append(cc.OnSnapshot, opts.OnSnapshot...)
	cc.OnInterval = append(cc.OnInterval, opts.OnInterval...)
	cc.OnAgentInterval = append(cc.OnAgentInterval, func(agent string, ph engine.Phase, names []string, start, end time.Time, set *measure.Set) {
		if e.hdrW != nil {
			agentHDR(e.hdrW)(agent, ph, names, start, end, set)
		}
	})
	if o.Status && !interactive {
		status := &statusPrinter{w: stderr, total: cfg.OperationCount}
		cc.OnSnapshot = append(cc.OnSnapshot, status.print)
	}
	cc.OnPhase = append(cc.OnPhase, player.OnPhase)
	cc.OnSnapshot = append(cc.OnSnapshot, player.OnSnapshot)
}

// runCoordinator runs the fleet to its end, headless or under the live
// screen.
func runCoordinator(ctx context.Context, c *fleet.Coordinator, o *cliOptions, e *exports, interactive bool) ([]*engine.PhaseResult, error) {
	if !interactive {
		drained := make(chan struct{})
		go func() {
			for range c.Snapshots() {
			}
			close(drained)
		}()
		res, err := c.Run(ctx)
		<-drained
		return res, err
	}
	type out struct {
		res []*engine.PhaseResult
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := c.Run(ctx)
		done <- out{res, err}
	}()
	uiErr := tui.Run(ctx, tui.Options{Info: c.Info(), Snapshots: c.Snapshots(), Control: c, Theme: o.Theme,
		Baseline:   o.Baseline.screen(), // --baseline (baseline.go)
		SaveReport: func() (string, error) { return saveFleetNow(c, e) }})
	c.Stop()
	r := <-done
	if uiErr != nil && r.err == nil {
		r.err = uiErr
	}
	return r.res, r.err
}

// finishFleetExports writes the exports; the JSON summary is the fleet's,
// with its agents.
func finishFleetExports(e *exports, o *cliOptions, results []*engine.PhaseResult, c *fleet.Coordinator, failed []steps.Failure) error {
	e.jsonPath = "" // written here, with the agents
	err := e.finish(results, c.Info(), failed)
	if o.JSON != "" {
		if jerr := writeFleetJSON(o.JSON, results, c, o.Baseline); jerr != nil {
			err = errors.Join(err, fmt.Errorf("--json: %w", jerr))
		} else {
			e.paths = append(e.paths, o.JSON)
		}
	}
	return err
}

func agentNames(c *fleet.Coordinator) string {
	var names []string
	for _, a := range c.Agents() {
		names = append(names, a.Name)
	}
	return strings.Join(names, ", ")
}

// agentHDR writes each agent's intervals into the HDR log tagged
// AGENT/OP (vm1/READ), next to the merged ones.
func agentHDR(l *report.HDRLog) func(string, engine.Phase, []string, time.Time, time.Time, *measure.Set) {
	return func(agent string, phase engine.Phase, names []string, start, end time.Time, set *measure.Set) {
		tagged := make([]string, len(names))
		for i, n := range names {
			tagged[i] = agent + "/" + n
		}
		l.Interval(phase, tagged, start, end, set)
	}
}

// writeFleetText adds the fleet's lines after the merged report: one
// [AGENT name] block per agent, in YCSB's "[SECTION], metric, value" form.
func writeFleetText(w io.Writer, c *fleet.Coordinator) {
	agents := c.Agents()
	fmt.Fprintf(w, "[FLEET], Agents, %d\n", len(agents))
	lost := 0
	for _, a := range agents {
		if a.State == fleet.StateLost {
			lost++
		}
	}
	fmt.Fprintf(w, "[FLEET], Lost, %d\n", lost)
	for _, a := range agents {
		sec := "[AGENT " + a.Name + "]"
		fmt.Fprintf(w, "%s, State, %s\n", sec, a.State)
		if a.Reason != "" {
			fmt.Fprintf(w, "%s, Reason, %s\n", sec, a.Reason)
		}
		for _, p := range a.Phases {
			fmt.Fprintf(w, "%s, %s Operations, %d\n", sec, p.Phase, p.Operations)
			fmt.Fprintf(w, "%s, %s Throughput(ops/sec), %.2f\n", sec, p.Phase, p.Throughput)
		}
		fmt.Fprintf(w, "%s, ClockOffset(ms), %.3f\n", sec, a.ClockOffset)
	}
}

// saveFleetNow is the `s` key of a fleet run: the merged report so far,
// with the agents, as saveNow writes a single run's.
func saveFleetNow(c *fleet.Coordinator, e *exports) (string, error) {
	results := c.Current()
	return saveResults(results, c.Info(), e, func(w io.Writer, res []*engine.PhaseResult) {
		report.WriteText(w, res, c.Info())
		writeFleetText(w, c)
	}, func(w io.Writer, res []*engine.PhaseResult) error { return writeFleetDoc(w, res, c, e.baselineRun()) })
}

// writeFleetJSON is the JSON summary of the merged run with "agents":
// each agent's figures, host facts and its own reports.
func writeFleetJSON(path string, results []*engine.PhaseResult, c *fleet.Coordinator, base *baselineRun) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := writeFleetDoc(f, results, c, base); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeFleetDoc writes the fleet's JSON summary.
func writeFleetDoc(w io.Writer, results []*engine.PhaseResult, c *fleet.Coordinator, base *baselineRun) error {
	var b strings.Builder
	if err := report.WriteJSON(&b, results, c.Info()); err != nil {
		return err
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		return err
	}
	doc["agents"] = c.Agents()
	fl := map[string]any{"agents": len(c.Agents()), "lost": c.Lost(), "threads_per_agent": c.ThreadsPerAgent(),
		"partitions_divided": c.Divided()}
	if v, missing, ok := c.StreamVerdict(); ok {
		fl["stream"] = fleetStreamJSON{Verdict: v, OK: v.OK() && missing == 0, MissingLedgers: missing}
	}
	doc["fleet"] = fl
	if base != nil {
		doc["baseline"] = base.jsonMember()
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(out, '\n'))
	return err
}

// fleetStreamJSON is the fleet's verdict on a shared stream's rows in the
// JSON summary ("fleet": {"stream": ...}).
type fleetStreamJSON struct {
	stream.Verdict
	// OK: every row delivered exactly once, in order, and every agent's
	// ledger merged.
	OK bool `json:"ok"`
	// MissingLedgers counts agents (lost ones) whose rows could not be
	// accounted.
	MissingLedgers int `json:"missing_ledgers"`
}

// writeFleetStream writes the fleet's verdict on a shared stream's rows
// (every agent's ledger merged), in the [STREAM] lines' form.
func writeFleetStream(w io.Writer, c *fleet.Coordinator) {
	v, missing, ok := c.StreamVerdict()
	if !ok {
		return
	}
	line := func(k string, x any) { fmt.Fprintf(w, "[STREAM-FLEET], %s, %v\n", k, x) }
	line("Ledgers", v.Ledgers)
	if missing > 0 {
		line("MissingLedgers", missing)
	}
	line("RowsProduced", v.Produced)
	line("RowsConsumed", v.Consumed)
	line("RowsLost", v.Lost)
	line("RowsDuplicated", v.Duplicated)
	line("RowsOutOfOrder", v.OutOfOrder)
	line("RowsUnknown", v.Unknown)
	line("FailedWrites", v.FailedWrites)
	for _, l := range v.PerLedger {
		fmt.Fprintf(w, "[STREAM-FLEET], Origin %d RowsProduced, %d\n", l.Origin, l.Produced)
		fmt.Fprintf(w, "[STREAM-FLEET], Origin %d RowsConsumed, %d\n", l.Origin, l.Consumed)
	}
	verdict := "OK"
	if !v.OK() || missing > 0 {
		verdict = "FAILED"
	}
	line("Verdict", verdict)
}
