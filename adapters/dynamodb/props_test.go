package dynamodb

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"benchtop/adapters"
	"benchtop/adapters/adaptertest"
)

func TestSettingsDefaults(t *testing.T) {
	s, err := parseSettings(adapters.Properties{})
	if err != nil {
		t.Fatal(err)
	}
	want := settings{
		region:         DefaultRegion,
		table:          DefaultTable,
		primaryKey:     "key",
		keyType:        KeyTypeHash,
		connectMax:     50,
		createTable:    true,
		maxRetries:     2,
		connectTimeout: 5 * time.Second,
		requestTimeout: 5 * time.Second,
		tableTimeout:   2 * time.Minute,
	}
	if s != want {
		t.Errorf("defaults:\n got %+v\nwant %+v", s, want)
	}
}

// The command's open bound covers the wait for a table to become ACTIVE
// (it cut the documented 2 minutes to 30 s).
func TestOpenBoundCoversTheTableWait(t *testing.T) {
	for _, c := range []struct {
		props adapters.Properties
		want  time.Duration
	}{
		{adapters.Properties{}, adapters.DefaultOpenTimeout + 2*time.Minute},
		{adapters.Properties{PropTableTimeout: "10m"}, adapters.DefaultOpenTimeout + 10*time.Minute},
		{adapters.Properties{PropTableTimeout: "soon"}, adapters.DefaultOpenTimeout}, // refused by Open
	} {
		if got := adapters.OpenTimeout("dynamodb", c.props); got != c.want {
			t.Errorf("%v: open bound %v, want %v", c.props, got, c.want)
		}
	}
}

func TestSettingsGiven(t *testing.T) {
	s, err := parseSettings(adapters.Properties{
		"table":                       "bench",
		"dynamodb.endpoint":           "http://node1:8000/",
		"dynamodb.region":             "eu-west-1",
		"dynamodb.primaryKey":         "id",
		"dynamodb.primaryKeyType":     " hash_and_range ",
		"dynamodb.hashKeyName":        "hk",
		"dynamodb.consistentReads":    "true",
		"dynamodb.awsCredentialsFile": "/etc/creds.properties",
		"dynamodb.connectMax":         "200",
		"dynamodb.ttlKey":             "exp",
		"dynamodb.ttlDuration":        "3600",
		"dynamodb.debug":              "false",
		"dynamodb.createTable":        "false",
		"dynamodb.maxRetries":         "0",
		"dynamodb.connectTimeout":     "250", // bare number: milliseconds
		"dynamodb.requestTimeout":     "2s",
		"dynamodb.createTableTimeout": "30s",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := settings{
		endpoint:        "http://node1:8000",
		region:          "eu-west-1",
		table:           "bench",
		primaryKey:      "id",
		keyType:         KeyTypeHashAndRange,
		hashKeyName:     "hk",
		hashKeyValue:    DefaultHashKeyValue,
		consistentReads: true,
		credentialsFile: "/etc/creds.properties",
		connectMax:      200,
		ttlKey:          "exp",
		ttlDuration:     time.Hour,
		createTable:     false,
		maxRetries:      0,
		connectTimeout:  250 * time.Millisecond,
		requestTimeout:  2 * time.Second,
		tableTimeout:    30 * time.Second,
	}
	if s != want {
		t.Errorf("settings:\n got %+v\nwant %+v", s, want)
	}
}

func TestSettingsEndpointWithoutScheme(t *testing.T) {
	// The Java SDK that YCSB uses takes a bare host as https.
	s, err := parseSettings(adapters.Properties{"dynamodb.endpoint": "dynamodb.us-east-1.amazonaws.com"})
	if err != nil {
		t.Fatal(err)
	}
	if s.endpoint != "https://dynamodb.us-east-1.amazonaws.com" {
		t.Errorf("endpoint = %q", s.endpoint)
	}
}

func TestSettingsErrors(t *testing.T) {
	cases := []struct {
		name  string
		props adapters.Properties
		key   string
	}{
		{"bad key type", adapters.Properties{"dynamodb.primaryKeyType": "RANGE"}, "dynamodb.primaryKeyType"},
		{"range without hash key name", adapters.Properties{"dynamodb.primaryKeyType": "HASH_AND_RANGE"}, "dynamodb.hashKeyName"},
		{"hash key name equals primary key", adapters.Properties{"dynamodb.primaryKeyType": "HASH_AND_RANGE", "dynamodb.hashKeyName": "key"}, "dynamodb.hashKeyName"},
		{"empty primary key", adapters.Properties{"dynamodb.primaryKey": " "}, "dynamodb.primaryKey"},
		{"empty table", adapters.Properties{"table": ""}, "table"},
		{"bad bool", adapters.Properties{"dynamodb.consistentReads": "maybe"}, "dynamodb.consistentReads"},
		{"connectMax zero", adapters.Properties{"dynamodb.connectMax": "0"}, "dynamodb.connectMax"},
		{"connectMax text", adapters.Properties{"dynamodb.connectMax": "lots"}, "dynamodb.connectMax"},
		{"negative retries", adapters.Properties{"dynamodb.maxRetries": "-1"}, "dynamodb.maxRetries"},
		{"zero timeout", adapters.Properties{"dynamodb.requestTimeout": "0"}, "dynamodb.requestTimeout"},
		{"bad timeout", adapters.Properties{"dynamodb.connectTimeout": "soon"}, "dynamodb.connectTimeout"},
		{"ftp endpoint", adapters.Properties{"dynamodb.endpoint": "ftp://host:21"}, "dynamodb.endpoint"},
		{"endpoint without host", adapters.Properties{"dynamodb.endpoint": "http://"}, "dynamodb.endpoint"},
		{"ttl key without duration", adapters.Properties{"dynamodb.ttlKey": "exp"}, "dynamodb.ttlDuration"},
		{"ttl duration without key", adapters.Properties{"dynamodb.ttlDuration": "60"}, "dynamodb.ttlKey"},
		{"typo", adapters.Properties{"dynamodb.consistentRead": "true"}, "dynamodb.consistentRead"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseSettings(c.props)
			var ce *adapters.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *ConfigError", err)
			}
			if ce.Key != c.key {
				t.Errorf("ConfigError.Key = %q, want %q (%v)", ce.Key, c.key, err)
			}
		})
	}
}

