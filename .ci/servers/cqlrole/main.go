// Command cqlrole makes the login role benchtop's tests use on a Cassandra
// node started by .ci/servers/cassandra.sh: it logs in as the default
// superuser (cassandra/cassandra, made by PasswordAuthenticator at first
// start) and creates a superuser role with the password read on standard
// input, so that the tests' password is not the adapter's name (messages
// mask every secret's text, and "cassandra" is in many of them).
//
//	echo "$PASSWORD" | go run ./.ci/servers/cqlrole -addr 127.0.0.1:9042 -role benchtop
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:9042", "the node's native host:port")
	role := flag.String("role", "benchtop", "the role to create")
	wait := flag.Duration("wait", time.Minute, "how long to keep trying to log in")
	flag.Parse()
	pw, err := bufio.NewReader(os.Stdin).ReadString('\n')
	pw = strings.TrimSpace(pw)
	if pw == "" || strings.ContainsAny(pw, "'\\") {
		fmt.Fprintf(os.Stderr, "cqlrole: give the password on standard input (no quotes or backslashes) (%v)\n", err)
		os.Exit(2)
	}
	host, p, err := net.SplitHostPort(*addr)
	port, perr := strconv.Atoi(p)
	if err != nil || perr != nil {
		fmt.Fprintf(os.Stderr, "cqlrole: -addr %q: want host:port\n", *addr)
		os.Exit(2)
	}
	cl := gocql.NewCluster(host)
	cl.Port = port
	cl.ProtoVersion = 4
	cl.Authenticator = gocql.PasswordAuthenticator{Username: "cassandra", Password: "cassandra"}
	cl.Timeout = 30 * time.Second
	var s *gocql.Session
	for t0 := time.Now(); ; {
		if s, err = cl.CreateSession(); err == nil {
			break
		}
		if time.Since(t0) > *wait {
			fmt.Fprintf(os.Stderr, "cqlrole: log in as cassandra at %s: %v\n", *addr, err)
			os.Exit(1)
		}
		time.Sleep(500 * time.Millisecond)
	}
	defer s.Close()
	stmt := fmt.Sprintf("CREATE ROLE IF NOT EXISTS %s WITH PASSWORD = '%s' AND LOGIN = true AND SUPERUSER = true", *role, pw)
	if err := s.Query(stmt).Consistency(gocql.One).Exec(); err != nil {
		fmt.Fprintf(os.Stderr, "cqlrole: create role %s: %v\n", *role, err)
		os.Exit(1)
	}
}
