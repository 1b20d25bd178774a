package stream

// The stream's part in a run split across processes (workload.Group): a
// fleet's agents, each a stream of its own or all one shared stream, and
// `benchtop verdict`'s processes of one consumer group. Ledgers travel as
// JSON; the merged verdict prints the [STREAM-FLEET] lines.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"benchtop/workload"
)

// group is the stream's registration in workload.Factory.Group.
var group = &workload.Group{
	Partitioned: true,
	AgentProps: func(props map[string]string, i int) {
		// Rows name their producer uniquely across the fleet (one shared
		// stream: a row may be delivered by another agent).
		props[PropOrigin] = strconv.Itoa(i + 1)
	},
	MergeViews:     MergeViews,
	TakeLedger:     takeLedger,
	LedgerTooLarge: ledgerTooLarge,
	MergeClosing:   mergeClosing,
	Merge:          mergeLedgers,
	ReadMember:     readMember,
}

// takeLedger takes the ledger out of a closing summary: it goes once, as
// the agent's rows, not in the summary too.
func takeLedger(f *workload.Final) (json.RawMessage, error) {
	s, ok := f.JSON.(*Summary)
	if !ok || s.Ledger == nil {
		return nil, nil
	}
	b, err := json.Marshal(s.Ledger)
	if err != nil {
		return nil, fmt.Errorf("stream: encoding the ledger: %w", err)
	}
	s.Ledger = nil
	return b, nil
}

// ledgerTooLarge says that a row ledger (stream.keys x threads of a few
// hundred bytes each) does not fit in a frame of limit bytes.
func ledgerTooLarge(raw json.RawMessage, limit int) string {
	var l struct {
		Keys []json.RawMessage `json:"keys"`
	}
	_ = json.Unmarshal(raw, &l)
	return fmt.Sprintf("stream: this agent's row ledger (%d keys) is too large to send (%d-byte limit): fewer stream.keys or threads", len(l.Keys), limit)
}

