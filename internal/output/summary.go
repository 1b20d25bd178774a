package output

import (
	"encoding/json"
	"fmt"
	"io"

	"benchtop/engine"
	"benchtop/results/report"
	"benchtop/results/steps"
	"benchtop/rundata"
	"benchtop/workload"
)

// Summary is the JSON summary document (--json, and the .json the s key
// saves): the run's summary as results/report builds it, the workload's
// closing section under its own key (e.g. "stream"), and the members the
// command adds, each a typed field: "failed_steps", "baseline",
// "capacity" (--find-max), and a fleet's "agents" and "fleet".
type Summary struct {
	*report.Summary
	FailedSteps []FailedStep    `json:"failed_steps,omitempty"`
	Baseline    *BaselineMember `json:"baseline,omitempty"`
	// Capacity is a --find-max search's outcome.
	Capacity *rundata.Capacity `json:"capacity,omitempty"`
	// ReportFile is where the text report went when the run lost its
	// terminal (SIGHUP): ReportPath.
	ReportFile string `json:"report_file,omitempty"`
	*FleetMembers
	closing *workload.Final // written under closing.JSONKey
}

// FailedStep is a failed step in the JSON summary.
type FailedStep struct {
	Step   string  `json:"step"`
	AtS    float64 `json:"at_s"`
	Source string  `json:"source"`
	Error  string  `json:"error"`
}

// NewSummary is the JSON summary of results, with the closing section of
// the workload's last phase; base (nil: none) is the baseline it names.
func NewSummary(results []*engine.PhaseResult, info engine.Info, base *Baseline) *Summary {
	s := &Summary{Summary: report.BuildSummary(results, info), Baseline: base.member()}
	if n := len(results); n > 0 && results[n-1].Closing != nil && results[n-1].Closing.JSONKey != "" {
		s.closing = results[n-1].Closing
	}
	return s
}

// WithFailedSteps adds the steps that failed during the run.
func (s *Summary) WithFailedSteps(failed []steps.Failure) *Summary {
	for _, f := range failed {
		s.FailedSteps = append(s.FailedSteps, FailedStep{Step: f.Step.String(), AtS: f.Step.At.Seconds(), Source: f.Step.Source, Error: OneLine(f.Err)})
	}
	return s
}

// MarshalJSON writes the document's members, then the closing section
// under its key (and the closing's "problems", if any): a workload names
// its key, so it is no field of the struct.
func (s *Summary) MarshalJSON() ([]byte, error) {
	type members Summary // without this method
	b, err := json.Marshal((*members)(s))
	if err != nil || s.closing == nil {
		return b, err
	}
	c := s.closing
	section, err := json.Marshal(c.JSON)
	if err != nil {
		return nil, fmt.Errorf("%s section: %w", c.JSONKey, err)
	}
	b = appendMember(b, c.JSONKey, section)
	if len(c.Problems) > 0 {
		problems, err := json.Marshal(c.Problems)
		if err != nil {
			return nil, err
		}
		b = appendMember(b, "problems", problems)
	}
	return b, nil
}

// appendMember adds "key": value to the JSON object obj.
func appendMember(obj []byte, key string, value []byte) []byte {
	k, _ := json.Marshal(key)
	out := append([]byte(nil), obj[:len(obj)-1]...) // without the closing brace
	if len(out) > 1 {
		out = append(out, ',')
	}
	out = append(append(append(out, k...), ':'), value...)
	return append(out, '}')
}

// Write writes the document, indented, with a final newline.
func (s *Summary) Write(w io.Writer) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
