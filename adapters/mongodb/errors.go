package mongodb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"benchtop/adapters"
)

// KindDuplicate is the error kind of an insert whose _id exists already
// (MongoDB error code 11000).
const KindDuplicate = "duplicate"

// Server error codes that mean "this server cannot serve now" rather than
// "this operation is wrong": a restart, a step-down or an unreachable peer.
var unavailableCodes = map[int32]bool{
	6:     true, // HostUnreachable
	7:     true, // HostNotFound
	91:    true, // ShutdownInProgress
	189:   true, // PrimarySteppedDown
	10107: true, // NotWritablePrimary
	11600: true, // InterruptedAtShutdown
	11602: true, // InterruptedDueToReplStateChange
	13435: true, // NotPrimaryNoSecondaryOk
	13436: true, // NotPrimaryOrSecondary
}

// kindOf classifies a driver error for error counting.
func kindOf(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, context.Canceled):
		return adapters.KindCanceled
	case mongo.IsDuplicateKeyError(err):
		return KindDuplicate
	}
	// No server could be selected: down, unreachable or not yet
	// reconnected. Checked before timeouts because a failed selection
	// often wraps a deadline.
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) || errors.Is(err, mongo.ErrClientDisconnected) {
		return adapters.KindUnavailable
	}
	if mongo.IsTimeout(err) {
		return adapters.KindTimeout
	}
	var ce topology.ConnectionError
	if mongo.IsNetworkError(err) || errors.As(err, &ce) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return adapters.KindUnavailable
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for code := range unavailableCodes {
			if se.HasErrorCode(int(code)) {
				return adapters.KindUnavailable
			}
		}
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return adapters.KindUnavailable
	}
	return adapters.KindOther
}

// redactedError shows another message than its error's (secrets masked,
// or shortened) while keeping the original reachable for errors.Is and
// errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// sanitize returns err with every secret of the connection string masked
// in its message. Driver errors may quote the URI (parse errors do).
func (c *config) sanitize(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := c.redact.Replace(msg)
	if clean == msg {
		return err
	}
	return &redactedError{msg: clean, err: err}
}

// fail wraps a driver error with the operation's context and its kind.
func (d *DB) fail(err error, format string, args ...any) error {
	err = d.cfg.sanitize(err)
	return adapters.WithKind(kindOf(err), fmt.Errorf("mongodb: "+format+": %w", append(args, err)...))
}
