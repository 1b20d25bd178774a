package workload

import (
	"encoding/json"
	"io"
)

// Group is a workload's part in a run split across processes: a fleet's
// agents (package fleet), or the processes of one consumer group that
// `benchtop verdict` judges from their JSON summaries. A workload without
// one runs on a fleet as any other (threads, target and operation count
// split); the stream registers one. Its ledgers travel encoded (as
// TakeLedger encodes them), so that the fleet's protocol and the command
// line carry them without knowing the workload.
type Group struct {
	// Partitioned: the workload owns partitions, which a fleet divides
	// among its agents unless the adapter's server divides them among a
	// group's consumers (adapters.Capabilities.SharedPartitions): then
	// every agent gets the whole count and the partitions are shared.
	Partitioned bool
	// AgentProps sets agent i's (from 0) own properties in props (the
	// stream's origin: rows name their producer across the fleet).
	AgentProps func(props map[string]string, i int)
	// SplitLoad, when set, gives agent i of n its part of a load into a
	// store the agents share, so that the fleet loads every record once:
	// it sets the part in props (YCSB's parallel-load recipe, insertstart
	// and insertcount) and returns where it starts and how many it holds.
	SplitLoad func(props map[string]string, i, n int) (start, count int64)
	// MergeViews adds the agents' views of one interval (nil ones
	// skipped) into the fleet's; shared as in Partitioned.
	MergeViews func(views []*View, shared bool) *View
	// TakeLedger takes a process's ledger out of its closing section (so
	// that it travels once) and returns it encoded; nil when it has none.
	TakeLedger func(f *Final) (json.RawMessage, error)
	// LedgerTooLarge is the problem an agent reports when its ledger does
	// not fit in one frame of the protocol (limit bytes).
	LedgerTooLarge func(ledger json.RawMessage, limit int) string
	// MergeClosing adds the agents' closing sections (in their JSON
	// summaries, as the agents sent them) into the fleet's; v is the
	// merged ledgers' verdict of a shared run, nil otherwise. Nil when no
	// summary holds the workload's section.
	MergeClosing func(parts []json.RawMessage, shared bool, v Verdict) *Final
	// Merge merges ledgers (as TakeLedger encoded them) into the group's
	// verdict; missing counts the processes whose ledger is missing (a
	// fleet's lost agents).
	Merge func(ledgers []json.RawMessage, missing int) (Verdict, error)
	// ReadMember reads one process's part from its JSON summary (path
	// names it in errors, which say why the summary has none).
	ReadMember func(path string, summary []byte) (*Member, error)
}

// Verdict is a group's merged account of its ledgers.
type Verdict interface {
	// OK: every row accounted for and no ledger missing.
	OK() bool
	// Problems are the verdict's failures, one line each.
	Problems() []string
	// Notes are what it says without failing, one line each.
	Notes() []string
	// Lost counts what was acknowledged and delivered by no process.
	Lost() int64
	// WriteText writes its report lines.
	WriteText(w io.Writer)
	// JSONKey and JSON are its member of a JSON document (the fleet's
	// figures, `benchtop verdict --json`).
	JSONKey() string
	JSON() any
}

// Member is one process's part of a group's verdict, read from its JSON
// summary: its ledger, its identity in the group, its own verdict and the
// problems its run found.
type Member struct {
	Path     string
	Ledger   json.RawMessage
	Origin   int
	Run      uint32
	Verdict  string   // its own: complete or partial
	Problems []string // its run's problems (the JSON's "problems")
}

// Groups are the registered workloads' Group parts, by workload name.
func Groups() map[string]*Group {
	mu.RLock()
	defer mu.RUnlock()
	out := map[string]*Group{}
	for n, f := range factories {
		if f.Group != nil {
			out[n] = f.Group
		}
	}
	return out
}

// GroupOf is the Group part of the workload registered under name (nil:
// none, or no such workload).
func GroupOf(name string) *Group {
	f, ok := Lookup(name)
	if !ok {
		return nil
	}
	return f.Group
}

// Portion is agent i's part of total split over n agents: the first
// total%n agents get one more, so the parts add up to total exactly.
func Portion(total int64, i, n int) int64 {
	if n <= 0 {
		return total
	}
	p := total / int64(n)
	if int64(i) < total%int64(n) {
		p++
	}
	return p
}

// PortionStart is where agent i's part starts: the sum of the parts
// before it.
func PortionStart(total int64, i, n int) int64 {
	if n <= 0 {
		return 0
	}
	q, r := total/int64(n), total%int64(n)
	return int64(i)*q + min(int64(i), r)
}
