package kafka

import (
	"strings"
	"testing"

	"benchtop/adapters"
)

// A fleet's coordinator names one topic (and with kafka.group=auto one
// group) for all its agents; without a group there is nothing to share.
func TestFleetProps(t *testing.T) {
	if got := FleetProps(adapters.Properties{PropTopic: "t"}); len(got) != 0 {
		t.Errorf("no group: %v, want nothing", got)
	}
	got := FleetProps(adapters.Properties{PropGroup: "auto"})
	if !strings.HasPrefix(got[PropGroup], "benchtop-fleet-") || got[PropTopic] != got[PropGroup] || got[PropTopicDelete] != "true" {
		t.Errorf("kafka.group=auto: %v, want one benchtop-fleet-… group and topic, deleted at the end", got)
	}
	if again := FleetProps(adapters.Properties{PropGroup: "auto"}); again[PropTopic] == got[PropTopic] {
		t.Errorf("two runs got the same topic %s", got[PropTopic])
	}
	got = FleetProps(adapters.Properties{PropGroup: "mine", PropTopic: "t1"})
	if len(got) != 0 {
		t.Errorf("group and topic named: %v, want them kept", got)
	}
	got = FleetProps(adapters.Properties{PropGroup: "mine"})
	if _, set := got[PropGroup]; set || !strings.HasPrefix(got[PropTopic], "benchtop-fleet-") {
		t.Errorf("group named, no topic: %v, want the group kept and a topic picked", got)
	}
	for _, p := range []adapters.Properties{{PropGroup: "auto"}, {PropGroup: "g", PropTopic: "t"}} {
		p["workload"] = "stream"
		for k, v := range FleetProps(p) {
			p[k] = v
		}
		c, err := ParseConfig(p)
		if err != nil {
			t.Errorf("%v: %v", p, err)
		}
		if c.Group == "" || c.Group == AutoGroup {
			t.Errorf("%v: group %q", p, c.Group)
		}
	}
}

func TestCapabilities(t *testing.T) {
	if (&DB{cfg: Config{Group: "g"}}).Capabilities().SharedPartitions != true {
		t.Error("group mode does not declare shared partitions")
	}
	if (&DB{}).Capabilities().SharedPartitions {
		t.Error("direct mode declares shared partitions")
	}
}
