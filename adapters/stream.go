package adapters

import "context"

// Streamer is implemented by adapters that can carry the partitioned
// change-stream workload (workload/stream): an append-only log split into
// numbered partitions, each read strictly in order by one reader.
type Streamer interface {
	// OpenStream creates a new, empty stream named name with partitions
	// 0 to partitions-1. The name is unique per run; the stream's data is
	// removed by Stream.Close.
	OpenStream(ctx context.Context, name string, partitions int) (Stream, error)
}

// StreamRow is one row handed to Stream.Produce.
type StreamRow struct {
	Partition int
	// Data is only valid for the duration of the Produce call: an adapter
	// that keeps it must copy it.
	Data []byte
}

// Stream is one partitioned append-only log. Produce, Partitions and
// EnsurePartitions are safe for concurrent use; each partition's
// StreamReader is used by one goroutine at a time.
//
// The stream keeps no notion of keys, epochs or consumers: the workload
// decides which partition a row goes to and when a partition is no longer
// written. Partitions are never removed while the stream is open (a
// partition the workload stops writing keeps its rows for its reader).
type Stream interface {
	// Partitions returns how many partitions exist (numbered from 0).
	Partitions() int
	// EnsurePartitions creates partitions up to n (a no-op when n or more
	// exist), each empty and positioned for its reader at its start.
	EnsurePartitions(ctx context.Context, n int) error
	// Produce appends every row to its partition. Rows of one partition
	// are appended in the order given, after every row of an earlier
	// Produce call that returned; rows of concurrent calls may interleave.
	// On error some of the rows may have been appended and others not.
	Produce(ctx context.Context, rows []StreamRow) error
	// Reader returns the reader of partition p, positioned at its first
	// row. A partition has at most one reader; it lives until Close.
	Reader(ctx context.Context, p int) (StreamReader, error)
	// Describe says where the stream lives, e.g. "redis streams
	// benchtop-1a2b:p{0..7}" (no secrets).
	Describe() string
	// Close removes the stream's data and releases its resources; readers
	// become unusable.
	Close(ctx context.Context) error
}

// StreamReader reads one partition in order. Every row is delivered once,
// in the order it was appended.
type StreamReader interface {
	// Read appends up to max rows to dst and returns it. It waits for at
	// least one row until ctx is done or an adapter-chosen poll time has
	// passed (then it returns dst unchanged and a nil error). The rows
	// stay valid until the next Read or Close on this reader; the caller
	// must not modify them.
	Read(ctx context.Context, dst [][]byte, max int) ([][]byte, error)
	// Close releases the reader.
	Close() error
}

// GrowOnlyStream is implemented by streams whose partitions can be added
// but never removed (a Kafka topic's). The stream workload then refuses a
// smaller partition count with ShrinkError's error, which the screen
// shows, rather than leave partitions unwritten.
type GrowOnlyStream interface {
	Stream
	// ShrinkError says why the partitions cannot go from from to to.
	ShrinkError(from, to int) error
}

// SharedStream is implemented by streams that other processes may consume
// too (a Kafka topic read by a consumer group): a partition is delivered
// by whichever member the server assigns it to, and may move between
// members while the run goes on. The stream workload then checks order
// per partition (it cannot hold back a key's new partition until another
// process has drained the old one), records every row it delivers in a
// ledger for a verdict across processes (stream.Merge), and ends its run
// with WaitConsumed instead of reading every partition to its end itself.
type SharedStream interface {
	Stream
	// Shared reports whether the stream is consumed by a group.
	Shared() bool
	// WaitConsumed returns once every row in the stream when it was
	// called has been delivered by some member of the group (and that
	// member has recorded so), or when ctx ends.
	WaitConsumed(ctx context.Context) error
}

// PositionedReader is implemented by StreamReaders whose rows have a
// position in their partition (a Kafka offset). A shared stream's
// workload records the positions it delivered, so that a row delivered
// twice from one position (at-least-once: again after a rebalance) is told
// apart from a row the log holds twice, and so that it knows whether its
// readers delivered every row the stream holds (GroupStream.Spans).
type PositionedReader interface {
	StreamReader
	// Positions returns the positions of the rows the last Read returned,
	// one per row, in order; valid until the next Read.
	Positions() []int64
}

// Span is the positions a partition holds: From is its first row's
// (rows before it were removed or expired), End the one after its last.
type Span struct {
	Partition int
	From, End int64
}

// GroupStream is implemented by SharedStreams read by a group that
// another member can change (a Kafka topic of a consumer group).
type GroupStream interface {
	SharedStream
	// Grown delivers the stream's partition count each time the stream
	// is seen to have more partitions than this process made (another
	// member grew it). The stream workload follows: EnsurePartitions,
	// readers for the new partitions, its producers switched.
	Grown() <-chan int
	// Spans returns every partition's span now (a topic's log start and
	// end offsets): with the positions its readers delivered, the
	// workload tells whether it delivered every row the stream holds.
	Spans(ctx context.Context) ([]Span, error)
	// WaitAssigned returns once the group has given each of partitions
	// 0 to n-1 to a member (after a growth: the group's rebalance), or
	// when ctx ends.
	WaitAssigned(ctx context.Context, n int) error
	// Lag is the group's lag per partition as last measured (about once a
	// second): rows in the stream beyond what the group has delivered
	// (for Kafka the end offset less the committed offset); nil before the
	// first measure. One process cannot tell it from its own deliveries.
	Lag() []int64
}

// StreamOnly is embedded by the adapters that carry the stream workload
// only (NATS, Kafka): their key-value operations fail with Err.
type StreamOnly struct{ Err error }

// Read fails: the adapter has no key-value operations.
func (s StreamOnly) Read(context.Context, string, string, []string, []Field) ([]Field, error) {
	return nil, s.Err
}

// Scan fails: the adapter has no key-value operations.
func (s StreamOnly) Scan(context.Context, string, string, int, []string, []Record) ([]Record, error) {
	return nil, s.Err
}

// Update fails: the adapter has no key-value operations.
func (s StreamOnly) Update(context.Context, string, string, []Field) error { return s.Err }

// Insert fails: the adapter has no key-value operations.
func (s StreamOnly) Insert(context.Context, string, string, []Field) error { return s.Err }

// Delete fails: the adapter has no key-value operations.
func (s StreamOnly) Delete(context.Context, string, string) error { return s.Err }
