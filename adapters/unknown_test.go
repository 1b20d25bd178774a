package adapters

import (
	"reflect"
	"testing"
)

func TestSuggest(t *testing.T) {
	redis := []string{"redis.addr", "redis.password", "redis.db", "redis.poolsize", "redis.batchsize", "redis.index", "redis.host", "redis.port"}
	cases := []struct {
		key   string
		known []string
		want  string
	}{
		{"redis.adress", redis, "redis.addr"},
		{"redis.address", redis, "redis.addr"},
		{"redis.pasword", redis, "redis.password"},
		{"redis.passwd", redis, "redis.password"},
		{"redis.dbx", redis, "redis.db"},
		{"redis.pool", redis, "redis.poolsize"},
		{"redis.hots", redis, "redis.host"},
		{"redis.bogus", redis, ""},
		{"redis.database", redis, "redis.db"},
		{"redis.pwd", redis, "redis.password"},
		{"redis.xy", redis, ""},
		{"redis.x", redis, ""},
		{"memory.partitions", []string{"memory.shards", "partitions"}, "partitions"},
		{"dynamodb.primarykey", []string{"dynamodb.primaryKey", "dynamodb.primaryKeyType"}, "dynamodb.primaryKey"},
		{"stream.bogus", []string{"stream.batchsize", "stream.rowsize", "stream.linger", "stream.maxlag", "stream.keys", "stream.readbatch"}, ""},
		{"stream.rowsise", []string{"stream.batchsize", "stream.rowsize"}, "stream.rowsize"},
		{"timeseries.check.timout", []string{"timeseries.check", "timeseries.check.timeout"}, "timeseries.check.timeout"},
		{"anything", nil, ""},
	}
	for _, c := range cases {
		if got := Suggest(c.key, c.known); got != c.want {
			t.Errorf("Suggest(%q) = %q, want %q", c.key, got, c.want)
		}
	}
}

func TestUnknownWarnings(t *testing.T) {
	props := map[string]string{
		"redis.adress": "x", "redis.addr": "y", "recordcount": "1",
		"batchsize": "3", "batchsizes": "4", "memory.partitions": "9",
	}
	got := UnknownWarnings(props, []string{"redis.", "batchsize"}, []string{"redis.addr"})
	want := []string{
		`warning: unknown property "batchsize" ignored`,
		`warning: unknown property "redis.adress" ignored (did you mean redis.addr?)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if got := UnknownWarnings(props, []string{"redis.", "batchsize"}, []string{"redis.addr", "redis.adress", "batchsize"}); len(got) != 0 {
		t.Errorf("all known: got %q", got)
	}
}

func TestLevenshteinAndLCS(t *testing.T) {
	for _, c := range []struct {
		a, b   string
		d, lcs int
	}{
		{"", "", 0, 0}, {"abc", "", 3, 0}, {"kitten", "sitting", 3, 4},
		{"adress", "addr", 4, 3}, {"flaw", "lawn", 2, 3}, {"µs", "us", 1, 1},
	} {
		if d := levenshtein(c.a, c.b); d != c.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", c.a, c.b, d, c.d)
		}
		if d := levenshtein(c.b, c.a); d != c.d {
			t.Errorf("levenshtein(%q, %q) = %d, want %d", c.b, c.a, d, c.d)
		}
		if l := lcs(c.a, c.b); l != c.lcs {
			t.Errorf("lcs(%q, %q) = %d, want %d", c.a, c.b, l, c.lcs)
		}
	}
}
