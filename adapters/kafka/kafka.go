// Package kafka is benchtop's Apache Kafka adapter, on
// github.com/twmb/franz-go (kgo for producing and consuming, kadm for
// topics). It carries the stream workload only: one topic per run whose
// partitions are the workload's partitions, rows produced to the partition
// the workload chose (a manual partitioner) and confirmed batch by batch,
// and one reader per partition.
//
// Readers come in two modes. By default the topic's partitions are
// consumed directly (kgo.ConsumePartitions), every one by this process,
// from its first offset. With kafka.group=NAME the process joins a
// consumer group instead and Kafka assigns it partitions: several
// processes (benchtop agents) in one group split the topic between them,
// and Kafka moves partitions when partitions or members come and go. A
// member commits exactly what its readers delivered when a partition is
// revoked (see group.go), so the next owner starts at the next row:
// nothing lost, nothing delivered twice.
//
// Kafka can add partitions to a topic (kadm UpdatePartitions) but never
// remove any: the stream workload's `[` is refused with a line that says
// so (adapters.GrowOnlyStream).
//
// Properties, by Kafka's own names where it has one: kafka.brokers
// (default 127.0.0.1:9092), kafka.acks (all, 1 or 0; default all, with
// idempotent writes), kafka.linger.ms (default 5, the Java producer's since
// Kafka 4.0), kafka.batch.size (bytes per partition batch, default 1048576,
// franz-go's; the Java producer's is 16384), kafka.compression (none,
// gzip, snappy, lz4, zstd), kafka.group (a consumer group; default none:
// direct partition consumption), kafka.topic (a fixed topic name, for
// processes that share one; default the run's own), kafka.replication.factor
// (of the topics it creates; default -1, the broker's), kafka.timeout
// (connect and request timeout, default 10s), kafka.topic.delete (delete
// the topic at the end even when another process created it; in a group
// the last member to leave does). There is no TLS or SASL yet.
//
// In a fleet (benchtop run --agents) with kafka.group set, every agent
// joins the one group on one topic: the coordinator names the topic once
// (FleetProps) unless kafka.topic does, and kafka.group=auto lets it name
// the group too.
// Key-value workloads are refused: select -p workload=stream.
package kafka

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"benchtop/adapters"
)

func init() {
	adapters.Register(adapters.Driver{
		Name:        "kafka",
		Description: "Apache Kafka: the stream workload on topic partitions, direct or in a consumer group",
		Prefixes:    []string{"kafka."},
		Keys:        Keys,
		Open: func(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(ctx, props)
		},
		Fleet: FleetProps,
	})
}

// Property names.
const (
	PropBrokers     = "kafka.brokers"            // host:port,host:port; default 127.0.0.1:9092
	PropAcks        = "kafka.acks"               // all (default), 1, 0
	PropLinger      = "kafka.linger.ms"          // default 5
	PropBatchSize   = "kafka.batch.size"         // bytes, default 1048576
	PropCompression = "kafka.compression"        // none (default), gzip, snappy, lz4, zstd
	PropGroup       = "kafka.group"              // consumer group; "" = direct consumption
	PropTopic       = "kafka.topic"              // fixed topic name; "" = the run's own
	PropReplication = "kafka.replication.factor" // of created topics; -1 = the broker's default
	PropTimeout     = "kafka.timeout"            // default 10s
	// PropTopicDelete: delete the topic when the run ends (in a group:
	// when the last member leaves). Default true for a topic the run
	// created, false for one named by kafka.topic.
	PropTopicDelete = "kafka.topic.delete"
)

// Keys are the properties the adapter reads (the Driver's Keys).
var Keys = []string{PropBrokers, PropAcks, PropLinger, PropBatchSize, PropCompression, PropGroup, PropTopic, PropReplication, PropTimeout, PropTopicDelete, "workload"}

// Config is the adapter's configuration, from properties.
type Config struct {
	Brokers     []string
	Acks        string // "all", "1" or "0"
	Linger      time.Duration
	BatchSize   int
	Compression string
	Group       string
	Topic       string
	Replication int
	Timeout     time.Duration
	// DeleteTopic (kafka.topic.delete, when DeleteSet): Close deletes the
	// topic even if another process created it (true; a fleet's shared
	// topic), or keeps it even if this run created it (false). Unset, a
	// topic is deleted by the run that created it.
	DeleteTopic, DeleteSet bool
}

