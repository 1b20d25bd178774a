package attach

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// The conversation on a run's socket is a stream of frames: one byte of
// kind, four bytes of length (big-endian), the payload. The client opens
// with a hello saying what it wants (the run's description, or the
// screen at its terminal's size and colours); then keys and window sizes
// go one way and the screen's bytes the other, until an end frame says
// why the conversation is over.
const (
	kindHello  = 'h' // client: hello (JSON)
	kindInfo   = 'i' // server: the run (JSON RunInfo)
	kindKeys   = 'k' // client: bytes typed on the terminal
	kindWindow = 'w' // client: the terminal's new size (JSON size)
	kindScreen = 'o' // server: bytes for the terminal
	kindEnd    = 'e' // server: the end (JSON End)
)

// maxFrame bounds a frame's payload: a screen's frame is a few KB.
const maxFrame = 1 << 20

// hello is the client's first frame.
type hello struct {
	Op      string `json:"op"` // "info" or "attach"
	Term    string `json:"term,omitempty"`
	Profile int    `json:"profile,omitempty"` // termenv.Profile: 0 true colour .. 3 none
	size
}

type size struct {
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
}

// RunInfo describes a run for `benchtop attach --list`.
type RunInfo struct {
	ID       int       `json:"id"` // the process ID
	Command  string    `json:"command"`
	Adapter  string    `json:"adapter"`
	Workload string    `json:"workload"`
	Started  time.Time `json:"started"`
	// State: "on screen" (its own terminal shows it), "detached" (its
	// terminal was lost), "ending" (writing its report).
	State    string `json:"state"`
	Attached int    `json:"attached"` // terminals attached now
	// Report is where the text report goes when the run's terminal was
	// lost, "" while it has its terminal.
	Report      string `json:"report,omitempty"`
	CommandLine string `json:"command_line,omitempty"`
}

// End is the last frame: why the conversation is over.
type End struct {
	// Reason: "detached" (d), "ended" (the run is over: Status and
	// Lines are its exit status and its last lines), "refused".
	Reason  string   `json:"reason"`
	Message string   `json:"message,omitempty"`
	Status  int      `json:"status"`
	Lines   []string `json:"lines,omitempty"`
}

// frameWriter writes frames; Write sends screen bytes, so that a
// program can draw into it.
type frameWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (f *frameWriter) frame(kind byte, p []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	var h [5]byte
	h[0] = kind
	binary.BigEndian.PutUint32(h[1:], uint32(len(p)))
	if _, err := f.w.Write(h[:]); err != nil {
		return err
	}
	_, err := f.w.Write(p)
	return err
}

func (f *frameWriter) json(kind byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return f.frame(kind, b)
}

// Write sends p as screen bytes.
func (f *frameWriter) Write(p []byte) (int, error) {
	for rest := p; len(rest) > 0; {
		n := min(len(rest), maxFrame)
		if err := f.frame(kindScreen, rest[:n]); err != nil {
			return len(p) - len(rest), err
		}
		rest = rest[n:]
	}
	return len(p), nil
}

// readFrame reads one frame.
func readFrame(r io.Reader) (byte, []byte, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("attach: a frame of %d bytes (at most %d)", n, maxFrame)
	}
	p := make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return h[0], p, nil
}

func jsonUnmarshal(p []byte, v any) error {
	if err := json.Unmarshal(p, v); err != nil {
		return fmt.Errorf("attach: a bad frame: %w", err)
	}
	return nil
}

// endError is the error of an end frame received instead of an answer.
func endError(p []byte) error {
	var e End
	if err := jsonUnmarshal(p, &e); err != nil {
		return err
	}
	return errors.New(e.Message)
}
