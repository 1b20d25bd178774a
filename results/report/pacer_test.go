package report

import (
	"bytes"
	"strings"
	"testing"

	"benchtop/engine"
	"benchtop/engine/measure"
)

func TestPacerLineAndJSON(t *testing.T) {
	t.Parallel()
	h := measure.NewHistogram()
	for range 99 {
		_ = h.RecordValue(3000)
	}
	_ = h.RecordValue(2_000_000)
	res := &engine.PhaseResult{Pacer: &engine.PacerStats{Ops: 100, Behind: 1, Late: h}}
	var b bytes.Buffer
	writePacer(&b, res)
	want := "# pacer: 100 paced operations started late by p50 3.00µs, p99 3.00µs, max 2.00ms"
	if !strings.HasPrefix(b.String(), want) || !strings.Contains(b.String(), "1 of them behind the schedule") {
		t.Errorf("got %q, want it to start %q and count 1 behind", b.String(), want)
	}
	s := pacerSummary(res.Pacer)
	if s.Ops != 100 || s.Behind != 1 || s.LateP50US < 2.99 || s.LateP50US > 3.01 || s.LateMaxUS < 1999 || s.LateMaxUS > 2001 {
		t.Errorf("summary %+v", s)
	}
	b.Reset()
	writePacer(&b, &engine.PhaseResult{})
	if b.Len() != 0 || pacerSummary(nil) != nil {
		t.Errorf("unpaced: got %q, want nothing", b.String())
	}
}
