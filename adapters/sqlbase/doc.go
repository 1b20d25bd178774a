// Package sqlbase is what benchtop's SQL adapters (postgres, mysql) share of
// YCSB's JDBC binding (site.ycsb.db.JdbcDBClient): its property names
// (db.url, db.user, db.passwd, db.batchsize, jdbc.autocommit,
// jdbc.fetchsize, jdbc.batchupdateapi, db.driver), its table layout
// (YCSB_KEY and one column per field, FIELD0..FIELDn-1), its statements
// word for word (statements.go), the check of an existing table against
// fieldcount (layout.go), the columns of one write in a canonical order
// (columns.go), a connection pool that grows with the workers (pool.go),
// a context's end cutting a connection's socket (watch.go), and what an
// adapter does with its table apart from SQL: Prepare, Describe,
// Partitions, Close (shared.go). It is not
// an adapter: it registers nothing, and imports only the adapters
// contract.
package sqlbase
