package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"

	gomysql "github.com/go-sql-driver/mysql"

	"benchtop/adapters/sqlbase"
)

// conn is one connection with its statements and the scratch space of
// one operation (a connection serves one worker at a time).
type conn struct {
	mc    driver.Conn
	ex    driver.ExecerContext  // mc's text protocol
	qu    driver.QueryerContext // mc's text protocol
	nc    net.Conn              // its socket, for a context's end
	stmts map[string]*stmt
	set   sqlbase.Set
	args  []driver.NamedValue
	dest  []driver.Value
	vals  [][]byte
	w     *sqlbase.Watcher
	bad   bool // broken or in an unknown state: closed when put back
}

// stmt is one statement of a connection: its text, and when it is
// prepared on the server (useServerPrepStmts=true) its handle; a SELECT
// *'s result columns mapped to fields, known at its first result.
type stmt struct {
	sql string
	st  driver.Stmt // nil: sent as text, values inlined
	ex  driver.StmtExecContext
	qu  driver.StmtQueryContext
	res *sqlbase.Result
}

// quiet is the context the driver's calls get: one that never ends, so
// that the driver starts no watcher of its own for a call (two goroutine
// hand-offs per operation); the adapter ends an operation through its
// socket's deadline instead (sqlbase.Watcher), armed for the operation's
// context.
var quiet = context.Background()

// arg adds a statement parameter.
func (c *conn) arg(v driver.Value) {
	c.args = append(c.args, driver.NamedValue{Ordinal: len(c.args) + 1, Value: v})
}

// maxStatements bounds a connection's prepared statements (the server's
// max_prepared_stmt_count, 16,382 by default, counts all connections'):
// past it a statement is prepared, run and closed each time.
const maxStatements = 64

// socketKey carries the slot where dialKeeping leaves a new connection's
// socket.
type socketKey struct{}

// dialKeeping dials as the driver would and leaves the socket in the
// context's slot, so that the adapter can end an operation by its
// deadline.
func dialKeeping(ctx context.Context, network, addr string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, addr)
	if err == nil {
		if slot, ok := ctx.Value(socketKey{}).(*net.Conn); ok {
			*slot = nc
		}
	}
	return nc, err
}

func (db *DB) dial(ctx context.Context) (*conn, error) {
	var nc net.Conn
	mc, err := db.connector.Connect(context.WithValue(ctx, socketKey{}, &nc))
	if err != nil {
		return nil, err
	}
	if nc == nil {
		mc.Close()
		return nil, errors.New("the driver connected without dialing through the adapter")
	}
	ex, okE := mc.(driver.ExecerContext)
	qu, okQ := mc.(driver.QueryerContext)
	if !okE || !okQ {
		mc.Close()
		return nil, errors.New("the driver's connection runs no text statements (ExecerContext, QueryerContext)")
	}
	return &conn{mc: mc, ex: ex, qu: qu, nc: nc, stmts: map[string]*stmt{}, w: sqlbase.NewWatcher(nc)}, nil
}

func (c *conn) close() {
	c.w.Stop()
	for _, st := range c.stmts {
		st.close()
	}
	_ = c.mc.Close()
}

// failed records what err says of the connection: a server's error
// leaves it usable; any other (a broken socket, a context's end, a
// protocol error) does not.
func (c *conn) failed(err error) {
	var me *gomysql.MySQLError
	if err != nil && !errors.As(err, &me) {
		c.bad = true
	}
}

// close closes a statement prepared on the server.
func (st *stmt) close() {
	if st != nil && st.st != nil {
		_ = st.st.Close()
	}
}

// statement returns the statement of signature sig, made with the text
// sql() gives on a miss: prepared on the server with useServerPrepStmts,
// else kept as text. once says it is not kept (the caller closes it after
// use).
func (db *DB) statement(c *conn, sig []byte, sql func() string) (st *stmt, once bool, err error) {
	if st, ok := c.stmts[string(sig)]; ok {
		return st, false, nil
	}
	st = &stmt{sql: sql()}
	if db.serverPrep {
		if err := c.prepare(st); err != nil {
			return nil, false, err
		}
	}
	if len(c.stmts) >= maxStatements {
		return st, true, nil
	}
	c.stmts[string(sig)] = st
	return st, false, nil
}

// prepare prepares st on the server.
func (c *conn) prepare(st *stmt) error {
	pc, ok := c.mc.(driver.ConnPrepareContext)
	if !ok {
		return errors.New("the driver's connection cannot prepare with a context")
	}
	ds, err := pc.PrepareContext(quiet, st.sql)
	if err != nil {
		c.failed(err)
		return err
	}
	st.ex, ok = ds.(driver.StmtExecContext)
	if st.qu, _ = ds.(driver.StmtQueryContext); !ok || st.qu == nil {
		_ = ds.Close()
		return errors.New("the driver's prepared statement takes no context")
	}
	st.st = ds
	return nil
}

// columns learns a SELECT *'s columns from its first result.
func (db *DB) columns(st *stmt, rows driver.Rows) {
	if st.res == nil {
		st.res = db.cols.Result(rows.Columns())
	}
}

// query runs a statement of the text protocol and returns its rows as
// strings (the adapter's own look at the server, not an operation).
func (db *DB) query(ctx context.Context, c *conn, sql string) ([][]string, error) {
	rows, err := c.qu.QueryContext(ctx, sql, nil)
	if err != nil {
		c.failed(err)
		return nil, err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	var out [][]string
	for {
		if err := rows.Next(dest); err != nil {
			if err == io.EOF {
				return out, nil
			}
			c.failed(err)
			return out, err
		}
		row := make([]string, len(dest))
		for i, v := range dest {
			row[i] = fmt.Sprint(textOf(v))
		}
		out = append(out, row)
	}
}

func textOf(v driver.Value) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

// execText runs a statement of the text protocol that returns no rows.
func (db *DB) execText(ctx context.Context, c *conn, sql string) error {
	_, err := c.ex.ExecContext(ctx, sql, nil)
	c.failed(err)
	return err
}
