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

// The SQL adapters' address forms lose their passwords: a URL, a JDBC URL
// (password in the user info or in the query), a Go MySQL DSN and a libpq
// keyword/value string; db.passwd is a secret by its name.
func TestMaskSQLAddresses(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:s3cret@127.0.0.1:5432/db":                 "postgres://u:****@127.0.0.1:5432/db",
		"jdbc:postgresql://127.0.0.1/db?user=u&password=s3cret": "jdbc:postgresql://127.0.0.1/db?password=****&user=u",
		"jdbc:mysql://u:s3cret@h:3306/db":                       "jdbc:mysql://u:****@h:3306/db",
		"u:s3cret@tcp(127.0.0.1:3306)/db?parseTime=true":        "u:****@tcp(127.0.0.1:3306)/db?parseTime=true",
		"u:s3cret@/db":                     "u:****@/db",
		"root@tcp(127.0.0.1:3306)/db":      "root@tcp(127.0.0.1:3306)/db",
		"host=h password=s3cret user=u":    "host=h password=**** user=u",
		"host=h password='s3 cret' user=u": "host=h password=**** user=u",
		"mysql://u:s3cret@h/db":            "mysql://u:****@h/db",
	} {
		if got := MaskURL(in); got != want {
			t.Errorf("MaskURL(%q) = %q, want %q", in, got, want)
		}
	}
	if got := MaskProperties(map[string]string{"db.passwd": "s3cret"})["db.passwd"]; got != "****" {
		t.Errorf("db.passwd is shown as %q", got)
	}
}
