package postgres

import (
	"context"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5/pgconn"

	"benchtop/adapters/jdbc"
)

// conn is one connection with its prepared statements and the scratch
// space of one operation (a connection serves one worker at a time).
type conn struct {
	pg     *pgconn.PgConn
	stmts  map[string]*stmt
	set    jdbc.Set
	params [][]byte
	limit  [8]byte
}

// stmt is a statement prepared on one connection; a SELECT *'s result
// columns mapped to fields.
type stmt struct {
	sd  *pgconn.StatementDescription
	res *jdbc.Result
}

// maxStatements bounds a connection's prepared statements: past it (a
// workload that writes ever other sets of fields) a statement is parsed
// anew each time, unnamed.
const maxStatements = 256

// binary is the format code of every parameter and result column: raw
// bytes for bytea, text and varchar alike; the LIMIT's integer in network
// order.
var binary1 = []int16{1}

func (db *DB) dial(ctx context.Context) (*conn, error) {
	pg, err := pgconn.ConnectConfig(ctx, db.pgcfg.Copy())
	if err != nil {
		return nil, err
	}
	return &conn{pg: pg, stmts: map[string]*stmt{}}, nil
}

func (c *conn) close() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.pg.Close(ctx)
}

// broken says the connection cannot serve another operation.
func (c *conn) broken() bool { return c.pg.IsClosed() }

// statement returns the prepared statement of signature sig, preparing it
// with the text sql() gives on a miss. A nil sd with no error means the
// connection holds too many already: the caller runs the text unnamed.
func (db *DB) statement(ctx context.Context, c *conn, sig []byte, sql func() string) (*stmt, error) {
	if st, ok := c.stmts[string(sig)]; ok {
		return st, nil
	}
	text := sql()
	name := ""
	if len(c.stmts) < maxStatements {
		name = "benchtop_" + strconv.Itoa(len(c.stmts)+1)
	}
	sd, err := c.pg.Prepare(ctx, name, text, nil)
	if err != nil {
		return nil, err
	}
	st := &stmt{sd: sd}
	if len(sd.Fields) > 0 {
		names := make([]string, len(sd.Fields))
		for i, f := range sd.Fields {
			names[i] = f.Name
		}
		st.res = db.cols.Result(names)
	}
	if name != "" {
		c.stmts[string(sig)] = st
	}
	return st, nil
}

// exec runs a prepared statement with the connection's parameters.
func (c *conn) exec(ctx context.Context, st *stmt) *pgconn.ResultReader {
	return c.pg.ExecStatement(ctx, st.sd, c.params, binary1, binary1)
}

// bytesOf is a string's bytes, without a copy: pgconn copies parameters
// into its write buffer before the call returns.
func bytesOf(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}

// limitParam encodes a scan's count for the LIMIT parameter's type, as
// the server inferred it (bigint).
func (c *conn) limitParam(st *stmt, n int) ([]byte, error) {
	oid := uint32(20)
	if len(st.sd.ParamOIDs) == 2 {
		oid = st.sd.ParamOIDs[1]
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
