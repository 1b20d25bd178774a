package engine

import (
	"testing"
	"time"
)

// The histograms of a run stay with the recorders that use them: however
// many intervals are drained, two busy workers own at most two Sets each
// with their two slots (READ and UPDATE service time), and the idle
// recorders none. Passing a spare Set from recorder to recorder rotated
// every Set through the busy ones until all 65 had allocated every busy
// slot: about 70 MB of histograms on a long run.
func TestHistogramsStayWithBusyRecorders(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t, "run", map[string]string{"threadcount": "2", "operationcount": "0", "status.interval": "10s"})
	db := &fakeDB{}
	r, done, _, _ := startRunner(t, cfg, db)
	r.mu.Lock()
	p := r.cur
	r.mu.Unlock()
	for i := 0; i < 3*len(p.pool.recorders); i++ {
		before := db.total()
		for db.total() < before+4 {
			time.Sleep(50 * time.Microsecond)
		}
		p.drain(false)
	}
	r.Stop()
	waitResults(t, done)
	busy, total := 0, 0
	for _, rec := range p.pool.recorders {
		if n := rec.Allocated(); n > 0 {
			busy++
			total += n
		}
	}
	if busy > 2 || total > 2*2*2 {
		t.Fatalf("%d recorders hold %d histograms after %d drains; want at most 2 recorders with 8", busy, total, 3*len(p.pool.recorders))
	}
	if total == 0 {
		t.Fatal("no histogram allocated: the workers recorded nothing")
	}
}
