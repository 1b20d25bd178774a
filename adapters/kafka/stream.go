package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"benchtop/adapters"
)

// OpenStream creates the topic name (or kafka.topic when set) with
// partitions partitions. In a consumer group a topic that exists already
// is joined (and grown to partitions if it has fewer): the processes of
// one group share it. Close deletes the topic if this stream created it.
func (db *DB) OpenStream(ctx context.Context, name string, partitions int) (adapters.Stream, error) {
	if partitions < 1 || partitions > adapters.MaxPartitions {
		return nil, fmt.Errorf("kafka: stream %s: %d partitions (1 to %d)", name, partitions, adapters.MaxPartitions)
	}
	topic := name
	if db.cfg.Topic != "" {
		topic = db.cfg.Topic
	}
	cctx, cancel := context.WithTimeout(ctx, db.cfg.Timeout)
	defer cancel()
	s := &stream{db: db, topic: topic, grown: make(chan int, 1)}
	_, err := db.admin.CreateTopic(cctx, int32(partitions), int16(db.cfg.Replication), nil, topic)
	switch {
	case err == nil:
		s.created = true
	case errors.Is(err, kerr.TopicAlreadyExists) && (db.cfg.Group != "" || db.cfg.Topic != ""):
		// Shared by the processes of a group (or named by the user).
	default:
		return nil, fmt.Errorf("kafka: create topic %s (%d partitions): %w", topic, partitions, classify(err))
	}
	n, err := s.waitPartitions(cctx, partitions)
	if err != nil {
		s.dropTopic()
		return nil, err
	}
	if n < partitions {
		if err := s.grow(cctx, partitions); err != nil {
			s.dropTopic()
			return nil, err
		}
		n = partitions
	}
	s.parts = n
	if s.prod, err = kgo.NewClient(db.cfg.producerOpts()...); err != nil {
		s.dropTopic()
		return nil, fmt.Errorf("kafka: producer for %s: %w", topic, err)
	}
	if s.cons, err = newConsumer(s); err != nil {
		s.prod.Close()
		s.dropTopic()
		return nil, err
	}
	var wctx context.Context
	wctx, s.stopWatch = context.WithCancel(context.Background())
	if db.cfg.Group != "" {
		go s.watchGrowth(wctx)
		go s.watchLag(wctx)
	}
	return s, nil
}

type stream struct {
	db      *DB
	topic   string
	created bool // Close deletes the topic
	cons    *consumer

	// prodMu: Produce holds the read side; a partition increase takes
	// the write side to replace the producing client, whose metadata
	// must know the new partitions before any row goes to one.
	prodMu sync.RWMutex
	prod   *kgo.Client

	mu    sync.Mutex
	parts int

	// A group member follows another member's growth and measures the
	// group's lag (shared.go).
	grown     chan int
	lag       atomic.Pointer[[]int64]
	stopWatch context.CancelFunc
}

var (
	_ adapters.Stream         = (*stream)(nil)
	_ adapters.GrowOnlyStream = (*stream)(nil)
)

func (s *stream) Partitions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parts
}

// ShrinkError says why the partitions cannot go from from to to.
func (s *stream) ShrinkError(from, to int) error {
	return shrinkError(s.topic, from, to)
}

// EnsurePartitions grows the topic to n partitions (a no-op when it has
// as many already, possibly added by another process of the group), then
// makes the producer and the consumer see them.
func (s *stream) EnsurePartitions(ctx context.Context, n int) error {
	if n > adapters.MaxPartitions {
		return fmt.Errorf("kafka: topic %s: %d partitions (at most %d)", s.topic, n, adapters.MaxPartitions)
	}
	if n <= s.Partitions() {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.db.cfg.Timeout)
	defer cancel()
	have, err := s.waitPartitions(cctx, 1)
	if err != nil {
		return err
	}
	if have < n {
		if err := s.grow(cctx, n); err != nil {
			return err
		}
	}
	// A new producing client loads the topic's metadata afresh: the old
	// one would refuse rows for partitions it has not heard of. Produce
	// calls in flight finish on the old one first.
	prod, err := kgo.NewClient(s.db.cfg.producerOpts()...)
	if err != nil {
		return fmt.Errorf("kafka: producer for %s: %w", s.topic, err)
	}
	s.prodMu.Lock()
	old := s.prod
	s.prod = prod
	s.mu.Lock()
	s.parts = max(s.parts, n)
	s.mu.Unlock()
	s.prodMu.Unlock()
	old.Close()
	s.cons.grew()
	return nil
}

// grow asks Kafka for n partitions in all and waits until the topic's
// metadata shows them with leaders.
func (s *stream) grow(ctx context.Context, n int) error {
	res, err := s.db.admin.UpdatePartitions(ctx, n, s.topic)
	if err == nil {
		err = res.Error()
	}
	// Another member of the group may have grown it first.
	if err != nil && !errors.Is(err, kerr.InvalidPartitions) {
		return fmt.Errorf("kafka: topic %s: add partitions up to %d: %w", s.topic, n, classify(err))
	}
	got, err := s.waitPartitions(ctx, n)
	if err != nil {
		return err
	}
	if got < n {
		return fmt.Errorf("kafka: topic %s: %d partitions after asking for %d", s.topic, got, n)
	}
	return nil
}

