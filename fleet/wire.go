package fleet

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload"
)

// Protocol is the version of the protocol; both sides must speak the same.
// 2: agents divide a stream's partitions (Share.Partitions) and send their
// workload's view and counts (Interval.Workload, Delta). 3: a shared
// stream's rows name their process's run id and carry wall-clock write
// times, and ledgers (Done.Rows) the run ids and positions delivered.
const Protocol = 3

// Frame size limits: what a peer may send before it is authenticated, and
// after.
const (
	MaxFrameBeforeAuth = 64 << 10
	MaxFrame           = 64 << 20
)

// Message types, in the order a session uses them.
const (
	TypeHello    = "hello"    // agent → coordinator, first: Hello
	TypeAuth     = "auth"     // coordinator → agent: Auth
	TypeWelcome  = "welcome"  // agent → coordinator: Welcome
	TypePing     = "ping"     // coordinator → agent: Ping (clock offset)
	TypePong     = "pong"     // agent → coordinator: Pong
	TypeRun      = "run"      // coordinator → agent: RunSpec
	TypeReady    = "ready"    // agent → coordinator: Ready
	TypeStart    = "start"    // coordinator → agent: Start
	TypeInterval = "interval" // agent → coordinator: Interval, every interval
	TypeControl  = "control"  // coordinator → agent: Control, any time after start
	TypePhase    = "phase"    // agent → coordinator: PhaseStart, when a phase starts
	TypeDone     = "done"     // agent → coordinator: Done, last
	TypeRefuse   = "refuse"   // either side, then it closes: Refuse
)

// Envelope is one framed message.
type Envelope struct {
	Type string          `json:"type"`
	Body json.RawMessage `json:"body,omitempty"`
}

// HistRange is the histogram range of a side; merging needs equal ranges.
type HistRange struct {
	Lowest, Highest int64
	Digits          int
}

// LocalRange is this binary's histogram range.
func LocalRange() HistRange {
	return HistRange{Lowest: measure.Lowest, Highest: measure.Highest, Digits: measure.Digits}
}

// HostFacts are what an agent tells of its machine, for the JSON report.
type HostFacts struct {
	Hostname  string `json:"hostname"`
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUModel  string `json:"cpu_model,omitempty"`
	Cores     int    `json:"cores"`
	NIC       string `json:"nic,omitempty"`
	LinkMbps  int    `json:"link_mbps,omitempty"`
	GoVersion string `json:"go_version"`
}

// Hello opens a session: the agent's protocol, range and challenge.
type Hello struct {
	Protocol int
	Benchtop string // the agent's build
	Range    HistRange
	Nonce    []byte
	// Token tells whether the agent checks a token (false over stdio,
	// where ssh has authenticated the peer).
	Token bool
	Host  HostFacts
}

// Auth answers the challenge: HMAC-SHA256(token, "coordinator" | agent
// nonce | coordinator nonce), and the coordinator's own challenge.
type Auth struct {
	Protocol int
	Range    HistRange
	Nonce    []byte
	MAC      []byte
}

// Welcome proves the agent holds the token too: HMAC-SHA256(token,
// "agent" | agent nonce | coordinator nonce).
type Welcome struct {
	MAC []byte
}

// Refuse ends a session with one line that says why.
type Refuse struct {
	Reason string
	// BadInput: the run's input is refused on this side (a property its
	// adapter rejects, a memory store that would not fit): the
	// coordinator exits as for bad input.
	BadInput bool `json:",omitempty"`
}

// Ping and Pong measure the clock offset (NTP-style).
type Ping struct {
	Sent time.Time
}

// Pong echoes a Ping with the agent's clock.
type Pong struct {
	Sent, Agent time.Time
}

// RunSpec is the run an agent is asked to make.
type RunSpec struct {
	Command string
	Adapter string
	// Props are the run's properties as the coordinator validated them,
	// before this agent's share is applied.
	Props map[string]string
	// Hash is the coordinator's RunHash of Command, Adapter and Props.
	Hash string
	// Index (0-based) and Count place this agent in the fleet: its share
	// of the load range, the operation count and the target.
	Index, Count int
	Name         string // what the coordinator calls this agent
	Label        string // the workload's label (file name)
}

