package sqlbase

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"benchtop/adapters"
)

// YCSB's JDBC binding's property names.
const (
	PropURL         = "db.url"              // the database's address (required)
	PropUser        = "db.user"             // user name, over the URL's
	PropPasswd      = "db.passwd"           // password, over the URL's (never shown)
	PropDriver      = "db.driver"           // a JDBC driver class: accepted, ignored with a note
	PropBatchSize   = "db.batchsize"        // rows of one batch of the load
	PropFetchSize   = "jdbc.fetchsize"      // a scan's fetch size hint: accepted, no effect (warned)
	PropAutoCommit  = "jdbc.autocommit"     // true: every statement commits by itself
	PropBatchUpdate = "jdbc.batchupdateapi" // true: a batch goes to the server in one go
	// PropLayout is benchtop's own: the columns of a table it creates at
	// load (LayoutYCSB or LayoutBinary).
	PropLayout = "db.tablelayout"
)

// The layouts of a table benchtop creates at load (PropLayout).
const (
	// LayoutYCSB is YCSB's documented DDL (its jdbc README): a VARCHAR(255)
	// key and TEXT fields, in the database's default collation.
	LayoutYCSB = "ycsb"
	// LayoutBinary is a key ordered byte by byte (PostgreSQL's COLLATE "C",
	// MySQL's utf8mb4_bin) and binary fields (BYTEA, LONGBLOB).
	LayoutBinary = "binary"
)

// Prefixes are the property-name prefixes the SQL adapters claim.
var Prefixes = []string{"db.", "jdbc."}

// Keys are every property name the SQL adapters read: the binding's and
// the core names they use (table, fieldcount, fieldnameprefix, partitions,
// threadcount).
var Keys = []string{
	PropURL, PropUser, PropPasswd, PropDriver, PropBatchSize, PropFetchSize, PropAutoCommit, PropBatchUpdate, PropLayout,
	"table", "fieldcount", "fieldnameprefix", "partitions", "threadcount",
}

// MaxParams is the most bind parameters one statement may carry, in
// PostgreSQL's protocol and in MySQL's.
const MaxParams = 65535

// Config is what the SQL adapters read of the properties.
type Config struct {
	URL      string // db.url as given: it may hold a password (show Where)
	User     string // db.user; "" keeps the URL's
	Password string // db.passwd; "" keeps the URL's

	Table       string // YCSB's table, usertable
	Fields      int    // fieldcount
	FieldPrefix string // fieldnameprefix: the workload's field names, and the columns'
	Partitions  int    // hash partitions of a table created at load
	Threads     int    // threadcount: connections opened at start

	BatchSize    int  // db.batchsize: rows of one load batch; <= 1 none
	AutoCommit   bool // jdbc.autocommit
	BatchUpdates bool // jdbc.batchupdateapi
	FetchSize    int  // jdbc.fetchsize (no effect)

	Layout string // db.tablelayout: LayoutYCSB or LayoutBinary
}

// identifier is a table name the binding puts in its statements as it
// is: a plain SQL identifier, optionally qualified by a schema.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$`)

// ReadConfig reads the binding's properties. Its error is a
// *adapters.ConfigError; db.url is required, holds one address (YCSB's
// shards, several URLs separated by ';', are refused) and is shown masked.
func ReadConfig(props adapters.Properties) (Config, error) {
	r := adapters.NewReader(props)
	c := read(r)
	if err := r.Err(); err != nil {
		return c, err
	}
	return validate(c)
}

// read reads every property the SQL adapters read (Keys).
func read(r *adapters.Reader) Config {
	c := Config{
		URL:          strings.TrimSpace(r.String(PropURL, "")),
		User:         r.String(PropUser, ""),
		Password:     r.String(PropPasswd, ""),
		Table:        strings.TrimSpace(r.String("table", "usertable")),
		Fields:       r.Int("fieldcount", 10, 1, MaxParams-1),
		FieldPrefix:  r.String("fieldnameprefix", "field"),
		Partitions:   r.Int("partitions", 1, 1, adapters.MaxPartitions),
		Threads:      r.Int("threadcount", 1, 1, 1<<16),
		BatchSize:    r.Int(PropBatchSize, -1, -1, MaxParams),
		AutoCommit:   r.Bool(PropAutoCommit, true),
		BatchUpdates: r.Bool(PropBatchUpdate, false),
		FetchSize:    r.Int(PropFetchSize, -1, -1, 1<<31-1),
		Layout:       strings.TrimSpace(r.String(PropLayout, LayoutYCSB)),
	}
	_ = r.String(PropDriver, "") // accepted and ignored (Notes)
	return c
}

