package kafka

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Group mode (kafka.group=NAME): the stream's consumer is a member of a
// consumer group and Kafka assigns it partitions (franz-go's default
// cooperative-sticky balancer: a rebalance moves only what must move).
//
// Exactly once across rebalances comes from committing exactly what the
// readers delivered, never what was merely fetched:
//   - auto-commit is off; every second, and when a partition is revoked,
//     the member commits, per partition, the offset after the last record
//     a Read returned;
//   - BlockRebalanceOnPoll keeps a rebalance from running between a poll
//     and the hand-over of its records to the queues (AllowRebalance in
//     poll), so a revoked partition's records are all in its queue;
//   - OnPartitionsRevoked takes each revoked queue's lock (no Read is half
//     done), commits its delivered offset synchronously, and drops what is
//     queued but undelivered: the next owner fetches it from that offset.
//
// OnPartitionsAssigned starts a partition's order check (its first record
// sets the expected offset); revocation and loss end it. A lost partition
// (the member was fenced out of the group) cannot commit: the next owner
// may deliver again what this member delivered since its last commit.

// commitEvery is the period of the background commit.
const commitEvery = time.Second

// heartbeat is the group members' heartbeat interval.
const heartbeat = 500 * time.Millisecond

func (c *consumer) groupOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.ConsumerGroup(c.group),
		kgo.ConsumeTopics(c.s.topic),
		kgo.DisableAutoCommit(),
		kgo.BlockRebalanceOnPoll(),
		kgo.OnPartitionsAssigned(c.onAssigned),
		kgo.OnPartitionsRevoked(c.onRevoked),
		kgo.OnPartitionsLost(c.onLost),
		// New partitions (another member's `]`) are seen within this.
		kgo.MetadataMaxAge(5 * time.Second),
		// A member hears of a rebalance at its next heartbeat: franz-go's
		// 3 s made the new partitions of a growth wait 2-3 s for a
		// consumer.
		kgo.HeartbeatInterval(heartbeat),
	}
}

func (c *consumer) onAssigned(_ context.Context, _ *kgo.Client, assigned map[string][]int32) {
	for _, p := range assigned[c.s.topic] {
		q := c.queue(p)
		q.mu.Lock()
		q.owned, q.next, q.delivered, q.dirty = true, -1, -1, false
		q.mu.Unlock()
	}
}

// onRevoked commits what was delivered of the revoked partitions and
// forgets the rest. It runs on close too (leaving the group).
func (c *consumer) onRevoked(ctx context.Context, cl *kgo.Client, revoked map[string][]int32) {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	var qs []*queue
	for _, p := range revoked[c.s.topic] {
		q := c.queue(p)
		q.mu.Lock() // held until the commit is done: no Read delivers meanwhile
		qs = append(qs, q)
	}
	offsets := c.collect(qs)
	for _, q := range qs {
		q.owned = false
		q.drop()
	}
	if len(offsets) > 0 {
		cctx, cancel := context.WithTimeout(ctx, c.s.db.cfg.Timeout)
		c.commitSync(cctx, cl, offsets, true)
		cancel()
	}
	for _, q := range qs {
		q.mu.Unlock()
	}
}

func (c *consumer) onLost(_ context.Context, _ *kgo.Client, lost map[string][]int32) {
	for _, p := range lost[c.s.topic] {
		q := c.queue(p)
		q.mu.Lock()
		q.owned = false
		q.drop()
		q.mu.Unlock()
	}
}

// owned returns the offset after the last record this member's reader of
// partition p delivered while it owns p, -1 when it does not own it or
// delivered nothing since it was assigned.
func (c *consumer) owned(p int32) int64 {
	c.mu.Lock()
	if int(p) >= len(c.queues) {
		c.mu.Unlock()
		return -1
	}
	q := c.queues[p]
	c.mu.Unlock()
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.owned {
		return -1
	}
	return q.delivered
}

// collect returns the delivered offsets of the queues (locked by the
// caller) that delivered since their last commit, and marks them clean.
func (c *consumer) collect(qs []*queue) map[string]map[int32]kgo.EpochOffset {
	parts := map[int32]kgo.EpochOffset{}
	for _, q := range qs {
		if q.dirty && q.delivered >= 0 {
			parts[q.p] = kgo.EpochOffset{Epoch: q.epoch, Offset: q.delivered}
			q.dirty = false
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return map[string]map[int32]kgo.EpochOffset{c.s.topic: parts}
}

// commitSync commits offsets and waits for the answer. A failure of a
// revocation's commit (report) is kept for a Read to report: the next
// owner may deliver those rows again. A periodic commit is a checkpoint
// only, and fails harmlessly while the group rebalances.
func (c *consumer) commitSync(ctx context.Context, cl *kgo.Client, offsets map[string]map[int32]kgo.EpochOffset, report bool) {
	cl.CommitOffsetsSync(ctx, offsets, func(_ *kgo.Client, _ *kmsg.OffsetCommitRequest, resp *kmsg.OffsetCommitResponse, err error) {
		if err == nil {
			err = commitError(resp)
		}
		if err != nil && report {
			err = fmt.Errorf("kafka: %s: commit at revocation: %w (the next owner may deliver rows again)", c.s.topic, classify(err))
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
		}
	})
}

// commitError is the first partition error of a commit response.
func commitError(resp *kmsg.OffsetCommitResponse) error {
	if resp == nil {
		return nil
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
				return err
			}
		}
	}
	return nil
}

// commitLoop commits the owned partitions' progress every commitEvery
// until the consumer closes (then OnPartitionsRevoked commits the rest).
func (c *consumer) commitLoop() {
	t := time.NewTicker(commitEvery)
	defer t.Stop()
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		c.commitOwned(c.ctx)
	}
}

// commitOwned commits what the readers of the owned partitions delivered
// since the last commit.
func (c *consumer) commitOwned(ctx context.Context) {
	c.commitMu.Lock()
	defer c.commitMu.Unlock()
	c.mu.Lock()
	qs := append([]*queue(nil), c.queues...)
	c.mu.Unlock()
	var held []*queue
	for _, q := range qs {
		q.mu.Lock()
		if q.owned && q.dirty {
			held = append(held, q)
			continue
		}
		q.mu.Unlock()
	}
	offsets := c.collect(held)
	for _, q := range held {
		q.mu.Unlock()
	}
	if len(offsets) > 0 {
		cctx, cancel := context.WithTimeout(ctx, c.s.db.cfg.Timeout)
		c.commitSync(cctx, c.cl, offsets, false)
		cancel()
	}
}
