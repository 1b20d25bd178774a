// Package sqlbasetest holds the tests the SQL adapters (postgres, mysql) run
// alike against their real servers: YCSB's workloads A to F through the
// engine with dataintegrity, and the comparison of the statements a
// server ran with those the adapter's docs page lists. It is imported by
// those adapters' tests only.
package sqlbasetest

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload/ycsb"
)

var wlHost = host.NewSampler()

// Table is a SQL table a test made: how many rows it holds now, and its
// removal at the end.
type Table interface {
	Rows(t testing.TB, table string) int64
	Drop(t testing.TB, table string)
}

// Run runs one phase of a workload through the engine against the
// adapter named adapter, opened on props, and returns its result.
func Run(t testing.TB, adapter, command string, props map[string]string) *engine.PhaseResult {
	t.Helper()
	cfg, warns, err := engine.NewConfig(command, adapter, props)
	if err != nil {
		t.Fatalf("%s: NewConfig: %v", command, err)
	}
	if len(warns) > 0 {
		t.Fatalf("%s: warnings: %q", command, warns)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, err := adapters.Open(ctx, adapter, props)
	if err != nil {
		t.Fatalf("%s: Open: %v", command, err)
	}
	defer db.Close()
	r, err := engine.New(cfg, db, engine.Options{Host: wlHost})
	if err != nil {
		t.Fatalf("%s: engine.New: %v", command, err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	res, err := r.Run(ctx)
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	if len(res) != 1 {
		t.Fatalf("%s: %d phases, want 1", command, len(res))
	}
	return res[0]
}

// Count is the number of operations of type op a phase measured, and how
// many failed.
func Count(res *engine.PhaseResult, op int) (all, failed int64) {
	for _, v := range []int{measure.OK, measure.Failed} {
		if h := res.Set.H[measure.Slot(op, v)]; h != nil {
			all += h.TotalCount()
			if v == measure.Failed {
				failed += h.TotalCount()
			}
		}
	}
	return all, failed
}

// WorkloadsAtoF loads 500 records with YCSB's workload files A to F and
// runs 1,000 operations of each, 4 threads, with dataintegrity=true, each
// on a table of its own that the load creates: no operation fails, no
// value read differs from the one written, the mix is the workload's, and
// the table holds the records loaded plus those the run inserted.
func WorkloadsAtoF(t *testing.T, adapter string, server map[string]string, tables Table) {
	for _, wl := range []string{"a", "b", "c", "d", "e", "f"} {
		t.Run("workload"+wl, func(t *testing.T) {
			props, err := engine.LoadPropertiesFile(filepath.Join("..", "..", "workloads", "workload"+wl))
			if err != nil {
				t.Fatal(err)
			}
			table := fmt.Sprintf("bt_wl%s_%08x", wl, rand.Uint32())
			for k, v := range server {
				props[k] = v
			}
			for k, v := range map[string]string{"recordcount": "500", "operationcount": "1000", "threadcount": "4",
				"table": table, "dataintegrity": "true", "status.interval": "100ms"} {
				props[k] = v
			}
			tables.Drop(t, table)
			load := Run(t, adapter, "load", props)
			if n, failed := Count(load, ycsb.OpInsert); n != 500 || failed != 0 {
				t.Fatalf("load: %d INSERTs, %d failed (%v); want 500 clean", n, failed, load.Set.Causes[ycsb.OpInsert])
			}
			if n := tables.Rows(t, table); n != 500 {
				t.Fatalf("after the load %s holds %d rows, want 500", table, n)
			}
			run := Run(t, adapter, "run", props)
			counts := map[int]int64{}
			for op := range ycsb.OpNames {
				n, failed := Count(run, op)
				if failed != 0 {
					t.Errorf("%s: %d of %d failed (%v)", ycsb.OpNames[op], failed, n, run.Set.Causes[op])
				}
				counts[op] = n
			}
			if run.Set.Integrity != 0 {
				t.Errorf("run: %d data-integrity mismatches", run.Set.Integrity)
			}
			if run.Set.Ops != 1000 {
				t.Errorf("run: Ops = %d, want 1000", run.Set.Ops)
			}
			checkMix(t, wl, props, counts)
			if got, want := tables.Rows(t, table), 500+counts[ycsb.OpInsert]; got != want {
				t.Errorf("after the run %s holds %d rows, want %d (500 loaded, %d inserted)", table, got, want, counts[ycsb.OpInsert])
			}
		})
	}
}

// checkMix checks that the measured counts follow the workload's
// proportions: every operation type with a share was done, within 5
// standard deviations of its expected count, and no other.
func checkMix(t *testing.T, wl string, props map[string]string, counts map[int]int64) {
	t.Helper()
	share := func(k string) float64 { v, _ := strconv.ParseFloat(props[k], 64); return v }
	want := map[int]float64{
		ycsb.OpRead:   share("readproportion") + share("readmodifywriteproportion"),
		ycsb.OpUpdate: share("updateproportion") + share("readmodifywriteproportion"),
		ycsb.OpInsert: share("insertproportion"),
		ycsb.OpScan:   share("scanproportion"),
		ycsb.OpRMW:    share("readmodifywriteproportion"),
	}
	for op, p := range want {
		n := counts[op]
		if p == 0 {
			if n != 0 {
				t.Errorf("workload%s: %d %s, want none", wl, n, ycsb.OpNames[op])
			}
			continue
		}
		exp := 1000 * p
		sd := max(math.Sqrt(1000*p*(1-p)), 0.5)
		if float64(n) < exp-5*sd || float64(n) > exp+5*sd {
			t.Errorf("workload%s: %d %s, want about %.0f", wl, n, ycsb.OpNames[op], exp)
		}
	}
}

// Documented reads the statements a docs page lists: the lines of the
// first fenced block that follows the heading "## The statements".
func Documented(t testing.TB, page string) []string {
	t.Helper()
	f, err := os.Open(page)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	section, inBlock := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			if inBlock {
				t.Fatalf("%s: a heading inside the statements' block", page)
			}
			section = strings.TrimSpace(line) == "## The statements"
		case section && strings.HasPrefix(line, "```"):
			if inBlock {
				return out
			}
			inBlock = true
		case inBlock && strings.TrimSpace(line) != "":
			out = append(out, strings.TrimSpace(line))
		}
	}
	t.Fatalf("%s: no fenced block under \"## The statements\"", page)
	return nil
}

// updateField is the one field of a documented UPDATE of one field: any
// field stands for the field the workload chose.
var updateField = regexp.MustCompile(`^UPDATE (\S+) SET [A-Za-z_]+[0-9]+=(\S+) WHERE`)

// Normalize is a statement with its table named usertable, its
// white space collapsed, and the field of an UPDATE of one field named
// FIELD: the form in which the captured and the documented statements
// compare.
func Normalize(stmt, table string) string {
	s := strings.Join(strings.Fields(stmt), " ")
	s = strings.ReplaceAll(s, table, "usertable")
	return updateField.ReplaceAllString(s, "UPDATE $1 SET FIELD=$2 WHERE")
}

// limitValue is a scan's LIMIT as text inlines it.
var limitValue = regexp.MustCompile(`LIMIT [0-9]+$`)

// Parameterize is a statement the server received as text, its values
// inlined (Connector/J's default, the Go driver's interpolateParams), with
// each value back to a '?': every quoted string ('...', with backslash
// escapes and doubled quotes), and a scan's LIMIT number. A value sent
// as bytes (_binary'...') keeps its prefix, so it compares with nothing
// YCSB sends.
func Parameterize(stmt string) string {
	var b strings.Builder
	for i := 0; i < len(stmt); i++ {
		if stmt[i] != '\'' {
			b.WriteByte(stmt[i])
			continue
		}
		for i++; i < len(stmt); i++ {
			if stmt[i] == '\\' {
				i++
				continue
			}
			if stmt[i] == '\'' {
				if i+1 < len(stmt) && stmt[i+1] == '\'' {
					i++
					continue
				}
				break
			}
		}
		b.WriteByte('?')
	}
	return limitValue.ReplaceAllString(b.String(), "LIMIT ?")
}

// CompareStatements checks that every statement the server ran on table
// is one the docs list, and that each kind the workload sent (want, a
// subset of the documented, normalized) was seen.
func CompareStatements(t *testing.T, page, table string, captured []string, want []string) {
	t.Helper()
	doc := map[string]bool{}
	for _, s := range Documented(t, page) {
		doc[Normalize(s, "usertable")] = true
	}
	seen := map[string]bool{}
	for _, s := range captured {
		n := Normalize(s, table)
		seen[n] = true
		if !doc[n] {
			t.Errorf("the server ran %q, which %s does not list", n, page)
		}
	}
	for _, w := range want {
		if !seen[w] {
			got := make([]string, 0, len(seen))
			for s := range seen {
				got = append(got, s)
			}
			slices.Sort(got)
			t.Errorf("the server never ran %q; it ran %q", w, got)
		}
	}
}