// validate is ReadConfig's checks of what read read.
func validate(c Config) (Config, error) {
	switch {
	case c.URL == "":
		return c, &adapters.ConfigError{Key: PropURL, Value: "", Allowed: "the database's address, required (see docs/adapters for its forms)"}
	case strings.Contains(c.URL, ";"):
		return c, &adapters.ConfigError{Key: PropURL, Value: c.Where(),
			Allowed: "one address: YCSB's shards (several URLs separated by ';') are not supported, run one benchtop per database"}
	case !identifier.MatchString(c.Table):
		return c, &adapters.ConfigError{Key: "table", Value: c.Table, Allowed: "a plain SQL name (letters, digits, _ and $, not first a digit), optionally schema.table"}
	case c.Layout != LayoutYCSB && c.Layout != LayoutBinary:
		return c, &adapters.ConfigError{Key: PropLayout, Value: c.Layout, Allowed: LayoutYCSB + " (YCSB's DDL: VARCHAR key, TEXT fields, the database's collation) or " +
			LayoutBinary + " (a key in byte order, binary fields)"}
	case !identifier.MatchString(c.FieldPrefix + "0"):
		return c, &adapters.ConfigError{Key: "fieldnameprefix", Value: c.FieldPrefix, Allowed: "a prefix that makes plain SQL column names (letters, digits and _)"}
	}
	return c, nil
}

// Where is the URL for messages, its password masked.
func (c Config) Where() string { return adapters.MaskURL(c.URL) }

// Batch is how the load's inserts go: the rows of one call and how they
// reach the server.
type Batch struct {
	Rows int // records a call takes; 1: no batching
	// API: the batch goes to the server in one go (YCSB's
	// jdbc.batchupdateapi: JDBC's addBatch/executeBatch), else one
	// statement at a time in one transaction (jdbc.autocommit=false).
	API bool
	// Rewrite: the batch is one multi-row INSERT (the JDBC drivers'
	// reWriteBatchedInserts and rewriteBatchedStatements).
	Rewrite bool
	// Tx: the batch is committed as one explicit transaction.
	Tx bool
}

// LoadBatch says how the load's inserts are batched, as YCSB's binding
// does: with jdbc.batchupdateapi=true, db.batchsize rows go to the server
// at once (rewrite: as one multi-row INSERT); with jdbc.autocommit=false,
// they are committed every db.batchsize rows; otherwise each insert is
// sent and committed alone. A rewritten batch must fit in MaxParams
// parameters: db.batchsize × (fieldcount + 1).
func (c Config) LoadBatch(rewrite bool) (Batch, error) {
	if c.BatchSize <= 1 || (c.AutoCommit && !c.BatchUpdates) {
		return Batch{Rows: 1}, nil
	}
	b := Batch{Rows: c.BatchSize, API: c.BatchUpdates, Rewrite: c.BatchUpdates && rewrite, Tx: !c.AutoCommit}
	if b.Rewrite {
		if most := MaxParams / (c.Fields + 1); c.BatchSize > most {
			return b, &adapters.ConfigError{Key: PropBatchSize, Value: strconv.Itoa(c.BatchSize),
				Allowed: fmt.Sprintf("at most %d with a rewritten batch of %d fields: one INSERT holds at most %d parameters", most, c.Fields, MaxParams)}
		}
	}
	return b, nil
}

// Notes are the lines about YCSB names that this binding accepts but does
// not honour as YCSB does; driver names the Go driver in use (for
// db.driver's note).
func Notes(props adapters.Properties, driver string) []string {
	var out []string
	if v, ok := props[PropDriver]; ok {
		out = append(out, fmt.Sprintf("note: %s=%s is accepted and ignored: benchtop talks to the server through %s", PropDriver, v, driver))
	}
	if v, ok := props[PropFetchSize]; ok {
		out = append(out, fmt.Sprintf("warning: %s=%s has no effect: a scan reads the rows its LIMIT bounds as the server sends them, in one round trip", PropFetchSize, v))
	}
	c, err := ReadConfig(props)
	if err != nil {
		return out // the error is told when the adapter opens
	}
	switch {
	case c.BatchSize > 1 && c.AutoCommit && !c.BatchUpdates:
		out = append(out, fmt.Sprintf("warning: %s=%d has no effect with %s=true and %s=false, as in YCSB: set %s=true to send the load's inserts in batches",
			PropBatchSize, c.BatchSize, PropAutoCommit, PropBatchUpdate, PropBatchUpdate))
	case c.BatchUpdates && c.BatchSize <= 1:
		out = append(out, fmt.Sprintf("warning: %s=true without %s > 1: the load's inserts go one at a time (YCSB would hold them all until the end)",
			PropBatchUpdate, PropBatchSize))
	}
	if !c.AutoCommit {
		out = append(out, fmt.Sprintf("note: %s=false: the load's inserts are committed every %s rows, and each write of a run phase at once (YCSB's binding leaves a run's updates and deletes uncommitted until the end)",
			PropAutoCommit, PropBatchSize))
	}
	return out
}
