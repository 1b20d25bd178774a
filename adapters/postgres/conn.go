package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"strconv"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"benchtop/adapters/sqlbase"
)

// A connection is opened by pgconn (the address forms, TLS, the
// authentication methods, the startup), then taken over (pgconn's Hijack)
// and spoken to with pgx's protocol codec, pgproto3: a statement is one
// Bind, Execute and Sync written at once, its reply read until
// ReadyForQuery. pgconn's own statement path costs, per statement, a
// timer reset against a write-read deadlock that single statements cannot
// meet (which wakes an idle thread of Go's scheduler: a system call and a
// thread switch) and a context watcher on the run's shared context; this
// one sets no timer, and watches the context through the socket's
// deadline only when it can end. docs/performance.md has the figures.

// conn is one connection with its prepared statements and the scratch
// space of one operation (a connection serves one worker at a time).
type conn struct {
	nc      net.Conn
	fe      *pgproto3.Frontend
	stmts   map[string]*stmt
	named   int
	set     sqlbase.Set
	params  [][]byte
	limit   [8]byte
	bind    pgproto3.Bind
	exec    pgproto3.Execute
	sync    pgproto3.Sync
	version string // the server's, from the startup
	w       *sqlbase.Watcher
	bad     bool // broken or in an unknown state: closed when put back
}

// stmt is a statement prepared on one connection; a SELECT *'s result
// columns mapped to fields.
type stmt struct {
	name      string
	paramOIDs []uint32
	res       *sqlbase.Result
}

// maxStatements bounds a connection's prepared statements: past it (a
// workload that writes ever other sets of fields) a statement is parsed
// anew each time, unnamed.
const maxStatements = 256

// binary1 is the format code of every parameter and result column: raw
// bytes for bytea, text and varchar alike; the LIMIT's integer in network
// order.
var binary1 = []int16{1}

func (db *DB) dial(ctx context.Context) (*conn, error) {
	pg, err := pgconn.ConnectConfig(ctx, db.pgcfg.Copy())
	if err != nil {
		return nil, err
	}
	if err := pg.SyncConn(ctx); err != nil {
		pg.Close(ctx)
		return nil, err
	}
	hc, err := pg.Hijack()
	if err != nil {
		pg.Close(ctx)
		return nil, err
	}
	return &conn{nc: hc.Conn, fe: pgproto3.NewFrontend(hc.Conn, hc.Conn), stmts: map[string]*stmt{},
		version: hc.ParameterStatuses["server_version"], w: sqlbase.NewWatcher(hc.Conn)}, nil
}

// close says goodbye to the server (Terminate) and closes the socket.
func (c *conn) close() {
	c.w.Stop()
	_ = c.nc.SetDeadline(time.Now().Add(time.Second))
	c.fe.Send(&pgproto3.Terminate{})
	_ = c.fe.Flush()
	_ = c.nc.Close()
}

