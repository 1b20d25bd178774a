package mongodb

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

func TestParseConfig(t *testing.T) {
	tests := []struct {
		name      string
		props     adapters.Properties
		url       string
		database  string
		batchSize int
		upsert    bool
	}{
		{"defaults", adapters.Properties{}, DefaultURL, "ycsb", 1, false},
		{"database from path",
			adapters.Properties{"mongodb.url": "mongodb://h1:1,h2:2/bench?w=majority"},
			"mongodb://h1:1,h2:2/bench?w=majority", "bench", 1, false},
		{"no path", adapters.Properties{"mongodb.url": "mongodb://h"}, "mongodb://h", "ycsb", 1, false},
		{"empty path", adapters.Properties{"mongodb.url": "mongodb://h/?w=1"}, "mongodb://h/?w=1", "ycsb", 1, false},
		{"admin is for auth", adapters.Properties{"mongodb.url": "mongodb://u:p@h/admin"}, "mongodb://u:p@h/admin", "ycsb", 1, false},
		{"escaped database", adapters.Properties{"mongodb.url": "mongodb://h/my%20db"}, "mongodb://h/my%20db", "my db", 1, false},
		{"srv", adapters.Properties{"mongodb.url": "mongodb+srv://c.example.net/x"}, "mongodb+srv://c.example.net/x", "x", 1, false},
		{"batchsize", adapters.Properties{"mongodb.batchsize": "100"}, DefaultURL, "ycsb", 100, false},
		{"ycsb batchsize", adapters.Properties{"batchsize": "50"}, DefaultURL, "ycsb", 50, false},
		{"prefixed wins", adapters.Properties{"batchsize": "50", "mongodb.batchsize": "7"}, DefaultURL, "ycsb", 7, false},
		{"upsert", adapters.Properties{"mongodb.upsert": "true"}, DefaultURL, "ycsb", 1, true},
		{"legacy options",
			adapters.Properties{"mongodb.url": "mongodb://h/db", "mongodb.maxconnections": "32",
				"mongodb.writeConcern": "majority", "mongodb.readPreference": "secondary_preferred"},
			"mongodb://h/db?maxPoolSize=32&w=majority&readPreference=secondaryPreferred", "db", 1, false},
		{"legacy options do not override the URL",
			adapters.Properties{"mongodb.url": "mongodb://h/db?W=0", "mongodb.writeConcern": "journaled"},
			"mongodb://h/db?W=0&journal=true", "db", 1, false},
		{"legacy option on a URL without path",
			adapters.Properties{"mongodb.url": "mongodb://h", "mongodb.writeConcern": "unacknowledged"},
			"mongodb://h/?w=0", "ycsb", 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseConfig(tt.props)
			if err != nil {
				t.Fatal(err)
			}
			if c.url != tt.url || c.database != tt.database || c.batchSize != tt.batchSize || c.upsert != tt.upsert {
				t.Errorf("got url %q db %q batch %d upsert %v, want %q %q %d %v",
					c.url, c.database, c.batchSize, c.upsert, tt.url, tt.database, tt.batchSize, tt.upsert)
			}
		})
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct {
		props adapters.Properties
		key   string
	}{
		{adapters.Properties{"mongodb.url": "http://u:secret@h/"}, "mongodb.url"},
		{adapters.Properties{"mongodb.url": "localhost:27017"}, "mongodb.url"},
		{adapters.Properties{"mongodb.batchsize": "0"}, "mongodb.batchsize"},
		{adapters.Properties{"mongodb.batchsize": "ten"}, "mongodb.batchsize"},
		{adapters.Properties{"batchsize": "-1"}, "batchsize"},
		{adapters.Properties{"mongodb.upsert": "perhaps"}, "mongodb.upsert"},
		{adapters.Properties{"mongodb.maxconnections": "many"}, "mongodb.maxconnections"},
		{adapters.Properties{"mongodb.writeConcern": "eventually"}, "mongodb.writeConcern"},
		{adapters.Properties{"mongodb.readPreference": "anywhere"}, "mongodb.readPreference"},
	}
	for _, tt := range tests {
		_, err := parseConfig(tt.props)
		var ce *adapters.ConfigError
		if !errors.As(err, &ce) || ce.Key != tt.key {
			t.Errorf("%v: got %v, want a ConfigError for %s", tt.props, err, tt.key)
			continue
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("%v: error shows the password: %v", tt.props, err)
		}
	}
}

