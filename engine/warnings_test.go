package engine

import (
	"strings"
	"testing"
	"time"

	"benchtop/engine/host"
)

// With the client's CPU full, a target not met is the client's limit:
// the advice says so and never asks for more threads, whether the cores
// are benchtop's or other processes'; with cores to spare it asks.
func TestNoMoreThreadsWhileTheCPUIsFull(t *testing.T) {
	cases := []struct {
		name string
		host host.Sample
		want string
	}{
		{"host full, others", host.Sample{Cores: 2, CPUTotal: 97, ProcCPU: 20}, "(the client is the limit: its CPU is full)"},
		{"benchtop full", host.Sample{Cores: 2, CPUTotal: 80, ProcCPU: 190}, "(the client is the limit: its CPU is full)"},
		{"cores to spare", host.Sample{Cores: 2, CPUTotal: 40, ProcCPU: 30}, "(more threads?)"},
		{"CPU unknown", host.Sample{}, "(more threads?)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bottleneck
			var got []string
			for range 3 {
				got = b.check(interval{target: 1000, rate: 500, threads: 4, ops: 500, host: c.host, procs: 2})
			}
			if len(got) == 0 || !strings.HasPrefix(got[0], "target not met: 500 of 1000 target ops/s for 3 intervals") {
				t.Fatalf("warnings %q, want the target not met first", got)
			}
			if !strings.HasSuffix(got[0], c.want) {
				t.Errorf("%q, want it to end %q", got[0], c.want)
			}
			if c.want != "(more threads?)" && strings.Contains(strings.Join(got, " | "), "more threads?") {
				t.Errorf("more threads suggested with the CPU full: %q", got)
			}
		})
	}
}

// A schedule lag that keeps growing says how late and gives the same
// advice; it does not call the client the bottleneck (a server at its
// capacity makes it grow as well).
func TestGrowingLagGivesTheSameAdvice(t *testing.T) {
	var b bottleneck
	var got []string
	for i := range 4 {
		got = b.check(interval{target: 1000, rate: 990, threads: 4, ops: 990, procs: 2,
			maxLag: int64(time.Duration(i+1) * 50 * time.Millisecond), host: host.Sample{Cores: 2, CPUTotal: 99, ProcCPU: 10}})
	}
	if len(got) != 2 || got[0] != "behind the target schedule: 200ms late and growing (the client is the limit: its CPU is full)" {
		t.Fatalf("warnings %q", got)
	}
	if !strings.HasPrefix(got[1], "host busy: other processes use") {
		t.Errorf("the busy host: %q", got[1])
	}
}
