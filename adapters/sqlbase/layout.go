package sqlbase

import (
	"fmt"
	"strconv"
	"strings"

	"benchtop/adapters"
)

// Column is one column of an existing table: its name as the server spells
// it and its type (the server's type name, lower case).
type Column struct {
	Name string
	Type string
}

// Table is what the server says of the table: whether it exists, its
// columns in order, and its partitions (0 when it is not partitioned).
type Table struct {
	Exists     bool
	Columns    []Column
	Partitions int
	Method     string // the partitioning method (hash, key, range, ...), "" when none
}

// Dialect is what the layout check needs to know of a server.
type Dialect struct {
	// Folds: unquoted names are folded to lower case (PostgreSQL), so a
	// column matches only when its name is the lower-case name; otherwise
	// names match without regard to case (MySQL).
	Folds bool
	// KeyTypes and FieldTypes are the column types a value can round-trip
	// through (the server's lower-case type names).
	KeyTypes, FieldTypes []string
}

// Check compares an existing table with the layout the run expects: a key
// column YCSB_KEY and exactly fieldcount field columns named as the
// workload names its fields, of types that hold the values; and, when the
// partitions property is set, as many partitions. A mismatch is a
// *adapters.ConfigError naming what differs, in one line: benchtop uses an
// existing table as it is and never changes it.
func (c Config) Check(t Table, d Dialect, partitionsSet bool) error {
	cols := NewColumns(c.FieldPrefix, c.Fields)
	same := func(got, want string) bool {
		if d.Folds {
			return got == strings.ToLower(want)
		}
		return strings.EqualFold(got, want)
	}
	layout := fmt.Sprintf("YCSB_KEY, %s..%s", strings.ToUpper(cols.Names[0]), strings.ToUpper(cols.Names[len(cols.Names)-1]))
	if c.Fields == 1 {
		layout = "YCSB_KEY, " + strings.ToUpper(cols.Names[0])
	}
	found := make([]string, len(t.Columns))
	for i, col := range t.Columns {
		found[i] = col.Name
	}
	if !hasKey(t.Columns, same) {
		return &adapters.ConfigError{Key: "table", Value: c.Table, Allowed: fmt.Sprintf(
			"a table of YCSB's layout (%s); %s has the columns %s: name another table (-p table=NAME), which benchtop creates at load",
			layout, c.Table, short(found))}
	}
	var fields []Column
	for _, col := range t.Columns {
		if !same(col.Name, "YCSB_KEY") {
			fields = append(fields, col)
		}
	}
	match := len(fields) == c.Fields
	for i := 0; match && i < len(fields); i++ {
		match = same(fields[i].Name, cols.Names[i])
	}
	if !match {
		if n, ok := fieldCount(fields, c.FieldPrefix, same); ok {
			return &adapters.ConfigError{Key: "fieldcount", Value: strconv.Itoa(c.Fields), Allowed: fmt.Sprintf(
				"%d, the field columns of the existing table %s (%s); or another table (-p table=NAME), which benchtop creates at load",
				n, c.Table, short(found))}
		}
		return &adapters.ConfigError{Key: "table", Value: c.Table, Allowed: fmt.Sprintf(
			"a table of YCSB's layout for fieldcount=%d (%s); %s has the columns %s: name another table (-p table=NAME), which benchtop creates at load",
			c.Fields, layout, c.Table, short(found))}
	}
	for _, col := range t.Columns {
		types, what := d.FieldTypes, "values are bytes"
		if same(col.Name, "YCSB_KEY") {
			types, what = d.KeyTypes, "keys are strings"
		}
		if !contains(types, col.Type) {
			return &adapters.ConfigError{Key: "table", Value: c.Table, Allowed: fmt.Sprintf(
				"a table whose column %s holds what benchtop writes (%s: %s), not %s: name another table (-p table=NAME), which benchtop creates at load",
				col.Name, what, strings.Join(types, ", "), col.Type)}
		}
	}
	if partitionsSet && max(t.Partitions, 1) != c.Partitions {
		return &adapters.ConfigError{Key: "partitions", Value: strconv.Itoa(c.Partitions), Allowed: fmt.Sprintf(
			"%d, the partitions of the existing table %s (benchtop uses an existing table as it is: drop it to load with %d hash partitions)",
			max(t.Partitions, 1), c.Table, c.Partitions)}
	}
	return nil
}

func hasKey(cols []Column, same func(string, string) bool) bool {
	for _, c := range cols {
		if same(c.Name, "YCSB_KEY") {
			return true
		}
	}
	return false
}

// fieldCount says whether fields are prefix0..prefixN-1 in order, and N.
func fieldCount(fields []Column, prefix string, same func(string, string) bool) (int, bool) {
	if len(fields) == 0 {
		return 0, false
	}
	for i, f := range fields {
		if !same(f.Name, prefix+strconv.Itoa(i)) {
			return 0, false
		}
	}
	return len(fields), true
}

// short lists column names, the middle of a long list cut.
func short(names []string) string {
	if len(names) <= 6 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:3], ", ") + ", ... " + strings.Join(names[len(names)-2:], ", ") + fmt.Sprintf(" (%d columns)", len(names))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Describe is the table's part of an adapter's one-line description.
func (c Config) Describe(t Table) string {
	parts := "not partitioned"
	if t.Partitions > 0 {
		parts = fmt.Sprintf("%d %s partitions", t.Partitions, strings.ToLower(t.Method))
	}
	if !t.Exists {
		if c.Partitions > 1 {
			parts = fmt.Sprintf("%d hash partitions", c.Partitions)
		}
		return fmt.Sprintf("%s (created at load: %d fields, %s)", c.Table, c.Fields, parts)
	}
	return fmt.Sprintf("%s (%d fields, %s)", c.Table, c.Fields, parts)
}

// CheckTable refuses a table other than the one the adapter was opened
// for (its statements name that one).
func (c Config) CheckTable(table string) error {
	if table != c.Table {
		return fmt.Errorf("table %q: this adapter was opened for table %q (the table property)", table, c.Table)
	}
	return nil
}

// PartitionsOf is t's partitions (1 when it is not partitioned) when it
// exists, else those the load will create it with: the run's, fixed
// while it goes on.
func (c Config) PartitionsOf(t Table) int {
	if t.Exists {
		return max(t.Partitions, 1)
	}
	return c.Partitions
}

// Absent is the refusal of a run phase on a table that does not exist:
// where names the database, name the adapter for the load command.
func (c Config) Absent(where, name string) error {
	return &adapters.ConfigError{Key: "table", Value: c.Table, Allowed: fmt.Sprintf(
		"an existing table (%s has none of this name): load it first, benchtop load %s with the same properties", where, name)}
}
