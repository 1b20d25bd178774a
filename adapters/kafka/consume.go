package kafka

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"benchtop/adapters"
)

// pollTime is how long an idle Read waits before it returns no rows.
const pollTime = 200 * time.Millisecond

// A partition's queue is paused (no more fetches for it) once it holds
// pauseBytes of rows not yet read, and resumed below resumeBytes. A
// reader held at an epoch boundary (see workload/stream) must not stop the
// fetches of the partitions it waits for: every partition has its own
// queue, and only a full one stops its own fetches.
const (
	pauseBytes  = 2 << 20
	resumeBytes = 512 << 10
)

// consumer is a stream's one consuming client and the goroutine that
// polls it and hands each partition's records to that partition's queue.
// Direct mode consumes every partition of the topic; group mode (group.go)
// what Kafka assigns this member.
type consumer struct {
	s     *stream
	group string
	cl    *kgo.Client

	ctx    context.Context // the poller's; cancelled by close
	cancel context.CancelFunc
	done   chan struct{} // closed when the poller returns
	closed sync.Once

	mu     sync.Mutex
	queues []*queue // by partition number
	direct int      // direct mode: partitions 0..direct-1 are consumed
	err    error    // the last fetch error, handed to one Read

	commitMu sync.Mutex // group mode: one commit at a time
}

// newConsumer starts the stream's consuming client and its poller.
func newConsumer(s *stream) (*consumer, error) {
	c := &consumer{s: s, group: s.db.cfg.Group, done: make(chan struct{})}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	n := s.Partitions()
	opts := append(s.db.cfg.baseOpts(),
		kgo.FetchMaxWait(250*time.Millisecond),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
	)
	if c.group == "" {
		parts := make(map[int32]kgo.Offset, n)
		for p := range n {
			parts[int32(p)] = kgo.NewOffset().AtStart()
		}
		opts = append(opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{s.topic: parts}))
		c.direct = n
	} else {
		opts = append(opts, c.groupOpts()...)
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, fmt.Errorf("kafka: consumer of %s: %w", s.topic, err)
	}
	c.cl = cl
	if c.group != "" {
		go c.commitLoop()
	}
	go c.poll()
	return c, nil
}

// queue returns partition p's queue, made on first use.
func (c *consumer) queue(p int32) *queue {
	c.mu.Lock()
	defer c.mu.Unlock()
	for int(p) >= len(c.queues) {
		c.queues = append(c.queues, &queue{c: c, p: int32(len(c.queues)), notify: make(chan struct{}, 1), next: -1, delivered: -1})
	}
	return c.queues[p]
}

// poll hands every fetched record to its partition's queue. In group mode
// no rebalance runs between a poll and AllowRebalance, so a partition's
// records are queued before it can be revoked.
func (c *consumer) poll() {
	defer close(c.done)
	for {
		fs := c.cl.PollRecords(c.ctx, 8192)
		if c.ctx.Err() != nil || fs.IsClientClosed() {
			return
		}
		fs.EachError(func(topic string, p int32, err error) {
			if errors.Is(err, context.Canceled) {
				return
			}
			c.mu.Lock()
			c.err = fmt.Errorf("kafka: fetch %s[%d]: %w", topic, p, classify(err))
			c.mu.Unlock()
		})
		fs.EachPartition(func(fp kgo.FetchTopicPartition) {
			if len(fp.Records) > 0 {
				c.queue(fp.Partition).push(fp.Records)
			}
		})
		if c.group != "" {
			c.cl.AllowRebalance()
		}
	}
}

// takeErr returns and clears the last fetch error.
func (c *consumer) takeErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := c.err
	c.err = nil
	return err
}

// grew makes the consumer take up partitions added to the topic: direct
// mode consumes them from their start; a group member refreshes its
// metadata so that the group's leader assigns them.
func (c *consumer) grew() {
	n := c.s.Partitions()
	if c.group != "" {
		c.cl.ForceMetadataRefresh()
		return
	}
	c.mu.Lock()
	from := c.direct
	c.direct = max(c.direct, n)
	c.mu.Unlock()
	if from >= n {
		return
	}
	parts := make(map[int32]kgo.Offset, n-from)
	for p := from; p < n; p++ {
		parts[int32(p)] = kgo.NewOffset().AtStart()
	}
	c.cl.AddConsumePartitions(map[string]map[int32]kgo.Offset{c.s.topic: parts})
}

// close stops the poller and the client; a group member commits what its
// readers delivered (OnPartitionsRevoked) and leaves the group.
func (c *consumer) close() {
	c.closed.Do(func() {
		c.cancel()
		<-c.done
		if c.group != "" {
			// Leaving revokes every partition, and OnPartitionsRevoked
			// commits; commit first as well, in case the client's own
			// context is already ending by then.
			ctx, cancel := context.WithTimeout(context.Background(), c.s.db.cfg.Timeout)
			c.commitOwned(ctx)
			cancel()
		}
		c.cl.CloseAllowingRebalance()
	})
}