func TestEndpointMaskedInConfigError(t *testing.T) {
	_, err := parseSettings(adapters.Properties{"dynamodb.endpoint": "ftp://user:hunter22@host"})
	if err == nil || strings.Contains(err.Error(), "hunter22") {
		t.Errorf("error %v shows the password", err)
	}
}

func TestIsLoopback(t *testing.T) {
	for ep, want := range map[string]bool{
		"http://127.0.0.1:8000":                    true,
		"http://127.0.0.53:8000":                   true,
		"http://localhost:8000":                    true,
		"http://[::1]:8000":                        true,
		"http://10.0.0.1:8000":                     false,
		"https://dynamodb.us-east-1.amazonaws.com": false,
		"": false,
	} {
		if got := isLoopback(ep); got != want {
			t.Errorf("isLoopback(%q) = %v, want %v", ep, got, want)
		}
	}
}

func TestParseJavaProperties(t *testing.T) {
	in := `# Fill in your AWS Access Key ID and Secret Access Key
! another comment style
   accessKey = AKIDEXAMPLE   
secretKey:wJalr\
    XUtnFEMI
empty =
spaced key value with spaces
esc\=aped = a\tb\u0041\\
# secretKey = commented-out
`
	got, err := parseJavaProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"accessKey": "AKIDEXAMPLE   ",
		"secretKey": "wJalrXUtnFEMI",
		"empty":     "",
		"spaced":    "key value with spaces",
		"esc=aped":  "a\tbA\\",
	}
	if len(got) != len(want) {
		t.Errorf("got %q, want %q", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q = %q, want %q", k, got[k], v)
		}
	}
}

func TestReadCredentialsFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "AWSCredentials.properties")
	os.WriteFile(good, []byte("#accessKey =\naccessKey = AKID1\nsecretKey : SENTINEL-secret-1\n"), 0o600)
	c, err := readCredentialsFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if c.AccessKey != "AKID1" || c.SecretKey != "SENTINEL-secret-1" {
		t.Errorf("got %+v", c)
	}

	half := filepath.Join(dir, "half.properties")
	os.WriteFile(half, []byte("secretKey = SENTINEL-secret-2\n"), 0o600)
	_, err = readCredentialsFile(half)
	if err == nil {
		t.Fatal("a file without accessKey was accepted")
	}
	if strings.Contains(err.Error(), "SENTINEL") {
		t.Errorf("error shows the secret: %v", err)
	}

	bad := filepath.Join(dir, "bad.properties")
	os.WriteFile(bad, []byte("accessKey = A\nsecretKey = SENTINEL\\u12\n"), 0o600)
	_, err = readCredentialsFile(bad)
	if err == nil || strings.Contains(err.Error(), "SENTINEL") {
		t.Errorf("malformed escape: err = %v", err)
	}

	if _, err := readCredentialsFile(filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing file was accepted")
	}
}

func TestKeys(t *testing.T) {
	d, _ := adapters.Lookup("dynamodb")
	props := adapters.Properties{"dynamodb.primaryKeyType": "HASH_AND_RANGE", "dynamodb.hashKeyName": "hk"}
	adaptertest.CheckKeys(t, d.Prefixes, d.Keys, props, func(r *adapters.Reader) { readSettings(r) })
	if !d.StrictKeys {
		t.Error("dynamodb no longer refuses unknown dynamodb.* names")
	}
}

// TestUnknownNameRefused: a typo is refused with the close match, by the
// adapter and by the Driver's check the engine makes before opening.
func TestUnknownNameRefused(t *testing.T) {
	props := adapters.Properties{"dynamodb.endpiont": "http://127.0.0.1:8000", "dynamodb.zzz": "1"}
	_, err := parseSettings(props)
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != "dynamodb.endpiont" || !strings.Contains(ce.Allowed, "did you mean dynamodb.endpoint?") {
		t.Fatalf("got %v, want a ConfigError for dynamodb.endpiont suggesting dynamodb.endpoint", err)
	}
	d, _ := adapters.Lookup("dynamodb")
	warns, derr := d.Unknown(props)
	if len(warns) != 0 || derr == nil || derr.Error() != err.Error() {
		t.Errorf("Driver.Unknown = %q, %v; want no warning and %v", warns, derr, err)
	}
}
