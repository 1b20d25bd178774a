package output

// A shared stream's verdict across processes: each process of one
// consumer group (a fleet's agents, or processes started apart) writes
// its ledger into its JSON summary; a fleet's coordinator merges its
// agents' ledgers, `benchtop verdict` the ledgers of JSON summaries. Both
// print the same [STREAM-FLEET] lines.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"benchtop/internal/infile"
	"benchtop/workload/stream"
)

// Member is one process's part of a group's verdict, read from its JSON
// summary: its ledger, its own verdict and the problems it found.
type Member struct {
	Path     string
	Ledger   *stream.Ledger
	Verdict  string   // its own: complete or partial
	Problems []string // its run's problems (the JSON's "problems")
}

// errNoLedger is a JSON summary without a stream ledger.
var errNoLedger = errors.New("no stream ledger: benchtop verdict merges the JSON summaries (--json) of processes that consumed one stream in a group (kafka.group), and this run's stream was not shared")

// ReadMember reads a process's ledger from its JSON summary (--json).
// Errors name the file.
func ReadMember(path string) (*Member, error) {
	b, err := infile.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, PathCause(err))
	}
	var doc struct {
		Stream *struct {
			Verdict string         `json:"verdict"`
			Ledger  *stream.Ledger `json:"ledger"`
		} `json:"stream"`
		Problems []string `json:"problems"`
		Fleet    *struct {
			Stream json.RawMessage `json:"stream"`
		} `json:"fleet"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%s: not a benchtop JSON summary: %v", path, err)
	}
	switch {
	case doc.Stream == nil:
		return nil, fmt.Errorf("%s: no \"stream\" section: not a run of the stream workload", path)
	case doc.Stream.Ledger == nil && doc.Fleet != nil && len(doc.Fleet.Stream) > 0:
		return nil, fmt.Errorf("%s: a fleet's summary, whose coordinator merged its agents' ledgers already (its [STREAM-FLEET] lines are the verdict)", path)
	case doc.Stream.Ledger == nil:
		return nil, fmt.Errorf("%s: %w", path, errNoLedger)
	}
	return &Member{Path: path, Ledger: doc.Stream.Ledger, Verdict: doc.Stream.Verdict, Problems: doc.Problems}, nil
}

// WriteStreamVerdict writes a merged verdict in the [STREAM] lines' form:
// the [STREAM-FLEET] lines; missing counts processes whose ledger could
// not be merged (a fleet's lost agents).
func WriteStreamVerdict(w io.Writer, v stream.Verdict, missing int) {
	line := func(k string, x any) { fmt.Fprintf(w, "[STREAM-FLEET], %s, %v\n", k, x) }
	line("Ledgers", v.Ledgers)
	if missing > 0 {
		line("MissingLedgers", missing)
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
	if !v.OK() || missing > 0 {
		verdict = "FAILED"
	}
	line("Verdict", verdict)
}

// VerdictNotes are what a merged verdict says without failing.
func VerdictNotes(v stream.Verdict) []string {
	var out []string
	for _, o := range v.SharedOrigins {
		out = append(out, fmt.Sprintf("stream: origin %d was drawn by more than one process; their run ids tell them apart, so the verdict holds (stream.origin sets distinct origins)", o))
	}
	return out
}

// VerdictDoc is the JSON document `benchtop verdict --json` writes: the
// merged verdict and the summaries it merged.
type VerdictDoc struct {
	Stream   FleetStream     `json:"stream"`
	Members  []VerdictMember `json:"members"`
	Problems []string        `json:"problems,omitempty"`
	Notes    []string        `json:"notes,omitempty"`
}

// VerdictMember is one merged summary in a VerdictDoc.
type VerdictMember struct {
	Path    string `json:"path"`
	Origin  int    `json:"origin"`
	Run     uint32 `json:"run"`
	Verdict string `json:"verdict"`
}

// Write writes the document, indented, with a final newline.
func (d *VerdictDoc) Write(w io.Writer) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteFile writes the document to path, whole or not at all.
func (d *VerdictDoc) WriteFile(path string) error {
	return writeFileAtomic(path, d.Write)
}
