package cli

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Two agents load one PostgreSQL table: each its half of the key range
// (insertstart, insertcount), the table created by whichever comes first.
// The table then holds exactly the records one client's load makes, no
// key twice, none missing; and a run of the two against it has every
// operation succeed.
func TestFleetPostgres(t *testing.T) {
	t.Parallel()
	url := os.Getenv("BENCHTOP_POSTGRES_URL")
	if url == "" {
		t.Skip("BENCHTOP_POSTGRES_URL is not set: start a server with eval \"$(bash .ci/servers/postgres.sh start)\" to run the PostgreSQL fleet test")
	}
	pass := os.Getenv("BENCHTOP_POSTGRES_PASSWORD")
	pg := pgAdmin(t, url, pass)
	bin := builtBenchtop(t)
	dir := t.TempDir()
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(fleetToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	agents := []string{"c01=" + startAgentProc(t, bin).addr, "c02=" + startAgentProc(t, bin).addr}
	fleetTable := fmt.Sprintf("bt_fleet_%08x", rand.Uint32())
	soloTable := fleetTable + "_solo"
	t.Cleanup(func() { pgExec(t, pg, "DROP TABLE IF EXISTS "+fleetTable+", "+soloTable) })
	const records = 1001 // odd: the halves differ by one
	props := func(table string) []string {
		return []string{"-P", "../../workloads/workloada", "-p", "db.url=" + url, "-p", "db.passwd=" + pass,
			"-p", "table=" + table, "-p", "recordcount=" + strconv.Itoa(records), "-p", "partitions=2", "--headless"}
	}
	fleetArgs := []string{"--agents", strings.Join(agents, ","), "--token-file", tokenFile}

	js := filepath.Join(dir, "load.json")
	out, errs, code := runBenchtop(t, bin, append(append([]string{"load", "postgres"}, props(fleetTable)...),
		append(fleetArgs, "-threads", "4", "--json", js)...)...)
	if code != 0 {
		t.Fatalf("fleet load: exit %d\n%s\n%s", code, errs, out)
	}
	if strings.Contains(out+errs, pass) {
		t.Errorf("the password is in the coordinator's output")
	}
	if n := ycsbValue(t, out, "INSERT", "Return=OK"); n != records {
		t.Errorf("merged inserts = %d, want %d", n, records)
	}
	next := int64(0)
	for _, a := range readFleetJSON(t, js).Agents {
		if a.State != "done" || a.Share.InsertStart != next {
			t.Errorf("agent %s: state %s, insertstart %d; want done and %d", a.Name, a.State, a.Share.InsertStart, next)
		}
		if own := ycsbValue(t, a.Report, "INSERT", "Return=OK"); own != a.Share.InsertCount {
			t.Errorf("agent %s: %d inserts in its own report, its share is %d", a.Name, own, a.Share.InsertCount)
		}
		next += a.Share.InsertCount
	}
	if next != records {
		t.Errorf("the agents' shares add up to %d records, want %d", next, records)
	}
	if n := pgCount(t, pg, "SELECT count(*) FROM "+fleetTable); n != records {
		t.Errorf("%s holds %d rows after the fleet's load, want %d", fleetTable, n, records)
	}

	// One client's load of the same records: the same keys, exactly.
	out, errs, code = runBenchtop(t, bin, append(append([]string{"load", "postgres"}, props(soloTable)...), "-threads", "4")...)
	if code != 0 {
		t.Fatalf("solo load: exit %d\n%s\n%s", code, errs, out)
	}
	if n := pgCount(t, pg, fmt.Sprintf("SELECT count(*) FROM %s f FULL JOIN %s s USING (ycsb_key) WHERE f.ycsb_key IS NULL OR s.ycsb_key IS NULL", fleetTable, soloTable)); n != 0 {
		t.Errorf("%d keys are in one table and not the other: the agents' ranges are not YCSB's key range split", n)
	}

	out, errs, code = runBenchtop(t, bin, append(append([]string{"run", "postgres"}, props(fleetTable)...),
		append(fleetArgs, "-threads", "4", "-p", "operationcount=400", "-p", "maxexecutiontime=0")...)...)
	if code != 0 {
		t.Fatalf("fleet run: exit %d\n%s\n%s", code, errs, out)
	}
	for _, op := range []string{"READ", "UPDATE"} {
		if ok, all := ycsbValue(t, out, op, "Return=OK"), ycsbValue(t, out, op, "Operations"); ok != all || all == 0 {
			t.Errorf("%s: %d of %d OK", op, ok, all)
		}
	}
}

func pgAdmin(t *testing.T, url, pass string) *pgconn.PgConn {
	t.Helper()
	cfg, err := pgconn.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Password = pass
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	t.Cleanup(func() { c.Close(context.Background()) })
	return c
}

func pgExec(t *testing.T, c *pgconn.PgConn, sql string) {
	if _, err := c.Exec(context.Background(), sql).ReadAll(); err != nil {
		t.Errorf("%s: %v", sql, err)
	}
}

func pgCount(t *testing.T, c *pgconn.PgConn, sql string) int64 {
	t.Helper()
	res, err := c.Exec(context.Background(), sql).ReadAll()
	if err != nil || len(res) != 1 || len(res[0].Rows) != 1 {
		t.Fatalf("%s: %v", sql, err)
	}
	n, _ := strconv.ParseInt(string(res[0].Rows[0][0]), 10, 64)
	return n
}
