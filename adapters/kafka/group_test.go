package kafka

import (
	"context"
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"benchtop/adapters"
)

// member is one process of a consumer group in the test: its stream and
// what each of its readers delivered.
type member struct {
	name string
	s    adapters.Stream
	mu   sync.Mutex
	got  map[int][]uint32 // partition -> seqs in delivery order
	n    atomic.Int64
}

func (m *member) read(ctx context.Context, t *testing.T, p int, wg *sync.WaitGroup) {
	defer wg.Done()
	r, err := m.s.Reader(ctx, p)
	if err != nil {
		t.Errorf("%s: Reader(%d): %v", m.name, p, err)
		return
	}
	defer r.Close()
	var rows [][]byte
	for ctx.Err() == nil {
		rows, err = r.Read(ctx, rows[:0], 500)
		if err != nil {
			if ctx.Err() == nil {
				t.Errorf("%s: Read(%d): %v", m.name, p, err)
			}
			return
		}
		m.mu.Lock()
		for _, b := range rows {
			if int(binary.LittleEndian.Uint32(b)) != p {
				t.Errorf("%s: partition %d delivered a row of partition %d", m.name, p, binary.LittleEndian.Uint32(b))
			}
			m.got[p] = append(m.got[p], binary.LittleEndian.Uint32(b[4:]))
		}
		m.mu.Unlock()
		m.n.Add(int64(len(rows)))
	}
}

// owned lists the partitions Kafka assigns the member now.
func (m *member) owned() map[int]bool {
	c := m.s.(*stream).cons
	c.mu.Lock()
	qs := append([]*queue(nil), c.queues...)
	c.mu.Unlock()
	out := map[int]bool{}
	for _, q := range qs {
		q.mu.Lock()
		if q.owned {
			out[int(q.p)] = true
		}
		q.mu.Unlock()
	}
	return out
}

