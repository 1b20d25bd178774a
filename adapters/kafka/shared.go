package kafka

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"benchtop/adapters"
)

// A topic read by a consumer group is a shared stream
// (adapters.SharedStream): the stream workload checks it per partition,
// records every row in a ledger, and ends its run when the group has
// delivered every row (WaitConsumed), not when this member has read every
// partition, since Kafka may have given the partitions to other members.

var (
	_ adapters.SharedStream = (*stream)(nil)
	_ adapters.GroupStream  = (*stream)(nil)
	_ adapters.Capable      = (*DB)(nil)
)

// AutoGroup is the kafka.group value that asks for a unique group name
// (picked once by a fleet's coordinator, or by the process alone).
const AutoGroup = "auto"

// Capabilities: a group divides the topic's partitions among its members.
func (db *DB) Capabilities() adapters.Capabilities {
	return adapters.Capabilities{SharedPartitions: db.cfg.Group != ""}
}

// Shared reports whether the stream is read by a consumer group.
func (s *stream) Shared() bool { return s.db.cfg.Group != "" }

// consumedPoll is how often WaitConsumed looks at the group's offsets; the
// members commit what they delivered every commitEvery.
const consumedPoll = 200 * time.Millisecond

// WaitConsumed waits until the group's committed offset of every
// partition reaches the partition's end offset as it was when called: a
// member commits exactly what its readers delivered (group.go), so every
// row written before the call was delivered by some member.
func (s *stream) WaitConsumed(ctx context.Context) error {
	if !s.Shared() {
		return nil
	}
	ends, err := s.db.admin.ListEndOffsets(ctx, s.topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return fmt.Errorf("kafka: topic %s: end offsets: %w", s.topic, classify(err))
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	for {
		behind, err := s.behind(ctx, want)
		if err == nil && behind == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return fmt.Errorf("kafka: group %s: committed offsets: %w", s.db.cfg.Group, classify(err))
			}
			return fmt.Errorf("kafka: group %s: %d rows of topic %s not delivered: %w", s.db.cfg.Group, behind, s.topic, ctx.Err())
		case <-time.After(consumedPoll):
		}
	}
}

// behind counts the rows of want (end offsets by partition) beyond the
// group's committed offsets.
func (s *stream) behind(ctx context.Context, want map[int32]int64) (int64, error) {
	got, err := s.db.admin.FetchOffsets(ctx, s.db.cfg.Group)
	if err == nil {
		err = got.Error()
	}
	if err != nil {
		return 0, err
	}
	var n int64
	for p, end := range want {
		at := int64(0)
		if o, ok := got.Lookup(s.topic, p); ok && o.Err == nil && o.At > 0 {
			at = o.At
		}
		if at < end {
			n += end - at
		}
	}
	return n, nil
}

// growthPoll is how often a group member looks at the topic's partition
// count, to follow a growth made by another member.
const growthPoll = 500 * time.Millisecond

// Grown delivers the topic's partition count each time it is seen above
// the count this stream made (another member grew it); nil outside a
// group.
func (s *stream) Grown() <-chan int { return s.grown }

// watchGrowth looks at the topic's partition count every growthPoll until
// ctx ends, and reports a count above this stream's on s.grown (the
// latest only: a reader that is behind gets the newest count).
func (s *stream) watchGrowth(ctx context.Context) {
	t := time.NewTicker(growthPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		td, err := s.db.admin.ListTopics(ctx, s.topic)
		if err != nil || td.Error() != nil {
			continue
		}
		n := len(td[s.topic].Partitions)
		if n <= s.Partitions() {
			continue
		}
		select {
		case <-s.grown: // replace what was not taken
		default:
		}
		select {
		case s.grown <- n:
		default:
		}
	}
}

// lagPoll is how often a group member measures the group's lag.
const lagPoll = time.Second

// Lag is the group's lag per partition as watchLag last measured it.
func (s *stream) Lag() []int64 {
	if p := s.lag.Load(); p != nil {
		return *p
	}
	return nil
}

