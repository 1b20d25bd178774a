package sqlbase

import (
	"strconv"
	"strings"
)

// The statements are YCSB's JDBC binding's (DefaultDBFlavor), word for
// word: its spacing, its "SELECT *" for a read or scan of any fields (the
// fields asked for are picked from the row), the field names as the
// workload names them. PostgreSQL's JDBC driver sends each '?' as $1, $2,
// ...; a Numbered Placeholders does the same, so that the server sees
// what it sees under YCSB.

// Placeholders writes a statement's parameters: '?' (MySQL), or $1, $2,
// ... (PostgreSQL) when Numbered.
type Placeholders struct{ Numbered bool }

// builder writes one statement, numbering its parameters.
type builder struct {
	strings.Builder
	ph Placeholders
	n  int
}

func (b *builder) param() {
	b.n++
	if !b.ph.Numbered {
		b.WriteByte('?')
		return
	}
	b.WriteByte('$')
	b.WriteString(strconv.Itoa(b.n))
}

// Insert is YCSB's insert of one record, or with rows > 1 the multi-row
// INSERT the JDBC drivers rewrite a batch of them into (pgjdbc's
// reWriteBatchedInserts, Connector/J's rewriteBatchedStatements):
//
//	INSERT INTO usertable (YCSB_KEY,field0,field1) VALUES(?,?,?)
//	INSERT INTO usertable (YCSB_KEY,field0,field1) VALUES(?,?,?),(?,?,?)
func (p Placeholders) Insert(table string, fields []string, rows int) string {
	b := builder{ph: p}
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (YCSB_KEY,")
	b.WriteString(strings.Join(fields, ","))
	b.WriteString(") VALUES")
	for r := 0; r < max(rows, 1); r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		b.param()
		for range fields {
			b.WriteByte(',')
			b.param()
		}
		b.WriteByte(')')
	}
	return b.String()
}

// Read is YCSB's read of a record, whichever fields are asked for:
//
//	SELECT * FROM usertable WHERE YCSB_KEY = ?
func (p Placeholders) Read(table string) string {
	b := builder{ph: p}
	b.WriteString("SELECT * FROM ")
	b.WriteString(table)
	b.WriteString(" WHERE YCSB_KEY = ")
	b.param()
	return b.String()
}

// Scan is YCSB's scan, in key order from a start key, with a limit:
//
//	SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?
func (p Placeholders) Scan(table string) string {
	b := builder{ph: p}
	b.WriteString("SELECT * FROM ")
	b.WriteString(table)
	b.WriteString(" WHERE YCSB_KEY >= ")
	b.param()
	b.WriteString(" ORDER BY YCSB_KEY LIMIT ")
	b.param()
	return b.String()
}

// Update is YCSB's update of the given fields of a record:
//
//	UPDATE usertable SET field1=?, field3=? WHERE YCSB_KEY = ?
func (p Placeholders) Update(table string, fields []string) string {
	b := builder{ph: p}
	b.WriteString("UPDATE ")
	b.WriteString(table)
	b.WriteString(" SET ")
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(f)
		b.WriteByte('=')
		b.param()
	}
	b.WriteString(" WHERE YCSB_KEY = ")
	b.param()
	return b.String()
}

// Delete is YCSB's delete of a record:
//
//	DELETE FROM usertable WHERE YCSB_KEY = ?
func (p Placeholders) Delete(table string) string {
	b := builder{ph: p}
	b.WriteString("DELETE FROM ")
	b.WriteString(table)
	b.WriteString(" WHERE YCSB_KEY = ")
	b.param()
	return b.String()
}
