package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"

	gomysql "github.com/go-sql-driver/mysql"

	"benchtop/adapters"
	"benchtop/adapters/sqlbase"
)

// opError is an operation's error, classified, its text scrubbed of the
// password.
func (db *DB) opError(ctx context.Context, op string, err error) error {
	return fmt.Errorf("%s %s: %w", op, db.cfg.Table, db.classify(ctx, err))
}

// classify attaches benchtop's error kind, by the server's error number
// when there is one:
//
//   - 1205 (lock wait timeout), 1969 (MariaDB's max_statement_time) and
//     3024 (MySQL's max_execution_time) are timeouts;
//   - 1213 (deadlock) is throttled: the server gave up on the statement
//     for contention, and asks for it again; so is 1226 (a user's
//     resource limit);
//   - 1040 and 1203 (too many connections), 1053 (shutdown), 1927
//     (connection killed) and 4031 (disconnected for inactivity) are
//     unavailable;
//   - 1062 and 1586 (a duplicate entry for a key) are duplicate;
//   - any other (a missing table, a refused password) is an error with
//     the server's message.
//
// Without one: the operation's context ending is its kind (canceled or
// timeout), a network timeout a timeout, a refused, reset or broken
// connection unavailable.
func (db *DB) classify(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	err = sqlbase.Scrub(err, db.cfg.Password, db.mycfg.Passwd)
	var me *gomysql.MySQLError
	if errors.As(err, &me) {
		return adapters.WithKind(kindOfNumber(me.Number), err)
	}
	if cerr := ctx.Err(); cerr != nil {
		err = fmt.Errorf("%w (%w)", cerr, err)
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return adapters.WithKind(adapters.KindCanceled, err)
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return adapters.WithKind(adapters.KindTimeout, err)
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, gomysql.ErrInvalidConn), errors.Is(err, sqlbase.ErrClosed):
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return adapters.WithKind(adapters.KindUnavailable, err)
	}
	return err
}

// kindOfNumber maps a server error number to an error kind (see classify).
func kindOfNumber(n uint16) string {
	switch n {
	case 1205, 1969, 3024:
		return adapters.KindTimeout
	case 1213, 1226:
		return adapters.KindThrottled
	case 1040, 1203, 1053, 1927, 4031:
		return adapters.KindUnavailable
	case 1062, 1586:
		return adapters.KindDuplicate
	}
	return adapters.KindOther
}
