package dynamodb

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"benchtop/adapters"
	"benchtop/engine"
	"benchtop/engine/host"
	"benchtop/engine/measure"
	"benchtop/workload/ycsb"
)

var wlHost = host.NewSampler()

// runPhase runs one phase of the core workload through the engine's
// Runner against db.
func runPhase(t *testing.T, command string, props map[string]string, db adapters.DB) *engine.PhaseResult {
	t.Helper()
	cfg, _, err := engine.NewConfig(command, "dynamodb", props)
	if err != nil {
		t.Fatalf("NewConfig: %v", err)
	}
	r, err := engine.New(cfg, db, engine.Options{Host: wlHost})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for range r.Snapshots() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	res, err := r.Run(ctx)
	if err != nil || len(res) != 1 {
		t.Fatalf("%s: %d phases, %v", command, len(res), err)
	}
	return res[0]
}

func opCount(res *engine.PhaseResult, op int) (all, failed int64) {
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

// countItems counts the table's items on the server (a paged Scan with
// Select COUNT).
func countItems(t *testing.T, db *DB, table string) int {
	t.Helper()
	n := 0
	var esk map[string]types.AttributeValue
	for {
		out, err := db.client.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ExclusiveStartKey: esk})
		if err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		n += int(out.Count)
		if len(out.LastEvaluatedKey) == 0 {
			return n
		}
		esk = out.LastEvaluatedKey
	}
}

// The load phase through the Runner uses BatchWriteItem (25 records a
// call) and stores exactly insertcount records; a run with dataintegrity
// then reads them back without a mismatch. With dynamodb.ttlKey every item
// carries the TTL attribute as a number of epoch seconds, which reads do
// not return as a field (so dataintegrity ignores it).
func TestIntegrationBatchedLoadAndTTL(t *testing.T) {
	for _, ttl := range []bool{false, true} {
		name := "load"
		if ttl {
			name = "loadttl"
		}
		t.Run(name, func(t *testing.T) {
			table := testTable(name)
			props := adapters.Properties{"dynamodb.primaryKey": "key"}
			if ttl {
				props["dynamodb.ttlKey"] = "expires"
				props["dynamodb.ttlDuration"] = "3600"
			}
			db := openTest(t, table, props)
			if db.BatchSize() <= 1 {
				t.Fatalf("BatchSize = %d: the load would not batch", db.BatchSize())
			}
			wl := map[string]string{"recordcount": "600", "insertstart": "0", "insertcount": "437", "threadcount": "4",
				"table": table, "dataintegrity": "true", "operationcount": "300", "readproportion": "1", "updateproportion": "0",
				"status.interval": "100ms", "dynamodb.endpoint": integrationEndpoint(t), "dynamodb.primaryKey": "key"}
			for k, v := range props {
				wl[k] = v
			}
			load := runPhase(t, "load", wl, db)
			if n, failed := opCount(load, ycsb.OpInsert); n != 437 || failed != 0 {
				t.Fatalf("load: %d INSERTs, %d failed (%v); want 437", n, failed, load.Set.Causes[ycsb.OpInsert])
			}
			if n := countItems(t, db, table); n != 437 {
				t.Errorf("the table holds %d items, want 437", n)
			}
			wl["recordcount"] = "437"
			run := runPhase(t, "run", wl, db)
			if n, failed := opCount(run, ycsb.OpRead); n != 300 || failed != 0 || run.Set.Integrity != 0 {
				t.Errorf("run: %d READs, %d failed, %d mismatches (%v); want 300 clean", n, failed, run.Set.Integrity, run.Set.Causes[ycsb.OpRead])
			}
			if !ttl {
				return
			}
			key := (&ycsb.Config{ZeroPadding: 1}).KeyName(5)
			out, err := db.client.GetItem(context.Background(), &dynamodb.GetItemInput{TableName: aws.String(table), Key: db.primaryKeyAV(key)})
			if err != nil {
				t.Fatal(err)
			}
			n, ok := out.Item["expires"].(*types.AttributeValueMemberN)
			if !ok {
				t.Fatalf("the TTL attribute is %T, want a number", out.Item["expires"])
			}
			exp, err := strconv.ParseInt(n.Value, 10, 64)
			if now := time.Now().Unix(); err != nil || exp < now+3000 || exp > now+3700 {
				t.Errorf("TTL %q, want about an hour from now (%d)", n.Value, now+3600)
			}
			fields, err := db.Read(context.Background(), table, key, nil, nil)
			if err != nil || len(fields) != 10 {
				t.Fatalf("Read = %d fields, %v; want the 10 fields", len(fields), err)
			}
			for _, f := range fields {
				if f.Name == "expires" {
					t.Errorf("Read returns the TTL attribute as a field")
				}
			}
		})
	}
}