// deletes says whether Close deletes the topic: as kafka.topic.delete
// says, else when this run created it.
func (c Config) deletes(created bool) bool {
	if c.DeleteSet {
		return c.DeleteTopic
	}
	return created
}

// ParseConfig reads the kafka.* properties. It refuses workloads other
// than the stream.
func ParseConfig(p adapters.Properties) (Config, error) {
	r := adapters.NewReader(p)
	c := readConfig(r)
	return c, r.Err()
}

// readConfig reads every property even after a bad one; the first error is
// the Reader's.
func readConfig(r *adapters.Reader) Config {
	if wl := strings.TrimSpace(r.String("workload", "")); wl != "stream" {
		r.Fail(&adapters.ConfigError{Key: "workload", Value: wl, Allowed: "stream (the kafka adapter carries only the stream workload: -p workload=stream)"})
	}
	var c Config
	for _, b := range strings.Split(r.String(PropBrokers, "127.0.0.1:9092"), ",") {
		if b = strings.TrimSpace(b); b != "" {
			c.Brokers = append(c.Brokers, b)
		}
	}
	if len(c.Brokers) == 0 {
		r.Bad(PropBrokers, "a comma-separated list of host:port, e.g. 127.0.0.1:9092")
	}
	for _, b := range c.Brokers {
		if _, port, err := net.SplitHostPort(b); err != nil || port == "" {
			r.Bad(PropBrokers, "a comma-separated list of host:port, e.g. 127.0.0.1:9092")
			break
		}
	}
	c.Acks = r.Choice(PropAcks, "all", "all", "-1", "1", "0")
	if c.Acks == "-1" {
		c.Acks = "all"
	}
	c.Linger = time.Duration(r.Int(PropLinger, 5, 0, 60000)) * time.Millisecond
	c.BatchSize = r.Int(PropBatchSize, 1<<20, 1024, 64<<20)
	c.Compression = r.Choice(PropCompression, "none", "none", "gzip", "snappy", "lz4", "zstd")
	c.Group = strings.TrimSpace(r.String(PropGroup, ""))
	c.Topic = strings.TrimSpace(r.String(PropTopic, ""))
	if c.Topic != "" && !validTopic(c.Topic) {
		r.Bad(PropTopic, "a Kafka topic name: 1 to 249 of a-z A-Z 0-9 . _ -")
	}
	c.Replication = r.Int(PropReplication, -1, -1, 32767)
	if c.Replication == 0 {
		r.Bad(PropReplication, "-1 (the broker's default.replication.factor) or 1 to 32767")
	}
	c.DeleteSet = r.Has(PropTopicDelete)
	c.DeleteTopic = r.Bool(PropTopicDelete, false)
	c.Timeout = r.Duration(PropTimeout, 10*time.Second, time.Second, time.Millisecond, 24*time.Hour)
	return c
}

