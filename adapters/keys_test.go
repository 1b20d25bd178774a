package adapters_test

import (
	"errors"
	"reflect"
	"testing"

	"benchtop/adapters"
	_ "benchtop/adapters/dynamodb"
	_ "benchtop/adapters/influx"
	_ "benchtop/adapters/memory"
	_ "benchtop/adapters/mongodb"
	_ "benchtop/adapters/mysql"
	_ "benchtop/adapters/nats"
	_ "benchtop/adapters/null"
	_ "benchtop/adapters/postgres"
	_ "benchtop/adapters/redis"
	"benchtop/workload"
	_ "benchtop/workload/stream"
	_ "benchtop/workload/timeseries"
)

// TestUnknownKeysEveryAdapterAndWorkload: each adapter and workload warns
// about the names under its prefixes it does not read, once each, with the
// close match when there is one, and says nothing about the names it reads.
func TestUnknownKeysEveryAdapterAndWorkload(t *testing.T) {
	cases := []struct {
		adapter, workload string // one of them
		props             map[string]string
		want              []string
	}{
		{adapter: "redis", props: map[string]string{"redis.adress": "h:1", "redis.host": "h", "redis.port": "1", "redis.pasword": "x", "redis.zzz": "1"},
			want: []string{
				`warning: unknown property "redis.adress" ignored (did you mean redis.addr?)`,
				`warning: unknown property "redis.pasword" ignored (did you mean redis.password?)`,
				`warning: unknown property "redis.zzz" ignored`,
			}},
		{adapter: "redis", props: map[string]string{"redis.addr": "h:1", "redis.db": "2", "redis.timeout": "5s", "redis.cluster": "false"}},
		{adapter: "memory", props: map[string]string{"memory.partitions": "9", "partitions": "2"},
			want: []string{`warning: unknown property "memory.partitions" ignored (did you mean partitions?)`}},
		{adapter: "nats", props: map[string]string{"nats.storag": "memory", "nats.url": "nats://h:1"},
			want: []string{`warning: unknown property "nats.storag" ignored (did you mean nats.storage?)`}},
		{adapter: "influx", props: map[string]string{"influx.database": "x", "influx.precison": "ms", "influx.db": "y"},
			want: []string{
				`warning: unknown property "influx.database" ignored (did you mean influx.db?)`,
				`warning: unknown property "influx.precison" ignored (did you mean influx.precision?)`,
			}},
		{adapter: "mongodb", props: map[string]string{"mongodb.uri": "mongodb://h", "mongodb.writeconcern": "majority", "batchsize": "10", "mongodb.upsert": "true"},
			want: []string{
				`warning: unknown property "mongodb.uri" ignored (did you mean mongodb.url?)`,
				`warning: unknown property "mongodb.writeconcern" ignored (did you mean mongodb.writeConcern?)`,
			}},
		{adapter: "postgres", props: map[string]string{"db.ur": "postgres://h/db", "db.password": "x", "jdbc.autocomit": "false", "db.url": "postgres://h/db"},
			want: []string{
				`warning: unknown property "db.password" ignored (did you mean db.passwd?)`,
				`warning: unknown property "db.ur" ignored (did you mean db.url?)`,
				`warning: unknown property "jdbc.autocomit" ignored (did you mean jdbc.autocommit?)`,
			}},
		{adapter: "mysql", props: map[string]string{"db.url": "jdbc:mysql://h/db", "db.user": "u", "db.passwd": "p", "db.driver": "com.mysql.jdbc.Driver",
			"db.batchsize": "100", "jdbc.fetchsize": "10", "jdbc.autocommit": "true", "jdbc.batchupdateapi": "true"}},
		{workload: "stream", props: map[string]string{"stream.bogus": "1", "stream.batchsise": "5", "stream.linger": "5ms"},
			want: []string{
				`warning: unknown property "stream.batchsise" ignored (did you mean stream.batchsize?)`,
				`warning: unknown property "stream.bogus" ignored`,
			}},
		{workload: "timeseries", props: map[string]string{"timeseries.host": "5", "timeseries.check.timout": "1s", "batch.size": "10", "flush.interval": "1s"},
			want: []string{
				`warning: unknown property "timeseries.check.timout" ignored (did you mean timeseries.check.timeout?)`,
				`warning: unknown property "timeseries.host" ignored (did you mean timeseries.hosts?)`,
			}},
	}
	for _, c := range cases {
		var got []string
		if c.adapter != "" {
			d, ok := adapters.Lookup(c.adapter)
			if !ok || d.Keys == nil {
				t.Fatalf("%s: not registered, or registered without Keys", c.adapter)
			}
			var err error
			if got, err = d.Unknown(c.props); err != nil {
				t.Errorf("%s: %v", c.adapter, err)
			}
		} else {
			f, ok := workload.Lookup(c.workload)
			if !ok || f.Keys == nil {
				t.Fatalf("%s: not registered, or registered without Keys", c.workload)
			}
			got = f.Unknown(c.props)
		}
		if len(got) == 0 && len(c.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s%s %v:\n got %q\nwant %q", c.adapter, c.workload, c.props, got, c.want)
		}
	}
}