// waitPartitions returns the topic's partition count once at least want
// partitions have a leader (a topic just created or grown is announced
// before its partitions are ready), or what it has when ctx ends.
func (s *stream) waitPartitions(ctx context.Context, want int) (int, error) {
	for {
		td, err := s.db.admin.ListTopics(ctx, s.topic)
		if err == nil {
			err = td.Error()
		}
		n, ready := 0, 0
		if err == nil {
			d := td[s.topic]
			n = len(d.Partitions)
			for _, p := range d.Partitions {
				if p.Leader >= 0 && p.Err == nil {
					ready++
				}
			}
			if ready >= want && ready == n && s.logsReady(ctx, n) {
				return n, nil
			}
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return 0, fmt.Errorf("kafka: topic %s: metadata: %w", s.topic, classify(err))
			}
			return n, fmt.Errorf("kafka: topic %s: %d of %d partitions ready: %w", s.topic, ready, want, classify(ctx.Err()))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// logsReady reports whether each of the topic's n partitions answers for
// its end offset: the metadata names a leader before the leader has made
// the partition's log, and a run that started then would spend its first
// seconds (with 64 partitions on a loaded broker, five) on retries.
func (s *stream) logsReady(ctx context.Context, n int) bool {
	lo, err := s.db.admin.ListEndOffsets(ctx, s.topic)
	if err != nil || lo.Error() != nil {
		return false
	}
	return len(lo[s.topic]) == n
}

// Produce hands every row to the producing client, to the partition the
// workload chose, and waits for every acknowledgement. One goroutine
// buffers the rows in the order given, so each partition keeps it (the
// idempotent producer keeps it across retries; without idempotence one
// request per broker is in flight).
func (s *stream) Produce(ctx context.Context, rows []adapters.StreamRow) error {
	if len(rows) == 0 {
		return nil
	}
	s.prodMu.RLock()
	defer s.prodMu.RUnlock()
	n := s.Partitions()
	total := 0
	for _, r := range rows {
		if r.Partition < 0 || r.Partition >= n {
			return fmt.Errorf("kafka: topic %s: no partition %d (%d exist)", s.topic, r.Partition, n)
		}
		total += len(r.Data)
	}
	// The rows' data is only ours during the call, and a record whose
	// context ends may still be in a request: copy it, once for all.
	buf := make([]byte, 0, total)
	recs := make([]kgo.Record, len(rows))
	var (
		wg    sync.WaitGroup
		errMu sync.Mutex
		first error
	)
	done := func(_ *kgo.Record, err error) {
		if err != nil {
			errMu.Lock()
			if first == nil {
				first = err
			}
			errMu.Unlock()
		}
		wg.Done()
	}
	wg.Add(len(rows))
	for i, r := range rows {
		off := len(buf)
		buf = append(buf, r.Data...)
		recs[i] = kgo.Record{Topic: s.topic, Partition: int32(r.Partition), Value: buf[off:len(buf):len(buf)]}
		s.prod.Produce(ctx, &recs[i], done)
	}
	wg.Wait()
	if first != nil {
		return fmt.Errorf("kafka: topic %s: produce %d rows: %w", s.topic, len(rows), classify(first))
	}
	return nil
}

func (s *stream) Describe() string {
	return fmt.Sprintf("%s topic %s, partitions 0..%d", s.db.Describe(), s.topic, s.Partitions()-1)
}

// Close stops the clients (a group member commits what it delivered and
// leaves the group) and deletes the topic if this stream created it (or
// as kafka.topic.delete says).
func (s *stream) Close(ctx context.Context) error {
	s.stopWatch()
	s.cons.close()
	s.prodMu.Lock()
	s.prod.Close()
	s.prodMu.Unlock()
	if !s.db.cfg.deletes(s.created) {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, s.db.cfg.Timeout)
	defer cancel()
	if s.db.cfg.Group != "" && s.groupInUse(cctx) {
		// Another member still reads the topic: the last to leave deletes it.
		return nil
	}
	if _, err := s.db.admin.DeleteTopic(cctx, s.topic); err != nil && !errors.Is(err, kerr.UnknownTopicOrPartition) {
		return fmt.Errorf("kafka: delete topic %s: %w", s.topic, classify(err))
	}
	if s.db.cfg.Group != "" {
		// The group's offsets are of no use without the topic; a group
		// that other members still use is left alone (the broker refuses).
		_, _ = s.db.admin.DeleteGroup(cctx, s.db.cfg.Group)
	}
	return nil
}

// dropTopic deletes a topic this stream created, after a failed open.
func (s *stream) dropTopic() {
	if !s.created {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.db.cfg.Timeout)
	defer cancel()
	_, _ = s.db.admin.DeleteTopic(ctx, s.topic)
}