// validTopic reports whether s is a legal Kafka topic name.
func validTopic(s string) bool {
	if s == "" || len(s) > 249 || s == "." || s == ".." {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// DB is a connection to a Kafka cluster: an admin client for topics. The
// producing and consuming clients belong to each stream.
type DB struct {
	adapters.StreamOnly // no key-value operations: errKV
	cfg                 Config
	cl                  *kgo.Client
	admin               *kadm.Client
}

var (
	_ adapters.DB        = (*DB)(nil)
	_ adapters.Describer = (*DB)(nil)
	_ adapters.Streamer  = (*DB)(nil)
)

// Open connects and checks that a broker answers.
func Open(ctx context.Context, props adapters.Properties) (*DB, error) {
	cfg, err := ParseConfig(props)
	if err != nil {
		return nil, fmt.Errorf("kafka: %w", err)
	}
	return connect(ctx, cfg)
}

// baseOpts are the options every client of the adapter shares.
func (c Config) baseOpts() []kgo.Opt {
	return []kgo.Opt{
		kgo.SeedBrokers(c.Brokers...),
		kgo.ClientID("benchtop"),
		kgo.DialTimeout(c.Timeout),
		kgo.RetryTimeout(c.Timeout),
		// A topic just created or grown is announced before each of its
		// partitions is ready on its leader: the first produce or fetch
		// meets NOT_LEADER or UNKNOWN_TOPIC and asks for metadata again,
		// which franz-go spaces by this (default 5 s: a 5 s stall).
		kgo.MetadataMinAge(200 * time.Millisecond),
	}
}

func connect(ctx context.Context, cfg Config) (*DB, error) {
	if cfg.Group == AutoGroup {
		cfg.Group = randomName("benchtop") // alone: a group of its own
	}
	cl, err := kgo.NewClient(cfg.baseOpts()...)
	if err != nil {
		return nil, fmt.Errorf("kafka: client for %s: %w", strings.Join(cfg.Brokers, ","), err)
	}
	pctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if err := cl.Ping(pctx); err != nil {
		cl.Close()
		return nil, fmt.Errorf("kafka: no broker answers at %s: %w", strings.Join(cfg.Brokers, ","), classify(err))
	}
	return &DB{cfg: cfg, cl: cl, admin: kadm.NewClient(cl), StreamOnly: adapters.StreamOnly{Err: errKV}}, nil
}

// Describe returns the brokers (and the group, when one is used).
func (db *DB) Describe() string {
	d := "kafka " + strings.Join(db.cfg.Brokers, ",")
	if db.cfg.Group != "" {
		d += " (group " + db.cfg.Group + ")"
	}
	return d
}

// Close closes the admin client.
func (db *DB) Close() error {
	db.cl.Close()
	return nil
}

var errKV = errors.New("kafka: key-value operations are not supported (the kafka adapter carries the stream workload only)")

// producerOpts are the options of a stream's producing client.
func (c Config) producerOpts() []kgo.Opt {
	opts := append(c.baseOpts(),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerLinger(c.Linger),
		kgo.ProducerBatchMaxBytes(int32(c.BatchSize)),
		kgo.RecordDeliveryTimeout(6*c.Timeout),
		kgo.MaxBufferedRecords(1<<16),
		// The default 4 unknown-topic failures come within a second of
		// metadata refreshes (MetadataMinAge): give a new partition 10 s.
		kgo.UnknownTopicRetries(50),
	)
	switch c.Acks {
	case "1":
		opts = append(opts, kgo.RequiredAcks(kgo.LeaderAck()), kgo.DisableIdempotentWrite())
	case "0":
		opts = append(opts, kgo.RequiredAcks(kgo.NoAck()), kgo.DisableIdempotentWrite())
	default:
		opts = append(opts, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	// Without idempotence, franz-go keeps one produce request in flight
	// per broker (its default), which keeps each partition's order.
	switch c.Compression {
	case "gzip":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.GzipCompression()))
	case "snappy":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.SnappyCompression()))
	case "lz4":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.Lz4Compression()))
	case "zstd":
		opts = append(opts, kgo.ProducerBatchCompression(kgo.ZstdCompression()))
	default:
		opts = append(opts, kgo.ProducerBatchCompression(kgo.NoCompression()))
	}
	return opts
}

// classify attaches an error kind to a franz-go error.
func classify(err error) error {
	var ke *kerr.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled), errors.Is(err, kgo.ErrClientClosed):
		return adapters.WithKind(adapters.KindCanceled, err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, kerr.RequestTimedOut):
		return adapters.WithKind(adapters.KindTimeout, err)
	case errors.Is(err, kerr.UnknownTopicOrPartition):
		return adapters.WithKind(adapters.KindNotFound, err)
	case errors.Is(err, kerr.ThrottlingQuotaExceeded), errors.Is(err, kerr.PolicyViolation):
		return adapters.WithKind(adapters.KindThrottled, err)
	case errors.As(err, &ke) && ke.Retriable:
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	return err
}

// ErrCannotShrink is wrapped by the error of a partition decrease.
//
//lint:ignore ST1005 a sentence the screen shows as is; Kafka is a name
var ErrCannotShrink = errors.New("Kafka cannot remove partitions")

// shrinkError is what `[` shows.
func shrinkError(topic string, from, to int) error {
	return fmt.Errorf("%w (topic %s keeps its %d, not %d; ] adds)", ErrCannotShrink, topic, from, to)
}
