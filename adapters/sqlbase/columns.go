package sqlbase

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"benchtop/adapters"
)

// Columns are a table's field columns as the workload names its fields:
// fieldnameprefix + 0 .. fieldcount-1 (field0 ... field9), in order.
type Columns struct {
	Names []string       // the field names, by column
	index map[string]int // field name → column
	lower map[string]int // lower-case column name → column (results)
}

// NewColumns names fieldcount columns with prefix.
func NewColumns(prefix string, n int) *Columns {
	c := &Columns{Names: make([]string, n), index: make(map[string]int, n), lower: make(map[string]int, n)}
	for i := range c.Names {
		c.Names[i] = prefix + strconv.Itoa(i)
		c.index[c.Names[i]] = i
		c.lower[strings.ToLower(c.Names[i])] = i
	}
	return c
}

// Index is the column of a field name, or -1.
func (c *Columns) Index(name string) int {
	if i, ok := c.index[name]; ok {
		return i
	}
	return -1
}

// OfResult is the column of a result column's name (the server's
// spelling: ycsb_key, FIELD0, field0), or -1 for the key or another name.
func (c *Columns) OfResult(name string) int {
	if i, ok := c.lower[strings.ToLower(name)]; ok {
		return i
	}
	return -1
}

// columnsOf is, for each result column of a SELECT *, the field it holds
// (-1 for YCSB_KEY) and which result column is the key.
func (c *Columns) columnsOf(names []string) (fieldOf []int, key int) {
	fieldOf = make([]int, len(names))
	key = -1
	for i, n := range names {
		fieldOf[i] = c.OfResult(n)
		if strings.EqualFold(n, "YCSB_KEY") {
			key = i
		}
	}
	return fieldOf, key
}

// Set is the columns of one write in column order: the statement it needs
// is the same whatever order the fields came in. It is scratch space,
// reused by one connection.
type Set struct {
	Cols []int // column indexes, ascending
	From []int // From[i] is the position in the values of Cols[i]
	sig  []byte
}

// Of fills s from values, refusing a field that is not a column and a
// field given twice.
func (s *Set) Of(c *Columns, values []adapters.Field) error {
	s.Cols, s.From = s.Cols[:0], s.From[:0]
	for pos, f := range values {
		col := c.Index(f.Name)
		if col < 0 {
			return fmt.Errorf("no column for field %q: the table's fields are %s..%s (fieldcount=%d)",
				f.Name, c.Names[0], c.Names[len(c.Names)-1], len(c.Names))
		}
		// Insertion into the sorted prefix: writes have few fields, and
		// the workload's come in order already.
		i := len(s.Cols)
		s.Cols, s.From = append(s.Cols, col), append(s.From, pos)
		for ; i > 0 && s.Cols[i-1] > col; i-- {
			s.Cols[i], s.From[i] = s.Cols[i-1], s.From[i-1]
		}
		s.Cols[i], s.From[i] = col, pos
		if i > 0 && s.Cols[i-1] == col {
			return fmt.Errorf("field %q given twice", f.Name)
		}
	}
	if len(s.Cols) == 0 {
		return fmt.Errorf("no field to write")
	}
	return nil
}

// Names returns the field names of the set, for a statement's text.
func (s *Set) Names(c *Columns) []string {
	out := make([]string, len(s.Cols))
	for i, col := range s.Cols {
		out[i] = c.Names[col]
	}
	return out
}

// Statement kinds, the first byte of a statement's signature.
const (
	KindRead   = 'R'
	KindScan   = 'S'
	KindDelete = 'D'
	KindInsert = 'I'
	KindUpdate = 'U'
	KindMulti  = 'M' // a multi-row insert
)

// Sig is the signature of a statement over this set (its kind, its rows
// for a multi-row insert, its columns), a map key of a connection's
// prepared statements. The bytes are s's own: use them at once
// (m[string(sig)] does not allocate).
func (s *Set) Sig(kind byte, rows int) []byte {
	s.sig = append(s.sig[:0], kind)
	if kind == KindMulti {
		s.sig = strconv.AppendInt(s.sig, int64(rows), 10)
		s.sig = append(s.sig, ':')
	}
	for _, col := range s.Cols {
		s.sig = strconv.AppendInt(s.sig, int64(col), 36)
		s.sig = append(s.sig, ',')
	}
	return s.sig
}

// Result maps the columns of a SELECT * result to fields: the field each
// result column holds (-1 for YCSB_KEY or another column), the result
// column of each field (-1 when absent), and the key's result column.
type Result struct {
	FieldOf  []int
	ResultOf []int
	Key      int
}

// Result maps a SELECT *'s result column names (the server's spelling).
func (c *Columns) Result(names []string) *Result {
	r := &Result{ResultOf: make([]int, len(c.Names))}
	r.FieldOf, r.Key = c.columnsOf(names)
	for i := range r.ResultOf {
		r.ResultOf[i] = -1
	}
	for i, f := range r.FieldOf {
		if f >= 0 {
			r.ResultOf[f] = i
		}
	}
	return r
}

// Pick appends the fields asked for (all when nil, in column order) of
// one row to dst, their values copied into one block that the caller
// owns; a NULL column (a nil value) is a field with a nil value. The names
// are the Columns' own strings, never the caller's. A field asked for that
// is not a column is an error.
func (c *Columns) Pick(r *Result, vals [][]byte, fields []string, dst []adapters.Field) ([]adapters.Field, error) {
	size := 0
	for _, v := range vals {
		size += len(v)
	}
	block := make([]byte, 0, size)
	take := func(v []byte) []byte {
		if v == nil {
			return nil
		}
		off := len(block)
		block = append(block, v...)
		return block[off:len(block):len(block)]
	}
	if fields == nil {
		for i, v := range vals {
			if f := r.FieldOf[i]; f >= 0 {
				dst = append(dst, adapters.Field{Name: c.Names[f], Value: take(v)})
			}
		}
		return dst, nil
	}
	for _, name := range fields {
		f := c.Index(name)
		if f < 0 || r.ResultOf[f] < 0 {
			return dst, fmt.Errorf("no column for field %q (fieldcount=%d)", name, len(c.Names))
		}
		dst = append(dst, adapters.Field{Name: c.Names[f], Value: take(vals[r.ResultOf[f]])})
	}
	return dst, nil
}

// SameColumns says whether every record writes the same columns (a
// load's do: one multi-row INSERT serves them), leaving them in s.
func (s *Set) SameColumns(c *Columns, records []adapters.Record) bool {
	var first []int
	for i, r := range records {
		if err := s.Of(c, r.Fields); err != nil {
			return false
		}
		if i == 0 {
			first = append(first[:0:0], s.Cols...)
			continue
		}
		if !slices.Equal(first, s.Cols) {
			return false
		}
	}
	return true
}