// The selected SQL adapter's notes about YCSB names it accepts but does
// not honour follow the warnings; another adapter selected, none.
func TestCheckUnknownNotes(t *testing.T) {
	props := map[string]string{"db.url": "postgres://h/db", "db.driver": "org.postgresql.Driver", "jdbc.fetchsize": "10",
		"db.batchsize": "50", "jdbc.autocommit": "true"}
	warns, err := adapters.CheckUnknown(props, "postgres")
	want := []string{
		"note: db.driver=org.postgresql.Driver is accepted and ignored: benchtop talks to the server through pgx (github.com/jackc/pgx/v5), built in",
		"warning: jdbc.fetchsize=10 has no effect: a scan reads the rows its LIMIT bounds as the server sends them, in one round trip",
		"warning: db.batchsize=50 has no effect with jdbc.autocommit=true and jdbc.batchupdateapi=false, as in YCSB: set jdbc.batchupdateapi=true to send the load's inserts in batches",
	}
	if err != nil || !reflect.DeepEqual(warns, want) {
		t.Errorf("selected postgres:\n got %q\nwant %q (%v)", warns, want, err)
	}
	if warns, _ := adapters.CheckUnknown(props, "redis"); len(warns) != 0 {
		t.Errorf("selected redis: %q, want no note about the SQL adapters' names", warns)
	}
}

// TestEveryDriverListsKeys: an adapter registered without Keys would
// accept any name under its prefixes unchecked.
func TestEveryDriverListsKeys(t *testing.T) {
	for _, d := range adapters.Drivers() {
		if d.Keys == nil {
			t.Errorf("%s: Driver.Keys is nil", d.Name)
		}
	}
	for _, n := range workload.Names() {
		if f, _ := workload.Lookup(n); f.Keys == nil {
			t.Errorf("workload %s: Factory.Keys is nil", n)
		}
	}
}

// TestCheckUnknown: what the engine calls before opening anything. The
// selected strict adapter (dynamodb) refuses its typos; another adapter's
// names only warn, whichever adapter runs.
func TestCheckUnknown(t *testing.T) {
	props := map[string]string{"redis.adress": "h:1", "dynamodb.endpiont": "http://h:1", "stream.bogus": "1", "recordcount": "5"}
	warns, err := adapters.CheckUnknown(props, "redis")
	want := []string{
		`warning: unknown property "dynamodb.endpiont" ignored (did you mean dynamodb.endpoint?)`,
		`warning: unknown property "redis.adress" ignored (did you mean redis.addr?)`,
	}
	if err != nil || !reflect.DeepEqual(warns, want) {
		t.Errorf("selected redis: %q, %v; want %q", warns, err, want)
	}
	var ce *adapters.ConfigError
	if _, err := adapters.CheckUnknown(props, "dynamodb"); !errors.As(err, &ce) || ce.Key != "dynamodb.endpiont" {
		t.Errorf("selected dynamodb: %v, want the ConfigError for dynamodb.endpiont", err)
	}
	if got := workload.Unknown(props); !reflect.DeepEqual(got, []string{`warning: unknown property "stream.bogus" ignored`}) {
		t.Errorf("workload.Unknown = %q", got)
	}
}
