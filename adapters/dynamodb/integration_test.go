package dynamodb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"benchtop/adapters"
)

// The integration tests need a DynamoDB-API server. In CI that is dynalite:
//
//	eval "$(.ci/servers/dynamodb.sh start)"  # exports BENCHTOP_DYNAMODB_ENDPOINT=http://127.0.0.1:8000
//	go test ./adapters/dynamodb/
//	.ci/servers/dynamodb.sh stop
//
// Every test works in tables of its own (benchtop_test_<run>_<name>) and
// deletes them at the end.

const endpointEnv = "BENCHTOP_DYNAMODB_ENDPOINT"

// runID makes this run's table names unique on a shared server.
var runID = fmt.Sprintf("%x%04x", time.Now().Unix(), rand.Uint32N(1<<16))

func integrationEndpoint(t testing.TB) string {
	t.Helper()
	ep := os.Getenv(endpointEnv)
	if ep == "" {
		t.Skipf("%s is not set: to run the DynamoDB integration tests, start dynalite with `eval \"$(.ci/servers/dynamodb.sh start)\"` (or set %s=http://HOST:PORT of a DynamoDB-API server)", endpointEnv, endpointEnv)
	}
	return ep
}

func testTable(name string) string { return "benchtop_test_" + runID + "_" + name }

// openTest opens the adapter on a fresh table (created by Open) and drops
// the table when the test ends.
func openTest(t testing.TB, table string, props adapters.Properties) *DB {
	t.Helper()
	p := adapters.Properties{
		"dynamodb.endpoint":           integrationEndpoint(t),
		"dynamodb.awsCredentialsFile": credsFile(t),
		"table":                       table,
		// dynalite on a loaded machine: a Scan counting 437 items
		// outlasted the default 5 s three times in CI run 28 (the
		// adapters lane, four packages at once under -race).
		PropRequestTimeout: "30s",
	}
	for k, v := range props {
		p[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := open(ctx, p)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := db.DeleteTable(ctx, table); err != nil {
			t.Errorf("drop table %s: %v", table, err)
		}
		db.Close()
	})
	return db
}

func describeTable(t *testing.T, db *DB, table string) *types.TableDescription {
	t.Helper()
	out, err := db.client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		t.Fatalf("describe %s: %v", table, err)
	}
	return out.Table
}

