package fleet

import (
	"encoding/json"
	"fmt"

	"benchtop/engine/measure"
)

// The coordinator reads every agent's interval with its histograms still
// encoded (measure.Encoded) and adds them straight into one sum per slot
// (measure.Accumulator): no Histogram of their own per agent.

// wireInterval is an Interval as the coordinator reads it.
type wireInterval struct {
	Interval
	Set *measure.Wire
}

// decodeInterval reads an interval message: its Set's counters into
// iv.Set and the Set still encoded into iv.enc. A Set of another encoding
// version or range is refused, as the Set's own decoder refuses it.
func decodeInterval(body []byte) (*Interval, error) {
	var w wireInterval
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("fleet: decode interval: %w", err)
	}
	iv := &w.Interval
	if w.Set != nil {
		enc := &measure.Encoded{}
		if err := enc.FromWire(w.Set); err != nil {
			return nil, fmt.Errorf("fleet: decode interval: %w", err)
		}
		iv.Set, iv.enc = &enc.Counters, enc
	}
	return iv, nil
}

// materialize decodes an interval's histograms into its Set, for hooks
// that need Histograms (the per-agent HDR log).
func materialize(iv *Interval) error {
	if iv.enc == nil {
		return nil
	}
	s, err := iv.enc.Set()
	if err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	iv.Set, iv.enc = s, nil
	return nil
}

// addInterval adds an interval's Set to the sum, from its encoding when
// it still has it.
func addInterval(sum *measure.Accumulator, iv *Interval) error {
	if iv.enc != nil {
		return sum.AddEncoded(iv.enc)
	}
	sum.Add(iv.Set)
	return nil
}
