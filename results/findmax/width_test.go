package findmax

import (
	"encoding/json"
	"strings"
	"testing"
)

// A search whose last pass is above the unlimited probe's rate, with no
// paced failure above it, has a bracket with no upper side: its width is
// absent (JSON null), not +Inf, so that the JSON summary can be written
// (CI once lost the summary of a crowded Redis search this way: "json:
// unsupported value: +Inf"), and the reason says so in words.
func TestBracketWithoutAnUpperSide(t *testing.T) {
	t.Parallel()
	unlimited := &probe{Probe: Probe{N: 1, Outcome: Pass, GoodputOpsSec: 28_538}}
	lo := &probe{Probe: Probe{N: 20, Outcome: Pass, TargetOpsSec: 32_000, GoodputOpsSec: 32_001}}
	b := &bracket{upper: 28_538, unlimited: unlimited, lo: lo, hi: unlimited, ended: "budget",
		probes: []*probe{unlimited, lo}, outcome: Answer}
	res := b.result(Spec{Precision: DefaultPrecision})
	if res.Bracket.Width != nil {
		t.Errorf("width %v, want none", *res.Bracket.Width)
	}
	if _, err := json.Marshal(res); err != nil {
		t.Fatalf("the result does not encode: %v", err)
	}
	var unclosed string
	for _, r := range res.Reasons {
		if r.Kind == ReasonUnclosed {
			unclosed = r.Text
		}
	}
	if !strings.Contains(unclosed, "32,000 ops/s passed, above the unlimited probe's 28,538 ops/s") || strings.Contains(unclosed, "Inf") {
		t.Errorf("the unclosed bracket's reason %q", unclosed)
	}
}
