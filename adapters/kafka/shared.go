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
