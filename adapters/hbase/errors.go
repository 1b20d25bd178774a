package hbase

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/apache/thrift/lib/go/thrift"

	"benchtop/adapters"
	"benchtop/adapters/hbase/thrift2"
)

// isServerException reports whether err is an exception the gateway sent
// as a reply, which leaves the connection in a clean state.
func isServerException(err error) bool {
	var ioe *thrift2.TIOError
	var iae *thrift2.TIllegalArgument
	var ae thrift.TApplicationException
	return errors.As(err, &ioe) || errors.As(err, &iae) || errors.As(err, &ae)
}

// classify attaches an error kind: a refused, reset or dropped connection
// is unavailable, a deadline a timeout, and the gateway's TIOError and
// TIllegalArgument plain errors that carry the server's message.
func classify(err error) error {
	if err == nil {
		return nil
	}
	var ioe *thrift2.TIOError
	var iae *thrift2.TIllegalArgument
	var ne net.Error
	switch {
	case errors.As(err, &ioe):
		return adapters.WithKind(adapters.KindOther, &serverError{kind: "TIOError", msg: ioe.GetMessage(), err: err})
	case errors.As(err, &iae):
		return adapters.WithKind(adapters.KindOther, &serverError{kind: "TIllegalArgument", msg: iae.GetMessage(), err: err})
	case errors.Is(err, context.Canceled):
		return adapters.WithKind(adapters.KindCanceled, err)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return adapters.WithKind(adapters.KindTimeout, err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, errClosed):
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	var te thrift.TTransportException
	if errors.As(err, &te) && (te.TypeId() == thrift.NOT_OPEN || te.TypeId() == thrift.END_OF_FILE) {
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	return err
}

// serverError is an exception from the gateway, shown by its type and the
// server's message (the generated Error() strings are Go struct dumps).
type serverError struct {
	kind, msg string
	err       error
}

func (e *serverError) Error() string {
	if e.msg == "" {
		return e.kind
	}
	return e.kind + ": " + firstLine(e.msg)
}

func (e *serverError) Unwrap() error { return e.err }

// firstLine cuts a Java exception message (which may carry a stack trace)
// to its first line.
func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\r' {
			return s[:i]
		}
	}
	return s
}
