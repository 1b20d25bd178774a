package cassandra

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"benchtop/adapters"
)

// opError is an operation's error, classified, its text scrubbed of the
// password.
func (db *DB) opError(op string, err error) error {
	return fmt.Errorf("%s %s: %w", op, db.cfg.Table, db.classify(err))
}

// classify attaches benchtop's error kind, by the server's error code when
// there is one (the native protocol's, section 8 of its spec):
//
//   - Read_timeout and Write_timeout (the replicas did not answer the
//     coordinator in time) are timeouts;
//   - Unavailable (too few replicas alive for the consistency level) and
//     Is_bootstrapping are unavailable;
//   - Overloaded is throttled: the coordinator sheds the request;
//   - any other code (a read or write failure, a syntax error, a refused
//     login, an unknown keyspace) is an error with the server's message.
//
// Without one: the driver's own timeout (no answer within
// cassandra.readtimeoutmillis) or the context's deadline is a timeout, its
// cancellation canceled, a refused, reset or closed connection, no
// connection in the pool or no host up unavailable.
func (db *DB) classify(err error) error {
	if err == nil {
		return nil
	}
	err = scrub(err, db.cfg.Password)
	var re gocql.RequestError
	if errors.As(err, &re) {
		return adapters.WithKind(kindOfCode(re.Code()), err)
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return adapters.WithKind(adapters.KindCanceled, err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, gocql.ErrTimeoutNoResponse),
		errors.As(err, &ne) && ne.Timeout():
		return adapters.WithKind(adapters.KindTimeout, err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, gocql.ErrConnectionClosed), errors.Is(err, gocql.ErrNoConnections),
		errors.Is(err, gocql.ErrSessionClosed), errors.Is(err, gocql.ErrNoConnectionsStarted),
		errors.Is(err, gocql.ErrUnavailable), errors.Is(err, gocql.ErrNoStreams):
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	// Session creation flattens its cause into text (%v).
	msg := err.Error()
	switch {
	case strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "no response received"):
		return adapters.WithKind(adapters.KindTimeout, err)
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "connection reset"),
		strings.Contains(msg, "no route to host"), strings.Contains(msg, "no connections were made"),
		strings.Contains(msg, "unable to connect to initial hosts") && !strings.Contains(msg, "password"):
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	return err
}

// kindOfCode maps a native-protocol error code to an error kind.
func kindOfCode(code int) string {
	switch code {
	case gocql.ErrCodeReadTimeout, gocql.ErrCodeWriteTimeout:
		return adapters.KindTimeout
	case gocql.ErrCodeUnavailable, gocql.ErrCodeBootstrapping:
		return adapters.KindUnavailable
	case gocql.ErrCodeOverloaded:
		return adapters.KindThrottled
	}
	return adapters.KindOther
}

// scrubbed is an error whose text had the password taken out; it keeps
// the original's chain for errors.Is and errors.As.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// scrub replaces the password wherever err's text holds it (gocql's and
// the server's messages do not, but an error from below may).
func scrub(err error, password string) error {
	if password == "" {
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, password) {
		return err
	}
	return &scrubbed{msg: strings.ReplaceAll(msg, password, "****"), err: err}
}
