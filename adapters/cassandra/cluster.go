package cassandra

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// cluster is the driver's configuration for a session on keyspace ("":
// none), as YCSB's binding sets up the Java driver: the contact points
// and port, credentials when a user is given, the pool's connections per
// host, the connect and read timeouts, TLS with cassandra.useSSL, and
// token-aware routing over round robin (the Java driver's default
// policy, token-aware over DC-aware round robin, in one data centre).
// No retries, as a benchmark wants every failure seen.
func (db *DB) cluster(keyspace string) (*gocql.ClusterConfig, error) {
	c := db.cfg
	cl := gocql.NewCluster(c.Hosts...)
	cl.Port = c.Port
	cl.Keyspace = keyspace
	cl.NumConns = c.ConnsPerHost
	cl.ConnectTimeout = c.ConnectTimeout
	cl.Timeout = c.ReadTimeout
	cl.Consistency = c.ReadCL
	cl.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	cl.RetryPolicy = nil
	// The replication of keyspaces is what token-aware routing needs; the
	// rest of the schema (every table and column of the cluster) is not
	// read.
	cl.Metadata.CacheMode = gocql.KeyspaceOnly
	// A request is written at once, with those that gathered while the
	// previous write ran (batchconn.go), not after gocql's fixed delay.
	cl.WriteCoalesceWaitTime = 0
	cl.Dialer = &batchDialer{d: net.Dialer{Timeout: c.ConnectTimeout}, timeout: c.ReadTimeout}
	// Protocol v4, what YCSB's Java driver 3.x speaks to Cassandra 3 to 5
	// and what ScyllaDB speaks: v5's checksummed segments cost the client
	// a fifth more CPU per operation here, and nothing is asked of v5.
	cl.ProtoVersion = 4
	if c.Username != "" {
		cl.Authenticator = gocql.PasswordAuthenticator{Username: c.Username, Password: c.Password}
	}
	if c.UseSSL {
		cl.SslOpts = &gocql.SslOptions{Config: tlsConfig(), EnableHostVerification: false}
	}
	return cl, nil
}

// tlsConfig is TLS as the Java driver's withSSL() sets it up: the
// server's certificate chain checked against the system's roots (Go reads
// SSL_CERT_FILE and SSL_CERT_DIR, as the JDK its trust store), its host
// name not checked.
func tlsConfig() *tls.Config {
	return &tls.Config{
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: true, // the chain is checked below, the host name is not
		VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
			if len(raw) == 0 {
				return errors.New("tls: the server sent no certificate")
			}
			certs := make([]*x509.Certificate, len(raw))
			for i, b := range raw {
				c, err := x509.ParseCertificate(b)
				if err != nil {
					return fmt.Errorf("tls: the server's certificate: %w", err)
				}
				certs[i] = c
			}
			opts := x509.VerifyOptions{Intermediates: x509.NewCertPool()}
			for _, c := range certs[1:] {
				opts.Intermediates.AddCert(c)
			}
			if _, err := certs[0].Verify(opts); err != nil {
				return fmt.Errorf("tls: the server's certificate is not trusted (set SSL_CERT_FILE to its CA): %w", err)
			}
			return nil
		},
	}
}

// noTrace is the tracer of cassandra.tracing: the server traces each
// statement (the request's tracing flag), as under YCSB, whose binding
// never reads the traces back; neither does benchtop.
type noTrace struct{}

func (noTrace) Trace([]byte) {}