// Reader returns the reader of partition p. In group mode it delivers
// only while Kafka assigns p to this member.
func (s *stream) Reader(_ context.Context, p int) (adapters.StreamReader, error) {
	if p < 0 || p >= s.Partitions() {
		return nil, fmt.Errorf("kafka: topic %s: no partition %d (%d exist)", s.topic, p, s.Partitions())
	}
	return &reader{q: s.cons.queue(int32(p)), timer: time.NewTimer(time.Hour)}, nil
}

// queue holds one partition's fetched records until its reader takes
// them, and what the reader delivered (for the order check and, in a
// group, for the commit).
type queue struct {
	c      *consumer
	p      int32
	notify chan struct{} // a token when records arrive

	mu      sync.Mutex
	recs    []*kgo.Record
	head    int
	pending int // bytes in recs[head:]
	paused  bool
	// next is the offset the next record must have: the order check,
	// started by the first record of an assignment (-1 until then).
	next int64
	// problem is an order break found, handed to the next Read.
	problem error
	// Group mode.
	owned     bool
	delivered int64 // offset after the last record delivered, -1 if none since assigned
	epoch     int32 // its leader epoch
	dirty     bool  // delivered since the last commit
}

func (q *queue) topicPart() map[string][]int32 {
	return map[string][]int32{q.c.s.topic: {q.p}}
}

// push appends records fetched for the partition, pausing its fetches
// when the queue is full.
func (q *queue) push(recs []*kgo.Record) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.recs = append(q.recs, recs...)
	for _, r := range recs {
		q.pending += len(r.Value)
	}
	if q.pending >= pauseBytes && !q.paused {
		q.c.cl.PauseFetchPartitions(q.topicPart())
		q.paused = true
	}
	select {
	case q.notify <- struct{}{}:
	default:
	}
}

// take moves up to limit records' values to dst and their offsets to
// pos, checking that the offsets follow one another: a gap is rows
// missing from the log (removed or expired before they were fetched); a
// repeat is a row fetched again, an error only when consuming directly
// (a group member's ledger counts it as redelivered). Caller holds q.mu.
func (q *queue) take(dst [][]byte, pos []int64, limit int) ([][]byte, []int64) {
	k := min(len(q.recs)-q.head, limit)
	for _, r := range q.recs[q.head : q.head+k] {
		if q.next >= 0 && r.Offset != q.next && q.problem == nil && (r.Offset > q.next || q.c.group == "") {
			what := fmt.Sprintf("a gap: offsets %d..%d are not in the log", q.next, r.Offset-1)
			if r.Offset < q.next {
				what = "a repeat"
			}
			q.problem = adapters.WithKind(adapters.KindIntegrity, fmt.Errorf("kafka: %s[%d]: offset %d after %d (%s)", q.c.s.topic, q.p, r.Offset, q.next-1, what))
		}
		q.next = r.Offset + 1
		q.pending -= len(r.Value)
		dst = append(dst, r.Value)
		pos = append(pos, r.Offset)
	}
	last := q.recs[q.head+k-1]
	q.delivered, q.epoch, q.dirty = last.Offset+1, last.LeaderEpoch, true
	clear(q.recs[q.head : q.head+k])
	q.head += k
	if q.head == len(q.recs) {
		q.recs, q.head = q.recs[:0], 0
	}
	if q.paused && q.pending <= resumeBytes {
		q.c.cl.ResumeFetchPartitions(q.topicPart())
		q.paused = false
	}
	return dst, pos
}

// drop forgets the records not yet delivered (a revoked partition: the
// next owner fetches them from the committed offset) and ends the order
// check. Caller holds q.mu.
func (q *queue) drop() {
	clear(q.recs)
	q.recs, q.head, q.pending, q.next = q.recs[:0], 0, 0, -1
	if q.paused {
		q.c.cl.ResumeFetchPartitions(q.topicPart())
		q.paused = false
	}
}

type reader struct {
	q      *queue
	timer  *time.Timer
	closed bool
	pos    []int64 // the offsets of the rows the last Read returned
}

var _ adapters.PositionedReader = (*reader)(nil)

// Positions returns the offsets of the rows the last Read returned.
func (r *reader) Positions() []int64 { return r.pos }

// Read waits up to pollTime for the partition's records, then takes up to
// limit of those queued. The values are the records' own (read-only).
func (r *reader) Read(ctx context.Context, dst [][]byte, limit int) ([][]byte, error) {
	if r.closed {
		return dst, errors.New("kafka: read after Close")
	}
	q := r.q
	r.pos = r.pos[:0]
	waited := false
	for {
		if err := ctx.Err(); err != nil {
			return dst, err
		}
		q.mu.Lock()
		if q.problem != nil {
			err := q.problem
			q.problem = nil
			q.mu.Unlock()
			return dst, err
		}
		if q.head < len(q.recs) {
			dst, r.pos = q.take(dst, r.pos, limit)
			q.mu.Unlock()
			return dst, nil
		}
		q.mu.Unlock()
		if waited {
			if err := q.c.takeErr(); err != nil {
				return dst, err
			}
			return dst, nil
		}
		r.timer.Reset(pollTime)
		select {
		case <-q.notify:
			r.timer.Stop()
		case <-r.timer.C:
			waited = true
		case <-ctx.Done():
			r.timer.Stop()
			return dst, ctx.Err()
		}
	}
}

func (r *reader) Close() error {
	r.closed = true
	return nil
}