func keySchema(d *types.TableDescription) string {
	var parts []string
	for _, k := range d.KeySchema {
		parts = append(parts, aws.ToString(k.AttributeName)+":"+string(k.KeyType))
	}
	for _, a := range d.AttributeDefinitions {
		parts = append(parts, aws.ToString(a.AttributeName)+"="+string(a.AttributeType))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func TestIntegrationCreatesTable(t *testing.T) {
	table := testTable("create")
	db := openTest(t, table, nil)
	d := describeTable(t, db, table)
	if d.TableStatus != types.TableStatusActive {
		t.Errorf("status %s, want ACTIVE", d.TableStatus)
	}
	if got, want := keySchema(d), "key:HASH key=S"; got != want {
		t.Errorf("key schema %q, want %q", got, want)
	}
	if d.BillingModeSummary != nil && d.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		t.Errorf("billing mode %s, want PAY_PER_REQUEST", d.BillingModeSummary.BillingMode)
	}

	// Opening again finds the table; a different key name is refused.
	again := openTest(t, table, adapters.Properties{"dynamodb.createTable": "false"})
	again.Close()
	_, err := open(context.Background(), adapters.Properties{
		"dynamodb.endpoint":           integrationEndpoint(t),
		"dynamodb.awsCredentialsFile": credsFile(t),
		"table":                       table,
		"dynamodb.primaryKey":         "id",
	})
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != PropPrimaryKey {
		t.Errorf("open with another key name: err = %v, want a ConfigError on %s", err, PropPrimaryKey)
	}
}

func TestIntegrationCreateTableFalse(t *testing.T) {
	table := testTable("absent")
	props := adapters.Properties{
		"dynamodb.endpoint":           integrationEndpoint(t),
		"dynamodb.awsCredentialsFile": credsFile(t),
		"dynamodb.createTable":        "false",
		"table":                       table,
	}
	_, err := open(context.Background(), props)
	if err == nil {
		t.Fatal("Open succeeded on a missing table with dynamodb.createTable=false")
	}
	if !strings.Contains(err.Error(), table) || !strings.Contains(err.Error(), "dynamodb.createTable=false") {
		t.Errorf("unclear error: %v", err)
	}
	// And nothing was created.
	delete(props, "table")
	delete(props, "dynamodb.createTable")
	db := openTest(t, testTable("probe"), props)
	_, err = db.client.DescribeTable(context.Background(), &dynamodb.DescribeTableInput{TableName: aws.String(table)})
	var missing *types.ResourceNotFoundException
	if !errors.As(err, &missing) {
		t.Errorf("table %s exists after a refused Open: %v", table, err)
	}
}

func TestIntegrationBatchInsert(t *testing.T) {
	table := testTable("batch")
	db := openTest(t, table, nil)
	ctx := context.Background()
	if db.BatchSize() != 25 {
		t.Errorf("BatchSize() = %d, want 25", db.BatchSize())
	}
	recs := make([]adapters.Record, 60)
	for i := range recs {
		recs[i] = adapters.Record{Key: fmt.Sprintf("user%03d", i), Fields: []adapters.Field{
			{Name: "field0", Value: []byte{0x00, byte(i), 0xff}},
			{Name: "field1", Value: bytes.Repeat([]byte{byte(i)}, 100)},
		}}
	}
	if err := db.InsertBatch(ctx, table, recs); err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		got, err := db.Read(ctx, table, r.Key, nil, nil)
		if err != nil {
			t.Fatalf("read %s: %v", r.Key, err)
		}
		if len(got) != 2 || got[0].Name != "field0" || !bytes.Equal(got[0].Value, r.Fields[0].Value) ||
			got[1].Name != "field1" || !bytes.Equal(got[1].Value, r.Fields[1].Value) {
			t.Fatalf("read %s = %v, want %v", r.Key, got, r.Fields)
		}
	}
	// A full scan sees exactly the 60 keys, in some order.
	all, err := db.Scan(ctx, table, "user000", 1000, []string{"field0"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range all {
		seen[r.Key] = true
		if len(r.Fields) != 1 || r.Fields[0].Name != "field0" {
			t.Errorf("scan %s: fields %v, want field0 only", r.Key, r.Fields)
		}
	}
	// From user000 the scan covers user000 and what follows it in hash
	// order: at least one record, none twice, all of them ours.
	if len(all) == 0 || len(seen) != len(all) {
		t.Errorf("scan returned %d records, %d distinct", len(all), len(seen))
	}
}

func TestIntegrationHashAndRange(t *testing.T) {
	table := testTable("hashrange")
	db := openTest(t, table, adapters.Properties{
		"dynamodb.primaryKeyType": "HASH_AND_RANGE",
		"dynamodb.hashKeyName":    "hashkey",
		"dynamodb.hashKeyValue":   "bench_1",
	})
	ctx := context.Background()
	if got, want := keySchema(describeTable(t, db, table)), "hashkey:HASH hashkey=S key:RANGE key=S"; got != want {
		t.Errorf("key schema %q, want %q", got, want)
	}
	if db.Capabilities().UnorderedScan {
		t.Error("HASH_AND_RANGE scans are ordered")
	}
	for i := 9; i >= 0; i-- {
		if err := db.Insert(ctx, table, fmt.Sprintf("k%d", i), []adapters.Field{{Name: "f", Value: []byte{byte(i)}}}); err != nil {
			t.Fatal(err)
		}
	}
	// The item carries the hash key value, as YCSB writes it.
	raw, err := db.client.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), Key: map[string]types.AttributeValue{
		"hashkey": &types.AttributeValueMemberS{Value: "bench_1"},
		"key":     &types.AttributeValueMemberS{Value: "k3"},
	}})
	if err != nil || len(raw.Item) == 0 {
		t.Fatalf("raw GetItem: %v, %v", raw, err)
	}
	if err := db.Update(ctx, table, "k3", []adapters.Field{{Name: "f", Value: []byte("new")}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Read(ctx, table, "k3", []string{"f"}, nil)
	if err != nil || len(got) != 1 || string(got[0].Value) != "new" {
		t.Errorf("read k3 = %v, %v", got, err)
	}
	recs, err := db.Scan(ctx, table, "k2a", 4, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, r := range recs {
		keys = append(keys, r.Key)
	}
	if strings.Join(keys, ",") != "k3,k4,k5,k6" {
		t.Errorf("scan from k2a = %v, want k3,k4,k5,k6 in order", keys)
	}
	if err := db.Delete(ctx, table, "k3"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Read(ctx, table, "k3", nil, nil); !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("read after delete: %v, want ErrNotFound", err)
	}
}

func TestIntegrationReservedWordFields(t *testing.T) {
	table := testTable("reserved")
	db := openTest(t, table, nil)
	ctx := context.Background()
	// All DynamoDB reserved words; they only work behind #placeholders.
	fields := []adapters.Field{
		{Name: "name", Value: []byte("n")},
		{Name: "size", Value: []byte("s")},
		{Name: "status", Value: []byte("st")},
		{Name: "data", Value: []byte("d")},
		{Name: "timestamp", Value: []byte{}},
	}
	if err := db.Insert(ctx, table, "r1", fields); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(ctx, table, "r1", []adapters.Field{{Name: "size", Value: []byte("S2")}, {Name: "count", Value: []byte("c")}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Read(ctx, table, "r1", []string{"size", "count", "timestamp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", []adapters.Field{{Name: "count", Value: []byte("c")}, {Name: "size", Value: []byte("S2")}, {Name: "timestamp", Value: []byte{}}}) {
		t.Errorf("projection read = %q", got)
	}
	recs, err := db.Scan(ctx, table, "r1", 1, []string{"name"}, nil)
	if err != nil || len(recs) != 1 || recs[0].Key != "r1" || len(recs[0].Fields) != 1 || string(recs[0].Fields[0].Value) != "n" {
		t.Errorf("scan = %q, %v", recs, err)
	}
	// Asking only for fields the item lacks is "not found" (the adapters'
	// contract, as YCSB's hbase2 binding answers an empty result).
	got, err = db.Read(ctx, table, "r1", []string{"absent"}, nil)
	if !errors.Is(err, adapters.ErrNotFound) || len(got) != 0 {
		t.Errorf("read of an absent field = %v, %v; want not found", got, err)
	}
}

func TestIntegrationUpdateUpserts(t *testing.T) {
	table := testTable("upsert")
	db := openTest(t, table, adapters.Properties{"dynamodb.consistentReads": "true"})
	ctx := context.Background()
	if err := db.Update(ctx, table, "fresh", []adapters.Field{{Name: "field0", Value: []byte("v")}}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Read(ctx, table, "fresh", nil, nil)
	if err != nil || len(got) != 1 {
		t.Errorf("read after update of a missing key = %v, %v (the documented behaviour is an upsert, as in YCSB)", got, err)
	}
}

func TestIntegrationEnvironmentCredentials(t *testing.T) {
	ep := integrationEndpoint(t)
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDENV")
	t.Setenv("AWS_SECRET_ACCESS_KEY", sentinelSecret)
	t.Setenv("AWS_SESSION_TOKEN", "")
	table := testTable("envcreds")
	db, err := open(context.Background(), adapters.Properties{"dynamodb.endpoint": ep, "table": table})
	if err != nil {
		t.Fatal(err)
	}
	defer db.DeleteTable(context.Background(), table)
	defer db.Close()
	if db.dummyCredentials {
		t.Error("environment credentials were not used")
	}
	if strings.Contains(db.Describe(), sentinelSecret) {
		t.Error("Describe shows the secret")
	}
	if _, err := db.Read(context.Background(), table, sentinelSecret, nil, nil); err == nil || strings.Contains(err.Error(), sentinelSecret) {
		t.Errorf("err = %v", err)
	}
}
