package cassandra

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
)

// columns are the table's fields: fieldnameprefix + 0 .. fieldcount-1.
type columns struct {
	prefix string
	names  []string
	index  map[string]int
}

func newColumns(prefix string, n int) columns {
	c := columns{prefix: prefix, names: make([]string, n), index: make(map[string]int, n)}
	for i := range c.names {
		c.names[i] = prefix + strconv.Itoa(i)
		c.index[c.names[i]] = i
	}
	return c
}

// of returns the column index of a field name, or an error naming it.
func (c *columns) of(name string) (int, error) {
	if i, ok := c.index[name]; ok {
		return i, nil
	}
	return 0, fmt.Errorf("no column %q: the table's fields are %s0 to %s%d (fieldcount, fieldnameprefix)", name, c.prefix, c.prefix, len(c.names)-1)
}

// Statement kinds, the first byte of a statement's cache key.
const (
	kindRead byte = iota + 1
	kindScan
	kindUpdate
	kindInsert
)

// statements caches the text of every statement by its kind and columns,
// so that an operation finds its statement without building it (gocql
// then finds the prepared statement by that text). Lookups read an
// immutable map; a new statement copies it.
type statements struct {
	table   string
	readAll string
	scanAll string
	del     string

	m  atomic.Pointer[map[string]string]
	mu sync.Mutex
}

func (s *statements) init(table string) {
	s.table = table
	s.readAll = readStmt(table, nil)
	s.scanAll = scanStmt(table, nil)
	s.del = deleteStmt(table)
}

// key appends the cache key of a statement of kind on the columns idx.
func statementKey(dst []byte, kind byte, idx []int) []byte {
	dst = append(dst[:0], kind)
	for _, i := range idx {
		dst = append(dst, byte(i>>8), byte(i))
	}
	return dst
}

// get returns the statement of kind on the columns idx (in column order).
func (s *statements) get(key []byte, kind byte, idx []int, cols *columns) string {
	if m := s.m.Load(); m != nil {
		if st, ok := (*m)[string(key)]; ok {
			return st
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.m.Load()
	if old != nil {
		if st, ok := (*old)[string(key)]; ok {
			return st
		}
	}
	names := make([]string, len(idx))
	for i, c := range idx {
		names[i] = cols.names[c]
	}
	var st string
	switch kind {
	case kindRead:
		st = readStmt(s.table, names)
	case kindScan:
		st = scanStmt(s.table, names)
	case kindUpdate:
		st = updateStmt(s.table, names)
	case kindInsert:
		st = insertStmt(s.table, names)
	}
	m := make(map[string]string, 1+mapLen(old))
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[string(key)] = st
	s.m.Store(&m)
	return st
}

func mapLen(m *map[string]string) int {
	if m == nil {
		return 0
	}
	return len(*m)
}
