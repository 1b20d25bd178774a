package sqlbase

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

// The statements are YCSB's DefaultDBFlavor's, character for character;
// PostgreSQL's numbered as pgjdbc numbers them.
func TestStatementsAreYCSBs(t *testing.T) {
	q, n := Placeholders{}, Placeholders{Numbered: true}
	for _, tc := range []struct{ got, want string }{
		{q.Insert("usertable", []string{"field0", "field1", "field2"}, 1), "INSERT INTO usertable (YCSB_KEY,field0,field1,field2) VALUES(?,?,?,?)"},
		{n.Insert("usertable", []string{"field0", "field1"}, 1), "INSERT INTO usertable (YCSB_KEY,field0,field1) VALUES($1,$2,$3)"},
		{q.Insert("t", []string{"field0"}, 3), "INSERT INTO t (YCSB_KEY,field0) VALUES(?,?),(?,?),(?,?)"},
		{n.Insert("t", []string{"field0"}, 2), "INSERT INTO t (YCSB_KEY,field0) VALUES($1,$2),($3,$4)"},
		{q.Read("usertable"), "SELECT * FROM usertable WHERE YCSB_KEY = ?"},
		{n.Read("usertable"), "SELECT * FROM usertable WHERE YCSB_KEY = $1"},
		{q.Scan("usertable"), "SELECT * FROM usertable WHERE YCSB_KEY >= ? ORDER BY YCSB_KEY LIMIT ?"},
		{n.Scan("usertable"), "SELECT * FROM usertable WHERE YCSB_KEY >= $1 ORDER BY YCSB_KEY LIMIT $2"},
		{q.Update("usertable", []string{"field1", "field3"}), "UPDATE usertable SET field1=?, field3=? WHERE YCSB_KEY = ?"},
		{n.Update("usertable", []string{"field7"}), "UPDATE usertable SET field7=$1 WHERE YCSB_KEY = $2"},
		{q.Delete("usertable"), "DELETE FROM usertable WHERE YCSB_KEY = ?"},
		{n.Delete("usertable"), "DELETE FROM usertable WHERE YCSB_KEY = $1"},
	} {
		if tc.got != tc.want {
			t.Errorf("got  %s\nwant %s", tc.got, tc.want)
		}
	}
}

func fields(names ...string) []adapters.Field {
	out := make([]adapters.Field, len(names))
	for i, n := range names {
		out[i] = adapters.Field{Name: n, Value: []byte("v" + n)}
	}
	return out
}

// A write's columns come out in column order, with where each value is;
// the same set in another order has the same signature; a field twice or
// one that is no column is refused.
func TestSetOrdersColumns(t *testing.T) {
	cols := NewColumns("field", 12)
	var s Set
	if err := s.Of(cols, fields("field10", "field2", "field7")); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(s.Cols) != "[2 7 10]" || fmt.Sprint(s.From) != "[1 2 0]" {
		t.Errorf("Cols %v From %v, want [2 7 10] and [1 2 0]", s.Cols, s.From)
	}
	if got := s.Names(cols); strings.Join(got, ",") != "field2,field7,field10" {
		t.Errorf("Names = %v", got)
	}
	sig := string(s.Sig(KindUpdate, 1))
	if err := s.Of(cols, fields("field7", "field10", "field2")); err != nil {
		t.Fatal(err)
	}
	if got := string(s.Sig(KindUpdate, 1)); got != sig {
		t.Errorf("the same columns in another order: signature %q, want %q", got, sig)
	}
	if got := string(s.Sig(KindInsert, 1)); got == sig {
		t.Errorf("an insert and an update share the signature %q", got)
	}
	a := string(s.Sig(KindMulti, 2))
	if b := string(s.Sig(KindMulti, 3)); a == b {
		t.Errorf("multi-row inserts of 2 and 3 rows share the signature %q", a)
	}
	if err := s.Of(cols, fields("field1", "field1")); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a field twice: %v", err)
	}
	if err := s.Of(cols, fields("field12")); err == nil || !strings.Contains(err.Error(), "field0..field11") {
		t.Errorf("a field past fieldcount: %v", err)
	}
	if err := s.Of(cols, nil); err == nil {
		t.Error("no field: no error")
	}
}

