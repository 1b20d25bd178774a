package adapters

import (
	"strings"
	"testing"
)

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

// A line quoted from afar loses every secret property value; a uri is
// masked like a url.
func TestMaskSecretsInAndURI(t *testing.T) {
	props := map[string]string{"redis.password": "s3cret", "mongodb.uri": "mongodb://u:pw@h/db", "x": "ab"}
	if got := MaskSecretsIn("auth s3cret failed", props); got != "auth **** failed" {
		t.Errorf("MaskSecretsIn = %q", got)
	}
	if got := MaskProperties(props)["mongodb.uri"]; strings.Contains(got, "pw") {
		t.Errorf("a uri keeps its password: %q", got)
	}
}
