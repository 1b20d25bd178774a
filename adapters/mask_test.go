package adapters

import "testing"

func TestMaskProperties(t *testing.T) {
	in := map[string]string{
		"redis.password":              "hunter2",
		"influx.token":                "tok",
		"dynamodb.awsCredentialsFile": "/home/me/creds.properties",
		"aws.SecretKey":               "s3cr3t",
		"mongodb.url":                 "mongodb://user:pw@db:27017/ycsb?w=1",
		"dynamodb.endpoint":           "http://ak:sk@127.0.0.1:8000",
		"redis.addr":                  "127.0.0.1:6379",
		"recordcount":                 "1000",
		"table":                       "usertable",
	}
	want := map[string]string{
		"redis.password":              "****",
		"influx.token":                "****",
		"dynamodb.awsCredentialsFile": "****",
		"aws.SecretKey":               "****",
		"mongodb.url":                 "mongodb://user:****@db:27017/ycsb?w=1",
		"dynamodb.endpoint":           "http://ak:****@127.0.0.1:8000",
		"redis.addr":                  "127.0.0.1:6379",
		"recordcount":                 "1000",
		"table":                       "usertable",
	}
	got := MaskProperties(in)
	if len(got) != len(want) {
		t.Fatalf("got %d properties, want %d: %v", len(got), len(want), got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if in["redis.password"] != "hunter2" {
		t.Errorf("the input map was changed: %v", in)
	}
}