// A load's records write the same columns (in any order): one multi-row
// INSERT serves them; records of other columns, or a bad field, do not.
func TestSameColumns(t *testing.T) {
	cols := NewColumns("field", 4)
	rec := func(names ...string) adapters.Record { return adapters.Record{Fields: fields(names...)} }
	var s Set
	if !s.SameColumns(cols, []adapters.Record{rec("field0", "field1"), rec("field1", "field0"), rec("field0", "field1")}) {
		t.Error("the same columns in another order: not the same")
	}
	if fmt.Sprint(s.Cols) != "[0 1]" {
		t.Errorf("Cols %v, want [0 1]", s.Cols)
	}
	for _, recs := range [][]adapters.Record{
		{rec("field0", "field1"), rec("field0", "field2")},
		{rec("field0", "field1"), rec("field0")},
		{rec("field0"), rec("field9")},
	} {
		if s.SameColumns(cols, recs) {
			t.Errorf("%v: the same columns", recs)
		}
	}
	c := Config{Table: "usertable", Partitions: 4}
	if err := c.CheckTable("usertable"); err != nil {
		t.Error(err)
	}
	if err := c.CheckTable("other"); err == nil || !strings.Contains(err.Error(), `opened for table "usertable"`) {
		t.Errorf("another table: %v", err)
	}
	if got := c.PartitionsOf(Table{}); got != 4 {
		t.Errorf("partitions of a table to create: %d, want the run's 4", got)
	}
	if got := c.PartitionsOf(Table{Exists: true}); got != 1 {
		t.Errorf("partitions of an unpartitioned table: %d, want 1", got)
	}
}

