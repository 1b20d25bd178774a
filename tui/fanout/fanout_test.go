package fanout

import (
	"testing"
	"time"

	"benchtop/engine"
)

func snap(seq int) *engine.Snapshot {
	return &engine.Snapshot{Seq: seq, Elapsed: time.Duration(seq) * time.Second, Phase: engine.PhaseRun}
}

// A subscriber that never reads keeps only its newest snapshots, and the
// others still get every one, in order.
func TestSlowSubscriberNeverBlocks(t *testing.T) {
	src := make(chan *engine.Snapshot)
	b := New(src)
	fast, _ := b.Subscribe(1000)
	slow, _ := b.Subscribe(2)
	const n = 500
	for i := 1; i <= n; i++ {
		select {
		case src <- snap(i):
		case <-time.After(time.Minute):
			t.Fatalf("the broadcaster blocked on snapshot %d", i)
		}
	}
	close(src)
	<-b.Done()
	var got []int
	for s := range fast.C() {
		got = append(got, s.Seq)
	}
	if len(got) != n || got[0] != 1 || got[n-1] != n {
		t.Fatalf("fast subscriber got %d snapshots (%v...), want all %d", len(got), got[:min(5, len(got))], n)
	}
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1]+1 {
			t.Fatalf("out of order at %d: %v", i, got[i-1:i+1])
		}
	}
	var kept []int
	for s := range slow.C() {
		kept = append(kept, s.Seq)
	}
	if len(kept) != 2 || kept[0] != n-1 || kept[1] != n {
		t.Errorf("slow subscriber kept %v, want the newest two [%d %d]", kept, n-1, n)
	}
	if slow.Dropped() != n-2 {
		t.Errorf("slow subscriber dropped %d, want %d", slow.Dropped(), n-2)
	}
}

func TestLateSubscriberGetsTheRunSoFar(t *testing.T) {
	src := make(chan *engine.Snapshot)
	b := New(src)
	probe, _ := b.Subscribe(10)
	for i := 1; i <= 3; i++ {
		src <- snap(i)
		<-probe.C() // the broadcaster has handled it
	}
	late, backlog := b.Subscribe(10)
	if len(backlog) != 3 || backlog[0].Seq != 1 || backlog[2].Seq != 3 {
		t.Fatalf("backlog = %d snapshots, want 1..3", len(backlog))
	}
	if b.Count() != 2 {
		t.Errorf("Count = %d, want 2", b.Count())
	}
	late.Close()
	if b.Count() != 1 {
		t.Errorf("Count after Close = %d, want 1", b.Count())
	}
	if _, ok := <-late.C(); ok {
		t.Error("a closed subscriber's channel delivers")
	}
	src <- snap(4) // no send to the closed subscriber
	<-probe.C()
	close(src)
	<-b.Done()
	after, backlog := b.Subscribe(1)
	if _, ok := <-after.C(); ok || len(backlog) != 4 {
		t.Errorf("after the end: open channel or backlog %d, want closed and 4", len(backlog))
	}
}

func TestReplayIsBounded(t *testing.T) {
	src := make(chan *engine.Snapshot)
	b := New(src)
	for i := 1; i <= ReplayCap+10; i++ {
		src <- snap(i)
	}
	close(src)
	<-b.Done()
	_, backlog := b.Subscribe(1)
	if len(backlog) != ReplayCap || backlog[0].Seq != 11 {
		t.Errorf("replay holds %d from %d, want %d from 11", len(backlog), backlog[0].Seq, ReplayCap)
	}
}
