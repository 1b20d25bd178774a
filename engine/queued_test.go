package engine

import (
	"errors"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
)

// queuer is a worker's Queued with a fixed answer.
type queuer []int64

func (q queuer) Queued() ([]int64, bool) { return q, true }

// TestRecordQueuedIsYCSBRule checks the arithmetic of YCSB's JdbcDBClient
// with jdbc.batchupdateapi=true: each queued record is a BATCHED_OK of its
// own addBatch time, the record that fills the batch an OK of its own
// addBatch plus executeBatch and commit, which is the step's span less the
// others' queuing; so the batch's latencies add up to the step's span.
func TestRecordQueuedIsYCSBRule(t *testing.T) {
	t.Parallel()
	const us = int64(1000)
	took := []int64{2 * us, 3 * us, 1 * us}
	start, end := int64(5_000_000), int64(5_000_000)+10_006*us
	ws := &wstate{rec: measure.NewRecorder(), late: &lateness{}, queue: queuer(took)}
	got, batched := ws.queued(nil)
	if len(got) != 3 || !batched {
		t.Fatalf("queued = %v, want the worker's %v", got, took)
	}
	if d := sentLatency(end-start, took); d != 10_000*us {
		t.Fatalf("sentLatency = %d ns, want 10,006 µs span - 6 µs queuing = 10,000 µs", d)
	}
	ws.recordQueued(0, 4, got, true, start, end, start-50*us, true, false)
	set := ws.rec.Lock()
	defer ws.rec.Unlock()
	h := set.H[measure.Slot(0, measure.OK)]
	if set.Ops != 4 || set.Batched[0] != 3 || h.TotalCount() != 4 {
		t.Fatalf("ops %d, batched %d, OK histogram %d; want 4, 3 (BATCHED_OK), 4 (OK and BATCHED_OK)", set.Ops, set.Batched[0], h.TotalCount())
	}
	if !h.Equals(histOf(2*us, 3*us, 1*us, 10_000*us)) {
		t.Errorf("OK histogram: want the latencies 2, 3, 1 µs (queued) and 10,000 µs (sent), got min %d max %d mean %.0f ns", h.Min(), h.Max(), h.Mean())
	}
	if sum := 6*us + 10_000*us; sum != end-start {
		t.Errorf("latencies add up to %d, the step spans %d", sum, end-start)
	}
	ih := set.H[measure.Slot(0, measure.OKIntended)]
	if !ih.Equals(histOf(52*us, 53*us, 51*us, 10_050*us)) {
		t.Errorf("intended latencies: want each record's plus the 50 µs lag (52 µs, ..., 10,050 µs), got count %d, max %d", ih.TotalCount(), ih.Max())
	}
}

// TestRecordQueuedShortBatch: the load's last batch is short; all its
// records are queued (BATCHED_OK), and its sending, YCSB's cleanup, is
// measured by none.
func TestRecordQueuedShortBatch(t *testing.T) {
	t.Parallel()
	ws := &wstate{rec: measure.NewRecorder()}
	ws.recordQueued(0, 2, []int64{4000, 5000}, true, 0, 9_000_000, 0, false, false)
	set := ws.rec.Lock()
	defer ws.rec.Unlock()
	h := set.H[measure.Slot(0, measure.OK)]
	if set.Ops != 2 || set.Batched[0] != 2 || h.TotalCount() != 2 || h.Max() > 5100 {
		t.Errorf("ops %d, batched %d, count %d, max %d ns: want 2, 2, 2 and no latency of the 9 ms sending", set.Ops, set.Batched[0], h.TotalCount(), h.Max())
	}
}

// TestQueuedOnlyOnSuccess: a failed batch is recorded as today (every
// record failed, with the step's latency), not as queued.
func TestQueuedOnlyOnSuccess(t *testing.T) {
	t.Parallel()
	ws := &wstate{queue: queuer{1, 2}}
	if got, _ := ws.queued(errors.New("boom")); got != nil {
		t.Errorf("queued after an error = %v, want nil", got)
	}
	if got, _ := (&wstate{}).queued(nil); got != nil {
		t.Errorf("queued of a worker without Queuer = %v, want nil", got)
	}
}

// histOf is a histogram of the given values.
func histOf(vals ...int64) *hdr.Histogram {
	h := measure.NewHistogram()
	for _, v := range vals {
		_ = h.RecordValue(v)
	}
	return h
}

// TestRecordRowTimed is YCSB's rule with jdbc.autocommit=false and no
// jdbc.batchupdateapi: every record is OK, timed over its own statement,
// the last one's over its statement and the commit (the rest of the step).
func TestRecordRowTimed(t *testing.T) {
	t.Parallel()
	const us = int64(1000)
	ws := &wstate{rec: measure.NewRecorder()}
	ws.recordQueued(0, 3, []int64{300 * us, 200 * us}, false, 0, 2_500*us, 0, false, false)
	set := ws.rec.Lock()
	defer ws.rec.Unlock()
	h := set.H[measure.Slot(0, measure.OK)]
	if set.Ops != 3 || set.Batched[0] != 0 || !h.Equals(histOf(300*us, 200*us, 2_000*us)) {
		t.Errorf("ops %d, batched %d, min %d max %d ns; want 3, 0 (all OK), latencies 300, 200 and 2,000 µs (statement and commit)",
			set.Ops, set.Batched[0], h.Min(), h.Max())
	}
}
