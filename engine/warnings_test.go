package engine

import (
	"strings"
	"testing"
	"time"

	"benchtop/engine/host"
)

// The advice on a target not met is what can help. With the client's
// CPU full, the host's (by whoever) or benchtop's share of its cores, the
// client is the limit and more threads are never suggested, however busy
// the threads; on cores to spare, more threads are suggested when every
// thread is in an operation all the time (4 threads of 8 ms reach 500
// ops/s at most), nothing when the threads idle (4 threads of 1 ms at 500
// ops/s are busy half a thread).
func TestNoMoreThreadsWhileTheCPUIsFull(t *testing.T) {
	t.Parallel()
	full, own, spare := host.Sample{Cores: 2, CPUTotal: 97, ProcCPU: 20}, host.Sample{Cores: 2, CPUTotal: 80, ProcCPU: 190}, host.Sample{Cores: 2, CPUTotal: 40, ProcCPU: 30}
	limit := "(the client is the limit: its CPU is full)"
	cases := []struct {
		name string
		host host.Sample
		mean time.Duration
		want string
	}{
		{"host full, threads idle", full, time.Millisecond, limit},
		{"benchtop full, threads idle", own, time.Millisecond, limit},
		{"host full, service time unknown", full, 0, limit},
		{"host full, threads busy", full, 8 * time.Millisecond, limit},
		{"benchtop full, threads busy", own, 8 * time.Millisecond, limit},
		{"cores to spare, threads busy", spare, 8 * time.Millisecond, "(more threads?)"},
		{"cores to spare, threads idle", spare, time.Millisecond, "for 3 intervals"},
		{"nothing known", host.Sample{}, 0, "(more threads?)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bottleneck
			var got []string
			for range 3 {
				got = b.check(interval{target: 1000, rate: 500, threads: 4, ops: 500, host: c.host, procs: 2, mean: c.mean})
			}
			if len(got) == 0 || !strings.HasPrefix(got[0], "target not met: 500 of 1000 target ops/s for 3 intervals") {
				t.Fatalf("warnings %q, want the target not met first", got)
			}
			if !strings.HasSuffix(got[0], c.want) {
				t.Errorf("%q, want it to end %q", got[0], c.want)
			}
			if c.want != "(more threads?)" && strings.Contains(strings.Join(got, " | "), "more threads") {
				t.Errorf("more threads suggested where they cannot help: %q", got)
			}
		})
	}
}

// A schedule lag that keeps growing says how late and gives the same
// advice; it does not call the client the bottleneck (a server at its
// capacity makes it grow as well).
func TestGrowingLagGivesTheSameAdvice(t *testing.T) {
	t.Parallel()
	var b bottleneck
	var got []string
	for i := range 4 {
		got = b.check(interval{target: 1000, rate: 990, threads: 4, ops: 990, procs: 2, mean: time.Millisecond,
			maxLag: int64(time.Duration(i+1) * 50 * time.Millisecond), host: host.Sample{Cores: 2, CPUTotal: 99, ProcCPU: 10}})
	}
	if len(got) != 2 || got[0] != "behind the target schedule: 200ms late and growing (the client is the limit: its CPU is full)" {
		t.Fatalf("warnings %q", got)
	}
	if !strings.HasPrefix(got[1], "host busy: other processes use") {
		t.Errorf("the busy host: %q", got[1])
	}
}
