package htmlreport

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/results/report"
)

// The recorder takes the run's data directly; what it keeps must be what
// ReadCSV and ReadHDRLog read back from the --timeseries and --hdr-log
// files of the same run, figure for figure, so that a live page equals
// the one `benchtop report` makes from those files. Random figures and
// interval times at every millisecond offset exercise the files'
// rounding (three decimals, times truncated to a ms by the log reader).
func TestRecorderKeepsWhatTheExportsHold(t *testing.T) {
	if testing.Short() {
		t.Skip("400 intervals of histograms, 5 s of CPU (go test -short skips it)")
	}
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 11))
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(rng.Int64N(int64(time.Second))))
	rec := NewRecorder(start)
	var csvBuf, logBuf bytes.Buffer
	ts := report.NewTimeSeries(&csvBuf)
	hl := report.NewHDRLog(&logBuf, start)
	names := []string{"READ", "UPDATE", "READ-MODIFY-WRITE"}
	at := start
	for i := range 400 {
		length := time.Duration(900+rng.IntN(200))*time.Millisecond + time.Duration(rng.IntN(1e6))
		end := at.Add(length)
		phase := engine.PhaseRun
		if i < 20 {
			phase = engine.PhaseLoad
		}
		set := &measure.Set{}
		for op := range names {
			for _, v := range []int{measure.OK, measure.OKIntended, measure.Failed} {
				if rng.IntN(4) == 0 {
					continue // some histograms stay empty
				}
				for range 1 + rng.IntN(50) {
					set.Record(measure.Slot(op, v), 1+rng.Int64N(int64(50*time.Millisecond)))
				}
			}
		}
		s := &engine.Snapshot{Seq: i + 1, Time: end, Elapsed: end.Sub(start), Interval: length, Phase: phase,
			Threads: 1 + rng.IntN(64), Partitions: rng.IntN(9), Target: rng.Float64() * 1e5,
			Total: engine.OpSnapshot{Interval: engine.Stats{Count: rng.Int64N(1e7), Errors: rng.Int64N(100), Rate: rng.Float64() * 1e6,
				P50: time.Duration(rng.Int64N(1e8)), P95: time.Duration(rng.Int64N(1e8)), P99: time.Duration(rng.Int64N(1e9))}},
			Host: host.Sample{ProcCPU: rng.Float64() * 400, ProcRSS: rng.Uint64N(1 << 40),
				NICs: []host.NIC{{RxBytesPerSec: rng.Float64() * 1e9, TxBytesPerSec: rng.Float64() * 1e9}, {RxBytesPerSec: rng.Float64()}}}}
		if i%3 != 0 {
			s.Host.Cores, s.Host.CPUTotal = 2, rng.Float64()*100
		}
		if i%50 == 7 {
			s.Total.Interval.Rate = -rng.Float64() / 1e4 // rounds to -0
		}
		if tot := &s.Total.Interval; i%7 != 3 { // else nothing succeeded: no latency
			tot.OK = tot.Count - tot.Errors
		}
		for _, hook := range []func(*engine.Snapshot){ts.Write, rec.Snapshot} {
			hook(s)
		}
		for _, hook := range []func(engine.Phase, []string, time.Time, time.Time, *measure.Set){hl.Interval, rec.Interval} {
			hook(phase, names, at, end, set)
		}
		at = end
	}
	if err := ts.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := hl.Flush(); err != nil {
		t.Fatal(err)
	}

	live, err := rec.Run(nil, engine.Info{Start: start})
	if err != nil {
		t.Fatal(err)
	}
	files := &Run{Summary: live.Summary}
	if err := files.ReadCSV(&csvBuf); err != nil {
		t.Fatal(err)
	}
	if err := files.ReadHDRLog(&logBuf); err != nil {
		t.Fatal(err)
	}
	// As printed, so that -0 and 0 differ.
	if len(live.Rows) != 400 || fmt.Sprintf("%+v", live.Rows) != fmt.Sprintf("%+v", files.Rows) {
		for i := range min(len(live.Rows), len(files.Rows)) {
			if fmt.Sprintf("%+v", live.Rows[i]) != fmt.Sprintf("%+v", files.Rows[i]) {
				t.Fatalf("row %d:\nrecorded %+v\nfrom CSV %+v", i, live.Rows[i], files.Rows[i])
			}
		}
		t.Fatalf("%d rows recorded, %d in the CSV", len(live.Rows), len(files.Rows))
	}
	if len(live.Intervals) != len(files.Intervals) || len(live.Intervals) < 1000 {
		t.Fatalf("%d intervals recorded, %d in the log", len(live.Intervals), len(files.Intervals))
	}
	for i, a := range live.Intervals {
		b := files.Intervals[i]
		if a.Op != b.Op || a.Load != b.Load || a.Intended != b.Intended || a.Failed != b.Failed || a.StartS != b.StartS || a.EndS != b.EndS {
			t.Fatalf("interval %d:\nrecorded %+v\nfrom log %+v", i, a, b)
		}
		if a.H.TotalCount() != b.H.TotalCount() || !slices.Equal(a.H.Export().Counts, b.H.Export().Counts) {
			t.Fatalf("interval %d (%s): the histograms differ", i, a.Op)
		}
	}
}