// watchLag measures the group's lag every lagPoll until ctx ends: end
// offsets less committed offsets, or, for the partitions this member
// owns, less the offsets its readers delivered (members commit once a
// second: the committed lag would count up to a second of rows delivered
// since).
func (s *stream) watchLag(ctx context.Context) {
	t := time.NewTicker(lagPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ends, err := s.db.admin.ListEndOffsets(ctx, s.topic)
		if err != nil || ends.Error() != nil {
			continue
		}
		got, err := s.db.admin.FetchOffsets(ctx, s.db.cfg.Group)
		if err != nil || got.Error() != nil {
			continue
		}
		lag := make([]int64, s.Partitions())
		ends.Each(func(o kadm.ListedOffset) {
			if int(o.Partition) >= len(lag) {
				return
			}
			at := int64(0)
			if c, ok := got.Lookup(s.topic, o.Partition); ok && c.Err == nil && c.At > 0 {
				at = c.At
			}
			if q := s.cons.owned(o.Partition); q >= 0 {
				at = max(at, q)
			}
			lag[o.Partition] = max(o.Offset-at, 0)
		})
		s.lag.Store(&lag)
	}
}

// Spans returns every partition's log start and end offsets.
func (s *stream) Spans(ctx context.Context) ([]adapters.Span, error) {
	starts, err := s.db.admin.ListStartOffsets(ctx, s.topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("kafka: topic %s: start offsets: %w", s.topic, classify(err))
	}
	ends, err := s.db.admin.ListEndOffsets(ctx, s.topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("kafka: topic %s: end offsets: %w", s.topic, classify(err))
	}
	var out []adapters.Span
	ends.Each(func(o kadm.ListedOffset) {
		sp := adapters.Span{Partition: int(o.Partition), End: o.Offset}
		if st, ok := starts.Lookup(s.topic, o.Partition); ok {
			sp.From = st.Offset
		}
		out = append(out, sp)
	})
	return out, nil
}

// WaitAssigned returns once the group's members hold every one of the
// topic's partitions 0 to n-1 (the rebalance after a growth is over).
func (s *stream) WaitAssigned(ctx context.Context, n int) error {
	for {
		if s.assignedAll(ctx, n) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("kafka: group %s: partitions of %s still unassigned: %w", s.db.cfg.Group, s.topic, ctx.Err())
		case <-time.After(consumedPoll):
		}
	}
}

// assignedAll reports whether the group's members hold partitions 0 to
// n-1 of the topic.
func (s *stream) assignedAll(ctx context.Context, n int) bool {
	gs, err := s.db.admin.DescribeGroups(ctx, s.db.cfg.Group)
	if err != nil {
		return false
	}
	g, ok := gs[s.db.cfg.Group]
	if !ok || g.Err != nil {
		return false
	}
	held := make([]bool, n)
	for _, m := range g.Members {
		c, ok := m.Assigned.AsConsumer()
		if !ok {
			continue
		}
		for _, t := range c.Topics {
			if t.Topic != s.topic {
				continue
			}
			for _, p := range t.Partitions {
				if int(p) < n {
					held[p] = true
				}
			}
		}
	}
	for _, h := range held {
		if !h {
			return false
		}
	}
	return true
}

// groupInUse reports whether the group still has members (after this one
// left), or cannot tell.
func (s *stream) groupInUse(ctx context.Context) bool {
	gs, err := s.db.admin.DescribeGroups(ctx, s.db.cfg.Group)
	if err != nil {
		return true
	}
	g, ok := gs[s.db.cfg.Group]
	if !ok {
		return false
	}
	if g.Err != nil {
		return true
	}
	return len(g.Members) > 0
}

// randomName is prefix and 8 random hex digits.
func randomName(prefix string) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return prefix + "-" + hex.EncodeToString(b[:])
}

// FleetProps are the properties a fleet's coordinator sets once for all
// its agents (adapters.Driver.Fleet): in group mode one topic (unless
// kafka.topic names one) that the last member to leave deletes, and with
// kafka.group=auto one group name. Without a group each agent reads a
// topic of its own: nothing to share.
func FleetProps(p adapters.Properties) map[string]string {
	group := strings.TrimSpace(p[PropGroup])
	if group == "" {
		return nil
	}
	out := map[string]string{}
	name := randomName("benchtop-fleet")
	if group == AutoGroup {
		out[PropGroup] = name
	}
	if strings.TrimSpace(p[PropTopic]) == "" {
		out[PropTopic] = name
		if _, set := p[PropTopicDelete]; !set {
			out[PropTopicDelete] = "true"
		}
	}
	return out
}