func TestDescribeMasksPassword(t *testing.T) {
	cfg, err := parseConfig(adapters.Properties{"mongodb.url": "mongodb://user:secret@127.0.0.1:1/bench?w=1&authSource=admin"})
	if err != nil {
		t.Fatal(err)
	}
	d, err := newDB(cfg) // no I/O
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	got := d.Describe()
	if strings.Contains(got, "secret") || !strings.Contains(got, "user:****@127.0.0.1:1/bench") {
		t.Errorf("Describe() = %q", got)
	}

	cfg, _ = parseConfig(adapters.Properties{"mongodb.url": "mongodb://127.0.0.1:1/admin"})
	if got, want := cfg.describe(), "mongodb://127.0.0.1:1/admin (database ycsb)"; got != want {
		t.Errorf("describe() = %q, want %q", got, want)
	}
}

func TestOpenUnreachableMasksURL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	start := time.Now()
	// Port 1 on loopback: refused at once, so only the timeout ends it.
	db, err := Open(ctx, adapters.Properties{"mongodb.url": "mongodb://user:secret@127.0.0.1:1/ycsb?w=1"})
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded against a closed port")
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Errorf("Open took %v; the ctx deadline was 1.5s", el)
	}
	msg := err.Error()
	if strings.Contains(msg, "secret") || !strings.Contains(msg, "****") || !strings.Contains(msg, "127.0.0.1:1") {
		t.Errorf("error = %q: want the masked URL and no password", msg)
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("error spans lines: %q", msg)
	}
	if k := adapters.Kind(err); k != adapters.KindUnavailable {
		t.Errorf("Kind = %q, want %q", k, adapters.KindUnavailable)
	}
	var ce *adapters.ConfigError
	if errors.As(err, &ce) {
		t.Errorf("an unreachable server is not a ConfigError: %v", err)
	}
}

func TestOpenUsesURLSelectionTimeout(t *testing.T) {
	start := time.Now()
	_, err := Open(context.Background(), adapters.Properties{"mongodb.url": "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300"})
	if err == nil {
		t.Fatal("Open succeeded against a closed port")
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Open took %v with serverSelectionTimeoutMS=300", el)
	}
}

func TestOpenBadURLIsConfigError(t *testing.T) {
	_, err := Open(context.Background(), adapters.Properties{"mongodb.url": "mongodb://user:secret@127.0.0.1:1/ycsb?maxPoolSize=lots"})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != PropURL {
		t.Fatalf("got %v, want a ConfigError for %s", err, PropURL)
	}
	if strings.Contains(err.Error(), "secret") {
		t.Errorf("error shows the password: %v", err)
	}
}

func TestRegistered(t *testing.T) {
	d, ok := adapters.Lookup("mongodb")
	if !ok {
		t.Fatal("mongodb is not registered")
	}
	if d.Open == nil || len(d.Prefixes) == 0 || d.Prefixes[0] != "mongodb." {
		t.Errorf("driver = %+v", d)
	}
}

func TestKeys(t *testing.T) {
	d, _ := adapters.Lookup("mongodb")
	adaptertest.CheckKeys(t, d.Prefixes, d.Keys, adapters.Properties{}, func(r *adapters.Reader) { readConfig(r) })
}

// TestYCSBNames: every property YCSB's mongodb binding reads (MongoDbClient
// and OptionsSupport) is taken or refused with one line.
func TestYCSBNames(t *testing.T) {
	c, err := parseConfig(adapters.Properties{
		"mongodb.url": "mongodb://h/db", "batchsize": "20", "mongodb.upsert": "TRUE",
		"mongodb.writeConcern": "JOURNALED", "mongodb.readPreference": "Nearest", "mongodb.maxconnections": "8",
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "mongodb://h/db?maxPoolSize=8&journal=true&readPreference=nearest"; c.url != want || c.batchSize != 20 || !c.upsert {
		t.Errorf("got url %q batch %d upsert %v, want %q 20 true", c.url, c.batchSize, c.upsert, want)
	}
	_, err = parseConfig(adapters.Properties{PropWaitQueue: "5"})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != PropWaitQueue || !strings.Contains(ce.Allowed, "mongodb.maxconnections") {
		t.Errorf("%s: got %v, want a ConfigError pointing to mongodb.maxconnections", PropWaitQueue, err)
	}
}