// Share is what one agent runs of the fleet's totals (-1: not split).
type Share struct {
	Threads        int     `json:"threads"`
	Target         float64 `json:"target"`
	OperationCount int64   `json:"operationcount"`
	InsertStart    int64   `json:"insertstart"`
	InsertCount    int64   `json:"insertcount"`
	// Partitions is the agent's portion of a divided partition count (-1:
	// not divided, every agent has the whole count).
	Partitions int `json:"partitions"`
	// SharedPartitions: the agents share one stream whose partitions the
	// server divides among them (shared.go).
	SharedPartitions bool `json:"shared_partitions,omitempty"`
	// OwnStore: the agent's store is in its own process (the memory
	// store), so a partition change goes to every agent.
	OwnStore bool `json:"own_store,omitempty"`
}

// Ready says the agent validated the run and opened its adapter.
type Ready struct {
	Hash string
	// OpNames are the workload's operation types by index: every agent's
	// must be the same for their histograms to merge.
	OpNames []string
	Info    engine.Info // properties masked
	Share   Share
}

// Start gives the instant to start at, on the agent's clock.
type Start struct {
	At time.Time
}

// Control is a live control: threads, target, partitions, pause, resume,
// mark, segment, stop.
type Control struct {
	Op    string
	N     int
	F     float64
	Label string
}

// Interval is one of the agent's snapshots: its raw measurements and what
// the screen needs of the agent.
type Interval struct {
	Seq        int
	Phase      engine.Phase
	OpNames    []string
	Start, End time.Time // the agent's clock
	Set        *measure.Set
	Host       host.Sample
	Events     []engine.Event
	Warnings   []string
	Threads    int
	Target     float64
	Partitions int
	Paused     bool
	OpsDone    int64
	OpsTotal   int64
	Done       bool // the run's last snapshot
	// P99 is the agent's own p99 of the interval over every operation type
	// (service time), for its row on the screen.
	P99 time.Duration
	// Workload is the workload's own figures (the stream's), Delta its
	// counts of the interval; nil when it has none.
	Workload *workload.View
	Delta    map[string]float64

	// enc is Set still encoded, histograms included (the coordinator's
	// side, see decode.go); Set then holds the counters only.
	enc *measure.Encoded
}

// PhaseStart says a phase begins on the agent (at At, its clock) and its
// previous phase, if any, is over: its last interval was sent.
type PhaseStart struct {
	Phase engine.Phase
	At    time.Time
}

// PhaseFigures are one finished phase of an agent.
type PhaseFigures struct {
	Phase       engine.Phase  `json:"phase"`
	RunTime     time.Duration `json:"runtime_ns"`
	RunTimeMs   int64         `json:"runtime_ms"`
	Operations  int64         `json:"operations"`
	Throughput  float64       `json:"throughput_ops_sec"` // successful operations per second
	Errors      int64         `json:"errors"`
	Interrupted bool          `json:"interrupted,omitempty"`
}

// Done is the agent's end of the run: its figures and its own reports.
type Done struct {
	Phases   []PhaseFigures
	Segments []engine.Segment
	Report   string          // its YCSB text report
	Summary  json.RawMessage // its JSON summary
	Err      string          // the run's error, if any
	Problems []string        // the workload's closing problems (lost rows...)
	// Rows is the agent's ledger (a shared stream's rows), as its
	// workload's Group encodes it, for the fleet's verdict (nil
	// otherwise).
	Rows json.RawMessage `json:",omitempty"`
}

// Conn is one side of a session: framed messages over a byte stream.
// Send is safe for concurrent use; Recv is for one reader.
type Conn struct {
	r     *bufio.Reader
	w     io.Writer
	c     io.Closer
	wmu   sync.Mutex
	limit int
	hdr   [4]byte
}

// deadliner is what a net.Conn adds: write deadlines, so that a peer that
// stops reading cannot block its side for ever.
type deadliner interface {
	SetWriteDeadline(t time.Time) error
}

// NewConn wraps a byte stream; reads are limited to MaxFrameBeforeAuth
// until SetLimit.
func NewConn(r io.Reader, w io.Writer, c io.Closer) *Conn {
	return &Conn{r: bufio.NewReaderSize(r, 64<<10), w: w, c: c, limit: MaxFrameBeforeAuth}
}

// SetLimit sets the largest frame Recv accepts.
func (c *Conn) SetLimit(n int) { c.limit = n }

// Close closes the stream.
func (c *Conn) Close() error {
	if c.c == nil {
		return nil
	}
	return c.c.Close()
}

