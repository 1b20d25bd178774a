package redis

import (
	"io"
	"net"
	"syscall"
)

// connReader is what a lean connection's reply reader reads from. A
// command handed to it (deferWrite) is written when the first reply byte
// is asked for, from inside the connection's raw read (syscall.RawConn):
// the write, then the goroutine parks until the netpoller reports the
// socket readable, then one read. A plain Write followed by Read makes
// one more system call per operation: Read tries the socket at once, and
// right after the write the reply is never there (EAGAIN), so it parks
// and reads again; here the read is tried only once the socket is
// readable. The write must come after the raw read has begun: it resets
// the descriptor's readiness first (poll.FD.RawRead's prepareRead), and a
// reply that came in before that would be forgotten.
type connReader struct {
	nc      net.Conn
	raw     syscall.RawConn // nil: plain Write and Read
	pending []byte          // a command to write before the next read
}

func newConnReader(nc net.Conn) *connReader {
	cr := &connReader{nc: nc}
	if sc, ok := nc.(syscall.Conn); ok {
		if raw, err := sc.SyscallConn(); err == nil {
			cr.raw = raw
		}
	}
	return cr
}

// deferWrite hands b to the next Read to write; false when it cannot
// (no raw connection): the caller writes it itself. b must stay unchanged
// until that Read.
func (cr *connReader) deferWrite(b []byte) bool {
	if cr.raw == nil {
		return false
	}
	cr.pending = b
	return true
}

// Read reads into p, first writing a command handed to deferWrite.
func (cr *connReader) Read(p []byte) (int, error) {
	if cr.pending == nil {
		return cr.nc.Read(p)
	}
	cmd := cr.pending
	cr.pending = nil
	var (
		n     int
		err   error
		wrote int
		rest  bool // the write did not complete: finish it outside
	)
	rerr := cr.raw.Read(func(fd uintptr) bool {
		if cmd != nil {
			for wrote < len(cmd) {
				w, werr := syscall.Write(int(fd), cmd[wrote:])
				if werr == syscall.EINTR {
					continue
				}
				if werr == syscall.EAGAIN {
					rest = true
					return true
				}
				if werr != nil {
					err = werr
					return true
				}
				wrote += w
			}
			cmd = nil
			return false // wait until the reply can be read
		}
		for {
			n, err = syscall.Read(int(fd), p)
			if err != syscall.EINTR {
				break
			}
		}
		if err == syscall.EAGAIN {
			n, err = 0, nil
			return false
		}
		return true
	})
	switch {
	case rerr != nil: // the deadline, or the connection closed
		return 0, rerr
	case err != nil:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: err}
	case rest:
		if _, werr := cr.nc.Write(cmd[wrote:]); werr != nil {
			return 0, werr
		}
		return cr.nc.Read(p)
	case n == 0 && len(p) > 0:
		return 0, io.EOF
	}
	return n, nil
}

var _ io.Reader = (*connReader)(nil)
