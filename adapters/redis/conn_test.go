package redis

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// fakeServer accepts one connection and runs serve on it.
func fakeServer(t *testing.T, serve func(net.Conn)) net.Conn {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	return nc
}

// A command handed to deferWrite reaches the server whole, however large
// (8 MB does not fit the socket's buffer: the write finishes outside the
// raw read), and the reply comes back through Read; a second one on the
// same connection too.
func TestConnReaderDeferredWrite(t *testing.T) {
	for _, size := range []int{20, 8 << 20} {
		cmd := bytes.Repeat([]byte("x"), size)
		nc := fakeServer(t, func(c net.Conn) {
			for range 2 {
				buf := make([]byte, size)
				if _, err := io.ReadFull(c, buf); err != nil || !bytes.Equal(buf, cmd) {
					return
				}
				c.Write([]byte("+OK\r\n"))
			}
		})
		cr := newConnReader(nc)
		for round := range 2 {
			if !cr.deferWrite(cmd) {
				t.Fatal("no raw connection on a TCP connection")
			}
			nc.SetDeadline(time.Now().Add(30 * time.Second))
			var got []byte
			buf := make([]byte, 64)
			for !bytes.HasSuffix(got, []byte("\r\n")) {
				n, err := cr.Read(buf)
				if err != nil {
					t.Fatalf("size %d round %d: Read: %v", size, round, err)
				}
				got = append(got, buf[:n]...)
			}
			if string(got) != "+OK\r\n" {
				t.Fatalf("size %d round %d: read %q, want +OK", size, round, got)
			}
		}
	}
}

// A server that never replies: Read ends with a timeout at the
// connection's deadline; one that closes: io.EOF.
func TestConnReaderDeadlineAndEOF(t *testing.T) {
	hold := make(chan struct{})
	defer close(hold)
	nc := fakeServer(t, func(c net.Conn) { <-hold })
	cr := newConnReader(nc)
	cr.deferWrite([]byte("PING\r\n"))
	nc.SetDeadline(time.Now().Add(50 * time.Millisecond))
	var ne net.Error
	if _, err := cr.Read(make([]byte, 16)); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("Read with no reply: %v, want a timeout", err)
	}

	nc = fakeServer(t, func(c net.Conn) {
		c.Read(make([]byte, 16))
	})
	cr = newConnReader(nc)
	cr.deferWrite([]byte("PING\r\n"))
	nc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := cr.Read(make([]byte, 16)); err != io.EOF {
		t.Fatalf("Read from a closed connection: %v, want io.EOF", err)
	}
}