// Two members of one group share a topic while rows flow: the second
// joins (Kafka moves partitions to it), the topic grows from 4 to 8
// partitions (Kafka assigns the new ones), then the second leaves (the
// first takes its partitions back). Every row is delivered exactly once,
// each partition in order, by whichever member owned it.
func TestGroupSplitsPartitionsAcrossMembers(t *testing.T) {
	group, topic := uniqueName("bttest-split"), uniqueName("bttest-split")
	dbA := openTestServer(t, PropGroup, group, PropTopic, topic)
	dbB := openTestServer(t, PropGroup, group, PropTopic, topic)
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	rctx, stopReaders := context.WithCancel(ctx)
	defer stopReaders()

	sA, err := dbA.OpenStream(ctx, "ignored", 4)
	if err != nil {
		t.Fatal(err)
	}
	defer sA.Close(context.Background()) // created the topic: deletes it
	a := &member{name: "A", s: sA, got: map[int][]uint32{}}
	var rwg sync.WaitGroup
	for p := range 4 {
		rwg.Add(1)
		go a.read(rctx, t, p, &rwg)
	}

	var parts atomic.Int32
	parts.Store(4)
	seqs := make([]uint32, adapters.MaxPartitions)
	var produced atomic.Int64
	stopProd := make(chan struct{})
	prodDone := make(chan struct{})
	var sMu sync.RWMutex // EnsurePartitions and Produce of the grown count
	go func() {
		defer close(prodDone)
		buf := make([]byte, 0, 64*64)
		rows := make([]adapters.StreamRow, 0, 64)
		for i := 0; ; i++ {
			select {
			case <-stopProd:
				return
			case <-time.After(5 * time.Millisecond):
			}
			sMu.RLock()
			n := int(parts.Load())
			rows, buf = rows[:0], buf[:0]
			for k := range 64 {
				p := (i + k) % n
				seqs[p]++
				off := len(buf)
				buf = binary.LittleEndian.AppendUint32(buf, uint32(p))
				buf = binary.LittleEndian.AppendUint32(buf, seqs[p])
				buf = append(buf, "row of the split test......"...)
				rows = append(rows, adapters.StreamRow{Partition: p, Data: buf[off:]})
			}
			err := sA.Produce(ctx, rows)
			sMu.RUnlock()
			if err != nil {
				t.Errorf("Produce: %v", err)
				return
			}
			produced.Add(int64(len(rows)))
		}
	}()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for !ok() {
			if ctx.Err() != nil {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	waitFor("A to deliver rows", func() bool { return a.n.Load() > 2000 })

	// B joins: the cooperative balancer moves some of A's partitions.
	sB, err := dbB.OpenStream(ctx, "ignored", 4)
	if err != nil {
		t.Fatal(err)
	}
	b := &member{name: "B", s: sB, got: map[int][]uint32{}}
	bctx, stopB := context.WithCancel(rctx)
	defer stopB()
	var bwg sync.WaitGroup
	for p := range 4 {
		bwg.Add(1)
		go b.read(bctx, t, p, &bwg)
	}
	waitFor("Kafka to assign B partitions", func() bool { return len(b.owned()) > 0 && b.n.Load() > 0 })
	waitFor("the split to settle", func() bool { return len(a.owned())+len(b.owned()) == 4 })

	// The topic grows live; both members make readers for the new partitions.
	sMu.Lock()
	if err := sA.EnsurePartitions(ctx, 8); err != nil {
		t.Fatal(err)
	}
	if err := sB.EnsurePartitions(ctx, 8); err != nil {
		t.Fatal(err)
	}
	parts.Store(8)
	sMu.Unlock()
	for p := 4; p < 8; p++ {
		rwg.Add(1)
		bwg.Add(1)
		go a.read(rctx, t, p, &rwg)
		go b.read(bctx, t, p, &bwg)
	}
	waitFor("Kafka to assign the new partitions", func() bool { return len(a.owned())+len(b.owned()) == 8 })
	time.Sleep(time.Second) // rows in all eight
	bOwned := len(b.owned())

	// B leaves while rows flow: it commits what it delivered, and A takes
	// its partitions from there.
	stopB()
	bwg.Wait()
	if err := sB.Close(ctx); err != nil {
		t.Errorf("B: Close: %v", err)
	}
	waitFor("A to own every partition after B left", func() bool { return len(a.owned()) == 8 })
	time.Sleep(time.Second)
	close(stopProd)
	<-prodDone
	waitFor("every row to be delivered", func() bool { return a.n.Load()+b.n.Load() >= produced.Load() })
	time.Sleep(500 * time.Millisecond) // any duplicate would show up now
	stopReaders()
	rwg.Wait()

	var lost, dup, disorder, shared int
	for p := range 8 {
		seen := make([]int, seqs[p]+1)
		for _, m := range []*member{a, b} {
			var last uint32
			for _, s := range m.got[p] {
				if s <= last {
					disorder++
				}
				last = s
				if s == 0 || s > seqs[p] {
					t.Errorf("partition %d: seq %d out of range (1 to %d)", p, s, seqs[p])
					continue
				}
				seen[s]++
			}
		}
		for s := uint32(1); s <= seqs[p]; s++ {
			switch {
			case seen[s] == 0:
				lost++
			case seen[s] > 1:
				dup += seen[s] - 1
			}
		}
		if len(a.got[p]) > 0 && len(b.got[p]) > 0 {
			shared++
		}
		if seqs[p] == 0 {
			t.Errorf("partition %d: no rows produced", p)
		}
	}
	t.Logf("%d rows produced; A delivered %d, B %d (B owned %d of 8 partitions before it left); %d partitions handed over between members; %d lost, %d duplicated, %d out of order",
		produced.Load(), a.n.Load(), b.n.Load(), bOwned, shared, lost, dup, disorder)
	if lost != 0 || dup != 0 || disorder != 0 {
		t.Errorf("want 0 lost, 0 duplicated, 0 out of order")
	}
	if a.n.Load() == 0 || b.n.Load() == 0 || shared == 0 {
		t.Errorf("want both members to deliver and at least one partition handed over (A %d, B %d, shared %d)", a.n.Load(), b.n.Load(), shared)
	}
}