// reply reads the server's messages up to ReadyForQuery: each DataRow's
// values to row (valid during the call; row may be nil), the last
// CommandComplete's row count, and the first error the server sent. An
// error reading leaves the connection bad.
func (c *conn) reply(row func(vals [][]byte)) (int64, error) {
	var (
		rows   int64
		failed error
	)
	for {
		msg, err := c.fe.Receive()
		if err != nil {
			c.bad = true
			return rows, err
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if row != nil && failed == nil {
				row(m.Values)
			}
		case *pgproto3.CommandComplete:
			rows = rowsOf(m.CommandTag)
		case *pgproto3.ErrorResponse:
			if failed == nil {
				failed = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			return rows, failed
		}
	}
}

// rowsOf is the row count at the end of a command tag ("UPDATE 1",
// "INSERT 0 1", "SELECT 10").
func rowsOf(tag []byte) int64 {
	i := len(tag)
	for i > 0 && tag[i-1] >= '0' && tag[i-1] <= '9' {
		i--
	}
	n, _ := strconv.ParseInt(string(tag[i:]), 10, 64)
	return n
}

// send writes what is buffered; a failure leaves the connection bad.
func (c *conn) send() error {
	if err := c.fe.Flush(); err != nil {
		c.bad = true
		return err
	}
	return nil
}

// bindExec buffers the execution of st with c.params.
func (c *conn) bindExec(st *stmt) {
	c.bind = pgproto3.Bind{PreparedStatement: st.name, ParameterFormatCodes: binary1, Parameters: c.params, ResultFormatCodes: binary1}
	c.fe.SendBind(&c.bind)
	c.fe.SendExecute(&c.exec)
}

// run executes st with c.params: each result row's values to row, and the
// rows the statement counted.
func (c *conn) run(ctx context.Context, st *stmt, row func(vals [][]byte)) (int64, error) {
	if err := c.w.Arm(ctx); err != nil {
		return 0, err
	}
	c.bindExec(st)
	c.fe.SendSync(&c.sync)
	n, err := c.flushAndReply(row)
	return n, c.w.After(ctx, err, &c.bad)
}

func (c *conn) flushAndReply(row func(vals [][]byte)) (int64, error) {
	if err := c.send(); err != nil {
		return 0, err
	}
	return c.reply(row)
}

// query runs sql with the simple query protocol (the adapter's own DDL
// and looks at the catalog) and returns its rows as strings.
func (c *conn) query(ctx context.Context, sql string) ([][]string, error) {
	if err := c.w.Arm(ctx); err != nil {
		return nil, err
	}
	c.fe.SendQuery(&pgproto3.Query{String: sql})
	var out [][]string
	_, err := c.flushAndReply(func(vals [][]byte) {
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = string(v)
		}
		out = append(out, row)
	})
	return out, c.w.After(ctx, err, &c.bad)
}

// statement returns the prepared statement of signature sig, preparing it
// with the text sql() gives on a miss (Parse, Describe, Sync: one round
// trip). Past maxStatements it is unnamed and not kept.
func (db *DB) statement(ctx context.Context, c *conn, sig []byte, sql func() string) (*stmt, error) {
	if st, ok := c.stmts[string(sig)]; ok {
		return st, nil
	}
	st := &stmt{}
	if len(c.stmts) < maxStatements {
		c.named++
		st.name = "benchtop_" + strconv.Itoa(c.named)
	}
	if err := c.w.Arm(ctx); err != nil {
		return nil, err
	}
	c.fe.SendParse(&pgproto3.Parse{Name: st.name, Query: sql()})
	c.fe.SendDescribe(&pgproto3.Describe{ObjectType: 'S', Name: st.name})
	c.fe.SendSync(&c.sync)
	err := c.send()
	var names []string
	for err == nil {
		var msg pgproto3.BackendMessage
		if msg, err = c.fe.Receive(); err != nil {
			c.bad = true
			break
		}
		switch m := msg.(type) {
		case *pgproto3.ParameterDescription:
			st.paramOIDs = append([]uint32(nil), m.ParameterOIDs...)
		case *pgproto3.RowDescription:
			for _, f := range m.Fields {
				names = append(names, string(f.Name))
			}
		case *pgproto3.ErrorResponse:
			err = pgconn.ErrorResponseToPgError(m)
			_, _ = c.reply(nil) // up to ReadyForQuery
		case *pgproto3.ReadyForQuery:
			if names != nil {
				st.res = db.cols.Result(names)
			}
			if st.name != "" {
				c.stmts[string(sig)] = st
			}
			return st, nil
		}
	}
	return nil, c.w.After(ctx, err, &c.bad)
}

// bytesOf is a string's bytes, without a copy: the frontend copies
// parameters into its write buffer before the call returns.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// limitParam encodes a scan's count for the LIMIT parameter's type, as
// the server inferred it (bigint).
func (c *conn) limitParam(st *stmt, n int) ([]byte, error) {
	oid := uint32(20)
	if len(st.paramOIDs) == 2 {
		oid = st.paramOIDs[1]
	}
	switch oid {
	case 20: // int8
		binary.BigEndian.PutUint64(c.limit[:8], uint64(n))
		return c.limit[:8], nil
	case 23: // int4
		binary.BigEndian.PutUint32(c.limit[:4], uint32(n))
		return c.limit[:4], nil
	}
	return nil, fmt.Errorf("the scan's LIMIT parameter is of type oid %d, not an integer", oid)
}
