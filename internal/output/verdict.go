package output

// A group's verdict across processes (a shared stream's rows): each
// process of one consumer group (a fleet's agents, or processes started
// apart) writes its ledger into its JSON summary; a fleet's coordinator
// merges its agents' ledgers, `benchtop verdict` the ledgers of JSON
// summaries, both by the workload's Group, which prints the same lines
// ([STREAM-FLEET]) for both.

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"

	"benchtop/internal/infile"
	"benchtop/workload"
)

// Member is one process's part of a group's verdict (its workload's
// Group reads it).
type Member = workload.Member

// ReadMember reads a process's ledger from its JSON summary (--json), by
// the Group of the workload whose ledger it holds. Errors name the file.
func ReadMember(path string) (*Member, *workload.Group, error) {
	b, err := infile.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, PathCause(err))
	}
	groups := workload.Groups()
	names := make([]string, 0, len(groups))
	for n, g := range groups {
		if g.ReadMember != nil {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var first error
	for _, n := range names {
		m, err := groups[n].ReadMember(path, b)
		if err == nil {
			return m, groups[n], nil
		}
		if first == nil {
			first = err
		}
	}
	if first == nil {
		first = fmt.Errorf("%s: no workload of this benchtop keeps a ledger", path)
	}
	return nil, nil, first
}

// VerdictDoc is the JSON document `benchtop verdict --json` writes: the
// merged verdict and the summaries it merged.
type VerdictDoc struct {
	// Verdict is the merged verdict, the document's first member (under
	// its JSONKey: "stream").
	Verdict  workload.Verdict `json:"-"`
	Members  []VerdictMember  `json:"members"`
	Problems []string         `json:"problems,omitempty"`
	Notes    []string         `json:"notes,omitempty"`
}

// MarshalJSON writes the verdict's member first, then the others.
func (d *VerdictDoc) MarshalJSON() ([]byte, error) {
	type plain VerdictDoc
	rest, err := json.Marshal((*plain)(d))
	if err != nil || d.Verdict == nil {
		return rest, err
	}
	k, err := json.Marshal(d.Verdict.JSONKey())
	if err != nil {
		return nil, err
	}
	v, err := json.Marshal(d.Verdict.JSON())
	if err != nil {
		return nil, err
	}
	out := append(append(append([]byte{'{'}, k...), ':'), v...)
	if len(rest) > 2 {
		out = append(append(out, ','), rest[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
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