// mergeClosing is the fleet's closing section: the agents' summaries
// (their JSON summaries' "stream" members) added up (SumSummaries); on a shared stream the row counts are the
// merged ledgers' verdict.
func mergeClosing(parts []json.RawMessage, shared bool, v workload.Verdict) *workload.Final {
	var sums []*Summary
	for _, raw := range parts {
		var doc struct {
			Stream *Summary `json:"stream"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil || doc.Stream == nil {
			continue
		}
		sums = append(sums, doc.Stream)
	}
	if len(sums) == 0 {
		return nil
	}
	sum := SumSummaries(sums, shared)
	if gv, ok := v.(*groupVerdict); ok && shared {
		gv.v.ApplyTo(sum)
	}
	f := FinalOf(sum)
	return &f
}

// mergeLedgers decodes and merges ledgers into the group's verdict.
func mergeLedgers(raws []json.RawMessage, missing int) (workload.Verdict, error) {
	ls := make([]*Ledger, 0, len(raws))
	for _, raw := range raws {
		var l Ledger
		if err := json.Unmarshal(raw, &l); err != nil {
			return nil, fmt.Errorf("stream: a ledger: %w", err)
		}
		ls = append(ls, &l)
	}
	return &groupVerdict{v: Merge(ls...), missing: missing}, nil
}

// errNoLedger is a JSON summary without a stream ledger.
var errNoLedger = errors.New("no stream ledger: benchtop verdict merges the JSON summaries (--json) of processes that consumed one stream in a group (kafka.group), and this run's stream was not shared")

// readMember reads a process's ledger from its JSON summary (--json).
func readMember(path string, b []byte) (*workload.Member, error) {
	var doc struct {
		Stream *struct {
			Verdict string          `json:"verdict"`
			Ledger  json.RawMessage `json:"ledger"`
		} `json:"stream"`
		Problems []string `json:"problems"`
		Fleet    *struct {
			Stream json.RawMessage `json:"stream"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a benchtop JSON summary: %v", path, err)
	}
	noLedger := doc.Stream != nil && (len(doc.Stream.Ledger) == 0 || string(doc.Stream.Ledger) == "null")
	switch {
	case doc.Stream == nil:
		return nil, fmt.Errorf("%s: no \"stream\" section: not a run of the stream workload", path)
	case noLedger && doc.Fleet != nil && len(doc.Fleet.Stream) > 0:
		return nil, fmt.Errorf("%s: a fleet's summary, whose coordinator merged its agents' ledgers already (its [STREAM-FLEET] lines are the verdict)", path)
	case noLedger:
		return nil, fmt.Errorf("%s: %w", path, errNoLedger)
	}
	var l Ledger
	if err := json.Unmarshal(doc.Stream.Ledger, &l); err != nil {
		return nil, fmt.Errorf("%s: not a benchtop JSON summary: %v", path, err)
	}
	return &workload.Member{Path: path, Ledger: doc.Stream.Ledger, Origin: l.Origin, Run: l.Run,
		Verdict: doc.Stream.Verdict, Problems: doc.Problems}, nil
}

// groupVerdict is a merged Verdict and the ledgers missing from it.
type groupVerdict struct {
	v       Verdict
	missing int
}

func (g *groupVerdict) OK() bool           { return g.v.OK() && g.missing == 0 }
func (g *groupVerdict) Problems() []string { return g.v.Problems() }
func (g *groupVerdict) Lost() int64        { return g.v.Lost }
func (g *groupVerdict) JSONKey() string    { return "stream" }

// Notes are what a merged verdict says without failing.
func (g *groupVerdict) Notes() []string {
	var out []string
	for _, o := range g.v.SharedOrigins {
		out = append(out, fmt.Sprintf("stream: origin %d was drawn by more than one process; their run ids tell them apart, so the verdict holds (stream.origin sets distinct origins)", o))
	}
	return out
}

// FleetVerdict is the verdict on a shared stream's rows (every process's
// ledger merged) as JSON documents give it: "fleet": {"stream": ...}.
type FleetVerdict struct {
	Verdict
	// OK: every row delivered exactly once, in order, and every
	// process's ledger merged.
	OK bool `json:"ok"`
	// MissingLedgers counts processes (a fleet's lost agents) whose rows
	// could not be accounted.
	MissingLedgers int `json:"missing_ledgers"`
}

func (g *groupVerdict) JSON() any {
	return &FleetVerdict{Verdict: g.v, OK: g.OK(), MissingLedgers: g.missing}
}

// WriteText writes the merged verdict in the [STREAM] lines' form: the
// [STREAM-FLEET] lines, with the ledgers missing from it.
func (g *groupVerdict) WriteText(w io.Writer) {
	v := g.v
	line := func(k string, x any) { fmt.Fprintf(w, "[STREAM-FLEET], %s, %v\n", k, x) }
	line("Ledgers", v.Ledgers)
	if g.missing > 0 {
		line("MissingLedgers", g.missing)
	}
	line("RowsProduced", v.Produced)
	line("RowsConsumed", v.Consumed)
	line("RowsLost", v.Lost)
	line("RowsDuplicated", v.Duplicated)
	line("RowsRedelivered", v.Redelivered)
	line("RowsOutOfOrder", v.OutOfOrder)
	line("RowsUnknown", v.Unknown)
	line("FailedWrites", v.FailedWrites)
	for _, o := range v.SharedOrigins {
		line("OriginDrawnTwice", o)
	}
	for _, l := range v.PerLedger {
		fmt.Fprintf(w, "[STREAM-FLEET], Origin %d RowsProduced, %d\n", l.Origin, l.Produced)
		fmt.Fprintf(w, "[STREAM-FLEET], Origin %d RowsConsumed, %d\n", l.Origin, l.Consumed)
	}
	verdict := "OK"
	if !g.OK() {
		verdict = "FAILED"
	}
	line("Verdict", verdict)
}
