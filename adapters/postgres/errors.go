package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// opError is an operation's error, classified, its text scrubbed of the
// password.
func (db *DB) opError(op string, err error) error {
	return fmt.Errorf("%s %s: %w", op, db.cfg.Table, db.classify(err))
}

// classify attaches benchtop's error kind, by the server's SQLSTATE when
// there is one:
//
//   - 57014 (query_canceled: statement_timeout) and 55P03
//     (lock_not_available: lock_timeout) are timeouts;
//   - 40001 (serialization_failure) and 40P01 (deadlock_detected) are
//     throttled: the server gave up on the statement for contention, and
//     asks for it again;
//   - class 08 (connection exception), 53 (insufficient resources: too
//     many connections, out of memory or disk) and 57P01-57P05 (shutdown,
//     recovery, idle session killed) are unavailable;
//   - 23505 (unique_violation: a key that exists already) is a duplicate;
//   - any other SQLSTATE (a missing table, a refused password) is an
//     error with the server's message.
//
// Without one: a context's deadline or a network timeout is a timeout, its
// cancellation canceled, a refused, reset or closed connection
// unavailable.
func (db *DB) classify(err error) error {
	if err == nil {
		return nil
	}
	err = sqlbase.Scrub(err, db.cfg.Password, db.pgcfg.Password)
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return adapters.WithKind(kindOfState(pe.Code), err)
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return adapters.WithKind(adapters.KindCanceled, err)
	case errors.Is(err, context.DeadlineExceeded), pgconn.Timeout(err), errors.As(err, &ne) && ne.Timeout():
		return adapters.WithKind(adapters.KindTimeout, err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed), errors.Is(err, sqlbase.ErrClosed):
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	var oe *net.OpError
	var ce *pgconn.ConnectError
	if errors.As(err, &oe) || errors.As(err, &ce) || strings.Contains(err.Error(), "conn closed") {
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	return err
}

// kindOfState maps a SQLSTATE to an error kind (see classify).
func kindOfState(code string) string {
	switch {
	case code == "57014", code == "55P03":
		return adapters.KindTimeout
	case code == "40001", code == "40P01":
		return adapters.KindThrottled
	case code == "23505":
		return adapters.KindDuplicate
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"), strings.HasPrefix(code, "57P"):
		return adapters.KindUnavailable
	}
	return adapters.KindOther
}