// writeTimeout bounds one Send on a stream that supports deadlines.
const writeTimeout = 30 * time.Second

// Send writes one message.
func (c *Conn) Send(typ string, body any) error {
	env := Envelope{Type: typ}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("fleet: encode %s: %w", typ, err)
		}
		env.Body = b
	}
	b, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("fleet: encode %s: %w", typ, err)
	}
	if len(b) > MaxFrame {
		return fmt.Errorf("fleet: %s message of %d bytes is over the %d-byte limit", typ, len(b), MaxFrame)
	}
	frame := make([]byte, 4+len(b))
	binary.BigEndian.PutUint32(frame, uint32(len(b)))
	copy(frame[4:], b)
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if d, ok := c.w.(deadliner); ok {
		_ = d.SetWriteDeadline(time.Now().Add(writeTimeout))
	}
	if _, err := c.w.Write(frame); err != nil {
		return fmt.Errorf("fleet: send %s: %w", typ, err)
	}
	return nil
}

// ErrTLSRecord is a TLS record read where a frame was expected: the peer
// speaks TLS and this side does not.
var ErrTLSRecord = errors.New("fleet: the peer speaks TLS (a TLS record where a frame was expected)")

// ErrFrameTooLarge is a frame over the limit in force.
var ErrFrameTooLarge = errors.New("fleet: frame over the size limit")

// Recv reads one message.
func (c *Conn) Recv() (Envelope, error) {
	var env Envelope
	if _, err := io.ReadFull(c.r, c.hdr[:]); err != nil {
		return env, err
	}
	n := int(binary.BigEndian.Uint32(c.hdr[:]))
	if c.hdr[0] == 0x16 && c.hdr[1] == 0x03 && c.hdr[2] <= 0x04 {
		// A TLS handshake record (type 22, version 3.x) where a frame's
		// length was expected: the peer speaks TLS.
		return env, ErrTLSRecord
	}
	if n > c.limit {
		return env, fmt.Errorf("%w (%d bytes, limit %d): not a benchtop peer?", ErrFrameTooLarge, n, c.limit)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		return env, fmt.Errorf("fleet: read: %w", err)
	}
	if t, body, ok := splitEnvelope(buf); ok {
		// The body is checked when it is decoded: not scanned twice.
		return Envelope{Type: t, Body: body}, nil
	}
	if err := json.Unmarshal(buf, &env); err != nil {
		return env, fmt.Errorf("fleet: not a benchtop message: %w", err)
	}
	return env, nil
}

// splitEnvelope reads the envelope as Send writes it,
// {"type":"T","body":B}, without scanning B; ok is false for any other
// layout, which the JSON decoder then reads.
func splitEnvelope(b []byte) (typ string, body []byte, ok bool) {
	const pre, mid = `{"type":"`, `","body":`
	if !bytes.HasPrefix(b, []byte(pre)) || len(b) < len(pre)+len(mid)+2 || b[len(b)-1] != '}' {
		return "", nil, false
	}
	rest := b[len(pre):]
	i := bytes.IndexByte(rest, '"')
	if i <= 0 || bytes.ContainsAny(rest[:i], `\`) || !bytes.HasPrefix(rest[i:], []byte(mid)) {
		return "", nil, false
	}
	return string(rest[:i]), rest[i+len(mid) : len(rest)-1], true
}

// RefusedError is a Refuse received from the peer.
type RefusedError struct {
	Reason   string
	BadInput bool
}

func (e *RefusedError) Error() string { return "refused: " + e.Reason }

// Expect reads one message of type typ into body; a Refuse becomes a
// *RefusedError, any other type an error.
func (c *Conn) Expect(typ string, body any) error {
	env, err := c.Recv()
	if err != nil {
		return err
	}
	return decode(env, typ, body)
}

func decode(env Envelope, typ string, body any) error {
	if env.Type == TypeRefuse && typ != TypeRefuse {
		var r Refuse
		_ = json.Unmarshal(env.Body, &r)
		return &RefusedError{Reason: r.Reason, BadInput: r.BadInput}
	}
	if env.Type != typ {
		return fmt.Errorf("fleet: expected a %s message, got %q", typ, env.Type)
	}
	if body == nil {
		return nil
	}
	if err := json.Unmarshal(env.Body, body); err != nil {
		return fmt.Errorf("fleet: decode %s: %w", typ, err)
	}
	return nil
}
