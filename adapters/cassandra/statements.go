package cassandra

import "strings"

// The statements are YCSB's cassandra-cql binding's, word for word: what
// the DataStax Java driver 3.x's QueryBuilder renders for it (its spacing,
// its closing ';', its "LIMIT 1" on a read), and the scan it writes by
// hand, in token order. Names are unqualified: the session's keyspace is
// cassandra.keyspace, as the binding's cluster.connect(keyspace). Fields
// come in the table's column order (field0, field1, ...); YCSB's follow
// its Java HashSet's order, the same columns.

// readStmt is the read of a record's fields (all with nil):
//
//	SELECT * FROM usertable WHERE y_id=? LIMIT 1;
//	SELECT field1,field3 FROM usertable WHERE y_id=? LIMIT 1;
func readStmt(table string, fields []string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	selection(&b, fields)
	b.WriteString(" FROM ")
	b.WriteString(table)
	b.WriteString(" WHERE " + KeyColumn + "=? LIMIT 1;")
	return b.String()
}

// scanStmt is the scan of count records from a start key, in token order
// (Murmur3 hashes of the keys, not the keys' order):
//
//	SELECT * FROM usertable WHERE token(y_id) >= token(?) LIMIT ?
//	SELECT y_id,field1,field3 FROM usertable WHERE token(y_id) >= token(?) LIMIT ?
//
// The second differs from YCSB's, which selects the fields alone and so
// returns records without their keys: benchtop's records carry them.
func scanStmt(table string, fields []string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	if fields != nil {
		b.WriteString(KeyColumn + ",")
	}
	selection(&b, fields)
	b.WriteString(" FROM ")
	b.WriteString(table)
	b.WriteString(" WHERE token(" + KeyColumn + ") >= token(?) LIMIT ?")
	return b.String()
}

func selection(b *strings.Builder, fields []string) {
	if fields == nil {
		b.WriteByte('*')
		return
	}
	b.WriteString(strings.Join(fields, ","))
}

// updateStmt is the update of the given fields of a record (an upsert in
// CQL: an absent key is written):
//
//	UPDATE usertable SET field1=?,field3=? WHERE y_id=?;
func updateStmt(table string, fields []string) string {
	var b strings.Builder
	b.WriteString("UPDATE ")
	b.WriteString(table)
	b.WriteString(" SET ")
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f)
		b.WriteString("=?")
	}
	b.WriteString(" WHERE " + KeyColumn + "=?;")
	return b.String()
}

// insertStmt is the insert of one record:
//
//	INSERT INTO usertable (y_id,field0,field1) VALUES (?,?,?);
func insertStmt(table string, fields []string) string {
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(table)
	b.WriteString(" (" + KeyColumn)
	for _, f := range fields {
		b.WriteByte(',')
		b.WriteString(f)
	}
	b.WriteString(") VALUES (?")
	for range fields {
		b.WriteString(",?")
	}
	b.WriteString(");")
	return b.String()
}

// deleteStmt is the delete of a record:
//
//	DELETE FROM usertable WHERE y_id=?;
func deleteStmt(table string) string {
	return "DELETE FROM " + table + " WHERE " + KeyColumn + "=?;"
}
