package cli

import "testing"

// The policy's precedence: 2, 1, 3, the signals, 99, 4, 0 (first wins).
func TestExitStatusPrecedence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		codes []int
		want  int
	}{
		{nil, exitOK},
		{[]int{exitOK, exitOK}, exitOK},
		{[]int{exitThresholds, exitUntrusted}, exitThresholds},
		{[]int{exitUntrusted, exitOK}, exitUntrusted},
		{[]int{130, exitThresholds}, 130},
		{[]int{exitThresholds, 143}, 143},
		{[]int{131, exitIncomplete}, exitIncomplete},
		{[]int{exitIncomplete, exitFailure}, exitFailure},
		{[]int{130, exitFailure}, exitFailure},
		{[]int{exitFailure, exitUsage, 143}, exitUsage},
		{[]int{0, 0, exitThresholds, 0}, exitThresholds},
	} {
		if got := exitStatus(c.codes...); got != c.want {
			t.Errorf("exitStatus(%v) = %d, want %d", c.codes, got, c.want)
		}
	}
}

// The load command the NOT_FOUND hint suggests: the user's own adapter,
// -P files, -p properties (secrets masked) and agents; nothing else of
// the run's.
func TestLoadCommand(t *testing.T) {
	t.Parallel()
	o := &options{DB: "redis", Args: []string{"run", "redis", "-P", "workloads/workloadc", "-p", "redis.addr=10.0.0.5:6379",
		"-p", "redis.password=s3cret", "--duration", "10s", "-threads", "8", "--json", "x.json", "--threshold", "READ.p99<10ms",
		"--agents", "a:7070,b:7070", "-p=recordcount=5000", "--sweep", "threads=1,2"}}
	got := loadCommand(o)
	want := "benchtop load redis -P workloads/workloadc -p redis.addr=10.0.0.5:6379 -p 'redis.password=****' -threads 8 --agents a:7070,b:7070 -p=recordcount=5000"
	if got != want {
		t.Errorf("loadCommand:\n got %s\nwant %s", got, want)
	}
}
