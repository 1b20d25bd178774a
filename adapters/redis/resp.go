package redis

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// The lean client's wire format: RESP2 commands written into a reused
// buffer and replies parsed straight from a bufio.Reader into the engine's
// Fields, with no intermediate values. It knows the reply types Redis sends
// to the commands the key-value path uses (simple strings, errors,
// integers, bulk strings and arrays of them) and nothing else.

// serverError is an error reply ("-ERR ...", "-NOSCRIPT ..."). The
// reader returns it unwrapped, so that a type assertion finds it (errors.As
// would move its target to the heap on every operation).
type serverError string

func (e serverError) Error() string { return string(e) }

// errProtocol is a reply this client cannot parse; the connection that
// produced it is closed.
var errProtocol = errors.New("redis: protocol error")

// cmdBuf builds one or more commands.
type cmdBuf []byte

// cmd starts a command of n arguments (the name included).
func (b cmdBuf) cmd(n int) cmdBuf {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

func (b cmdBuf) str(s string) cmdBuf {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

func (b cmdBuf) bytes(v []byte) cmdBuf {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(v)), 10)
	b = append(b, '\r', '\n')
	b = append(b, v...)
	return append(b, '\r', '\n')
}

// hashKey appends "<table>:<key>" as one argument, without building the
// string first.
func (b cmdBuf) hashKey(table, key string) cmdBuf {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(table)+1+len(key)), 10)
	b = append(b, '\r', '\n')
	b = append(b, table...)
	b = append(b, ':')
	b = append(b, key...)
	return append(b, '\r', '\n')
}

// respReader reads replies.
type respReader struct {
	rd *bufio.Reader
	// names interns field names: a record's field names are the same few
	// strings on every read, so they are allocated once per connection.
	names map[string]string
}

const maxInternedNames = 1024

func newRespReader(r io.Reader, size int) *respReader {
	return &respReader{rd: bufio.NewReaderSize(r, size), names: make(map[string]string)}
}

// line reads one reply line without its CRLF. The slice is valid until
// the next read.
func (r *respReader) line() ([]byte, error) {
	l, err := r.rd.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%w: a reply line longer than %d bytes", errProtocol, r.rd.Size())
		}
		return nil, err
	}
	if len(l) < 3 || l[len(l)-2] != '\r' {
		return nil, fmt.Errorf("%w: reply line %q", errProtocol, l)
	}
	return l[:len(l)-2], nil
}

// parseInt parses a RESP length or integer.
func parseInt(b []byte) (int64, error) {
	if len(b) == 0 {
		return 0, fmt.Errorf("%w: empty number", errProtocol)
	}
	neg := b[0] == '-'
	if neg {
		b = b[1:]
		if len(b) == 0 {
			return 0, fmt.Errorf("%w: number %q", errProtocol, "-")
		}
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' || n > (1<<62)/10 {
			return 0, fmt.Errorf("%w: number %q", errProtocol, b)
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, nil
}

// header reads a reply's first line and returns its type byte and number
// (a length, a count or an integer; 0 for simple strings). An error reply
// is returned as a serverError.
func (r *respReader) header() (byte, int64, error) {
	l, err := r.line()
	if err != nil {
		return 0, 0, err
	}
	switch l[0] {
	case '+':
		return '+', 0, nil
	case '-':
		return '-', 0, serverError(l[1:])
	case ':', '$', '*':
		n, err := parseInt(l[1:])
		return l[0], n, err
	}
	return 0, 0, fmt.Errorf("%w: reply type %q", errProtocol, l[0])
}

// expect reads a reply header of type want ('*', '$', ':' or '+').
func (r *respReader) expect(want byte) (int64, error) {
	t, n, err := r.header()
	if err != nil {
		return 0, err
	}
	if t != want {
		return 0, fmt.Errorf("%w: reply type %q where %q was expected", errProtocol, t, want)
	}
	return n, nil
}

// bulkBody reads n bytes of a bulk string and its CRLF into a new slice.
func (r *respReader) bulkBody(n int64) ([]byte, error) {
	if n < 0 || n > 512<<20 {
		return nil, fmt.Errorf("%w: bulk length %d", errProtocol, n)
	}
	v := make([]byte, n)
	if _, err := io.ReadFull(r.rd, v); err != nil {
		return nil, err
	}
	return v, r.crlf()
}

func (r *respReader) crlf() error {
	c1, err := r.rd.ReadByte()
	if err != nil {
		return err
	}
	c2, err := r.rd.ReadByte()
	if err != nil {
		return err
	}
	if c1 != '\r' || c2 != '\n' {
		return fmt.Errorf("%w: no CRLF after a bulk string", errProtocol)
	}
	return nil
}

// peekBulk reads a bulk string's header and returns its body: still in
// the reader's buffer when it fits there (buffered: the caller discards
// len(b)+2 bytes once done with it), else read into a new slice.
func (r *respReader) peekBulk() (b []byte, buffered bool, err error) {
	n, err := r.expect('$')
	if err != nil {
		return nil, false, err
	}
	if n < 0 || n > int64(r.rd.Size())-2 {
		v, err := r.bulkBody(n)
		return v, false, err
	}
	b, err = r.rd.Peek(int(n) + 2)
	if err != nil {
		return nil, false, err
	}
	if b[n] != '\r' || b[n+1] != '\n' {
		return nil, false, fmt.Errorf("%w: no CRLF after a bulk string", errProtocol)
	}
	return b[:n], true, nil
}

// name reads a bulk string as a field name, interned.
func (r *respReader) name() (string, error) {
	b, buffered, err := r.peekBulk()
	if err != nil || !buffered {
		return string(b), err
	}
	s, ok := r.names[string(b)]
	if !ok {
		s = string(b)
		if len(r.names) < maxInternedNames {
			r.names[s] = s
		}
	}
	_, err = r.rd.Discard(len(b) + 2)
	return s, err
}

// text reads a bulk string as a new string (one allocation).
func (r *respReader) text() (string, error) {
	b, buffered, err := r.peekBulk()
	if err != nil || !buffered {
		return string(b), err
	}
	s := string(b)
	_, err = r.rd.Discard(len(b) + 2)
	return s, err
}

// value reads a bulk string; nil (and ok false) for a nil bulk ($-1).
func (r *respReader) value() (v []byte, ok bool, err error) {
	n, err := r.expect('$')
	if err != nil || n == -1 {
		return nil, false, err
	}
	v, err = r.bulkBody(n)
	return v, err == nil, err
}

// skip reads and drops one reply of any type; it returns the first error
// reply found in it (inside an array too), after reading the whole reply.
func (r *respReader) skip() error {
	t, n, err := r.header()
	if _, ok := err.(serverError); err != nil && !ok {
		return err
	}
	switch t {
	case '$':
		if n >= 0 {
			if _, err := r.rd.Discard(int(n)); err != nil {
				return err
			}
			if err := r.crlf(); err != nil {
				return err
			}
		}
	case '*':
		var first error
		for range n {
			if e := r.skip(); e != nil {
				if _, ok := e.(serverError); !ok {
					return e
				}
				if first == nil {
					first = e
				}
			}
		}
		return first
	}
	return err
}