// A row's fields are picked by the result's column names, whatever their
// case and order; a NULL is a nil value, an empty value is empty; the
// values are copies.
func TestPick(t *testing.T) {
	cols := NewColumns("field", 3)
	res := cols.Result([]string{"FIELD1", "ycsb_key", "field0", "field2"})
	if res.Key != 1 {
		t.Fatalf("Key = %d, want 1", res.Key)
	}
	row := [][]byte{[]byte("one"), []byte("k"), nil, {}}
	got, err := cols.Pick(res, row, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := "field1=one field0=<nil> field2=[]"
	if s := show(got); s != want {
		t.Errorf("all fields: %s, want %s", s, want)
	}
	row[0][0] = 'X'
	if string(got[0].Value) != "one" {
		t.Errorf("the value is not a copy: %q", got[0].Value)
	}
	got, err = cols.Pick(res, row, []string{"field2", "field1"}, []adapters.Field{{Name: "kept"}})
	if err != nil || show(got) != "kept=<nil> field2=[] field1=Xne" {
		t.Errorf("chosen fields: %s, %v", show(got), err)
	}
	if _, err := cols.Pick(res, row, []string{"field9"}, nil); err == nil {
		t.Error("a field that is no column: no error")
	}
}

func show(fs []adapters.Field) string {
	var parts []string
	for _, f := range fs {
		v := "<nil>"
		if f.Value != nil {
			v = string(f.Value)
			if v == "" {
				v = "[]"
			}
		}
		parts = append(parts, f.Name+"="+v)
	}
	return strings.Join(parts, " ")
}

var pgLike = Dialect{Folds: true, KeyTypes: []string{"varchar"}, FieldTypes: []string{"bytea", "text"}}

func table(names ...string) Table {
	t := Table{Exists: true}
	for _, n := range names {
		typ := "bytea"
		if strings.EqualFold(n, "ycsb_key") {
			typ = "varchar"
		}
		t.Columns = append(t.Columns, Column{Name: n, Type: typ})
	}
	return t
}

// An existing table passes when its columns are YCSB's for fieldcount;
// otherwise the one line says what differs and what to do.
func TestCheck(t *testing.T) {
	c := Config{Table: "usertable", Fields: 3, FieldPrefix: "field", Partitions: 1}
	if err := c.Check(table("ycsb_key", "field0", "field1", "field2"), pgLike, false); err != nil {
		t.Errorf("YCSB's layout: %v", err)
	}
	for _, tc := range []struct {
		name  string
		t     Table
		d     Dialect
		parts bool
		key   string
		says  string
	}{
		{"fewer fields", table("ycsb_key", "field0", "field1"), pgLike, false, "fieldcount", "2, the field columns of the existing table usertable"},
		{"more fields", table("ycsb_key", "field0", "field1", "field2", "field3"), pgLike, false, "fieldcount", "4, the field columns"},
		{"no key", table("id", "name"), pgLike, false, "table", "usertable has the columns id, name"},
		{"other names", table("ycsb_key", "a", "b", "c"), pgLike, false, "table", "for fieldcount=3 (YCSB_KEY, FIELD0..FIELD2)"},
		{"upper case on a folding server", table("YCSB_KEY", "FIELD0", "FIELD1", "FIELD2"), pgLike, false, "table", "YCSB's layout"},
		{"a type that holds no bytes", Table{Exists: true, Columns: []Column{{"ycsb_key", "varchar"}, {"field0", "int4"}, {"field1", "bytea"}, {"field2", "bytea"}}},
			pgLike, false, "table", "column field0 holds what benchtop writes (values are bytes: bytea, text), not int4"},
		{"partitions asked", table("ycsb_key", "field0", "field1", "field2"), pgLike, true, "", ""},
	} {
		cfg := c
		if tc.parts {
			cfg.Partitions = 4
			tc.key, tc.says = "partitions", "1, the partitions of the existing table usertable"
		}
		err := cfg.Check(tc.t, tc.d, tc.parts)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key || !strings.Contains(ce.Allowed, tc.says) {
			t.Errorf("%s: %v, want a ConfigError on %s saying %q", tc.name, err, tc.key, tc.says)
		}
	}
	mysqlLike := Dialect{KeyTypes: []string{"varchar"}, FieldTypes: []string{"bytea"}}
	if err := c.Check(table("YCSB_KEY", "FIELD0", "Field1", "field2"), mysqlLike, false); err != nil {
		t.Errorf("names in any case on a server that does not fold: %v", err)
	}
	parted := table("ycsb_key", "field0", "field1", "field2")
	parted.Partitions, parted.Method = 4, "hash"
	c.Partitions = 4
	if err := c.Check(parted, pgLike, true); err != nil {
		t.Errorf("4 partitions asked of a table of 4: %v", err)
	}
	if d := c.Describe(parted); d != "usertable (3 fields, 4 hash partitions)" {
		t.Errorf("Describe = %q", d)
	}
	if d := c.Describe(Table{}); d != "usertable (created at load: 3 fields, 4 hash partitions)" {
		t.Errorf("Describe of an absent table = %q", d)
	}
}

func TestReadConfig(t *testing.T) {
	c, err := ReadConfig(adapters.Properties{PropURL: "postgres://h/db"})
	if err != nil || c.Table != "usertable" || c.Fields != 10 || c.FieldPrefix != "field" || !c.AutoCommit || c.BatchSize != -1 || c.Threads != 1 || c.Layout != LayoutYCSB {
		t.Errorf("defaults: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		props adapters.Properties
		key   string
	}{
		{adapters.Properties{}, PropURL},
		{adapters.Properties{PropURL: "jdbc:mysql://a/db;jdbc:mysql://u:s3cret@b/db"}, PropURL},
		{adapters.Properties{PropURL: "x", "table": "user table"}, "table"},
		{adapters.Properties{PropURL: "x", "table": "users;drop"}, "table"},
		{adapters.Properties{PropURL: "x", "fieldnameprefix": "f-"}, "fieldnameprefix"},
		{adapters.Properties{PropURL: "x", PropBatchSize: "many"}, PropBatchSize},
		{adapters.Properties{PropURL: "x", PropAutoCommit: "perhaps"}, PropAutoCommit},
		{adapters.Properties{PropURL: "x", PropLayout: "blob"}, PropLayout},
	} {
		_, err := ReadConfig(tc.props)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tc.key {
			t.Errorf("%v: %v, want a ConfigError on %s", tc.props, err, tc.key)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%v: the error shows the password: %v", tc.props, err)
		}
	}
	if c, err := ReadConfig(adapters.Properties{PropURL: "x", "table": "ycsb.usertable"}); err != nil || c.Table != "ycsb.usertable" {
		t.Errorf("schema.table: %q, %v", c.Table, err)
	}
}

// The load batches as YCSB's binding does.
func TestLoadBatch(t *testing.T) {
	for _, tc := range []struct {
		batch      int
		auto, api  bool
		rewrite    bool
		want       Batch
		wantErrKey string
	}{
		{batch: -1, auto: true, want: Batch{Rows: 1}},
		{batch: 100, auto: true, want: Batch{Rows: 1}}, // YCSB ignores it too (warned)
		{batch: 100, auto: true, api: true, want: Batch{Rows: 100, API: true}},
		{batch: 100, auto: true, api: true, rewrite: true, want: Batch{Rows: 100, API: true, Rewrite: true}},
		{batch: 100, auto: false, want: Batch{Rows: 100, Tx: true}},
		{batch: 100, auto: false, rewrite: true, want: Batch{Rows: 100, Tx: true}}, // rewriting needs the batch API
		{batch: 6000, auto: true, api: true, rewrite: true, wantErrKey: PropBatchSize},
	} {
		c := Config{Fields: 10, BatchSize: tc.batch, AutoCommit: tc.auto, BatchUpdates: tc.api}
		got, err := c.LoadBatch(tc.rewrite)
		if tc.wantErrKey != "" {
			var ce *adapters.ConfigError
			if !errors.As(err, &ce) || ce.Key != tc.wantErrKey || !strings.Contains(ce.Allowed, "at most 5957") {
				t.Errorf("%+v: %v, want a ConfigError on %s", tc, err, tc.wantErrKey)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%+v: %+v, %v; want %+v", tc, got, err, tc.want)
		}
	}
}

func TestScrub(t *testing.T) {
	inner := adapters.WithKind(adapters.KindTimeout, errors.New("auth for s3cret-pw failed"))
	err := Scrub(fmt.Errorf("connect: %w", inner), "s3cret-pw", "", "ab")
	if err.Error() != "connect: auth for **** failed" {
		t.Errorf("Scrub: %q", err)
	}
	if adapters.Kind(err) != adapters.KindTimeout {
		t.Errorf("Scrub lost the kind: %q", adapters.Kind(err))
	}
	if Scrub(nil, "x") != nil {
		t.Error("Scrub(nil) is not nil")
	}
}

// The pool opens a connection when none is idle, keeps the ones given
// back, closes the bad ones and, after Close, every one as it comes back.
func TestPool(t *testing.T) {
	var dials, shuts atomic.Int64
	p := NewPool(func(ctx context.Context) (int, error) {
		return int(dials.Add(1)), nil
	}, func(int) { shuts.Add(1) })
	if err := p.Warm(context.Background(), 5); err != nil {
		t.Fatal(err)
	}
	if dials.Load() != 5 || p.Open() != 5 {
		t.Fatalf("Warm(5): %d dials, %d open", dials.Load(), p.Open())
	}
	var wg sync.WaitGroup
	for range 8 { // more workers than connections: 3 more are opened
		wg.Go(func() {
			c, err := p.Get(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			defer p.Put(c, false)
			held.Add(1)
			for held.Load() < 8 {
			}
		})
	}
	wg.Wait()
	if dials.Load() != 8 || p.Open() != 8 {
		t.Errorf("8 at once: %d dials, %d open; want 8", dials.Load(), p.Open())
	}
	c, _ := p.Get(context.Background())
	p.Put(c, true)
	if shuts.Load() != 1 || p.Open() != 7 {
		t.Errorf("a bad connection: %d closed, %d open", shuts.Load(), p.Open())
	}
	c, _ = p.Get(context.Background())
	p.Close()
	if shuts.Load() != 7 {
		t.Errorf("Close closed %d idle connections, want 6", shuts.Load()-1)
	}
	p.Put(c, false)
	if shuts.Load() != 8 || p.Open() != 0 {
		t.Errorf("a connection back after Close: %d closed, %d open", shuts.Load(), p.Open())
	}
	if _, err := p.Get(context.Background()); !errors.Is(err, ErrClosed) {
		t.Errorf("Get after Close: %v", err)
	}
	failing := NewPool(func(ctx context.Context) (int, error) { return 0, errors.New("refused") }, func(int) {})
	if err := failing.Warm(context.Background(), 20); err == nil || err.Error() != "refused" {
		t.Errorf("Warm against a server that refuses: %v", err)
	}
}

var held atomic.Int64

// Keys are exactly what the adapters read.
func TestKeys(t *testing.T) {
	adaptertest.CheckKeys(t, Prefixes, Keys, adapters.Properties{PropURL: "x"}, func(r *adapters.Reader) { read(r) })
}

// A RowClock gives each record one time, the last one's holding what
// followed it (the commit); started on nil it records nothing.
func TestRowClock(t *testing.T) {
	t.Parallel()
	var took []int64
	c := StartRowClock(&took)
	c.Row()
	c.Row()
	before := took[1]
	c.End()
	if len(took) != 2 || took[0] < 0 || took[1] < before {
		t.Errorf("took %v: want 2 times, the last grown by End", took)
	}
	none := StartRowClock(nil)
	none.Row()
	none.End()
}
