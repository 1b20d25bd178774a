package cli

import "testing"

// A server on a loopback address or localhost is on this host; the
// in-process adapters have none.
func TestLocalServer(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ adapter, target, want string }{
		{"redis", "redis://127.0.0.1:6379", "127.0.0.1:6379"},
		{"postgres", "postgres://postgres@localhost:5432/ycsb", "localhost:5432"},
		{"mongodb", "mongodb://[::1]:27017", "[::1]:27017"},
		{"redis", "redis://10.0.0.5:6379", ""},
		{"cassandra", "127.0.0.1:9042", "127.0.0.1:9042"},
		{"sim", "model server (not a database): 160 ops/s", ""},
		{"memory", "in-process, 1 partition", ""},
	} {
		if got := localServer(c.adapter, c.target); got != c.want {
			t.Errorf("localServer(%q, %q) = %q, want %q", c.adapter, c.target, got, c.want)
		}
	}
}
