package sqlbase

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"
)

// pair is a connected TCP pair on the loopback.
func pair(t *testing.T) (client, server net.Conn) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// A context's end cuts the read under way; a connection left idle when
// its context ended works again under the next one; an ended context is
// refused before anything is sent.
func TestWatcher(t *testing.T) {
	client, server := pair(t)
	w := NewWatcher(client)
	buf := make([]byte, 8)

	ctx1, cancel1 := context.WithCancel(context.Background())
	if err := w.Arm(ctx1); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(20 * time.Millisecond); cancel1() }()
	_, err := client.Read(buf) // the server never answers
	bad := false
	err = w.After(ctx1, err, &bad)
	if !errors.Is(err, context.Canceled) || !bad {
		t.Fatalf("a read cut by its context's end: %v, bad %v; want context.Canceled and bad", err, bad)
	}

	// Idle when its context ends, then used under another.
	client2, server2 := pair(t)
	w2 := NewWatcher(client2)
	ctx2, cancel2 := context.WithCancel(context.Background())
	if err := w2.Arm(ctx2); err != nil {
		t.Fatal(err)
	}
	cancel2()
	for !w2.fired.Load() {
		time.Sleep(time.Millisecond)
	}
	if err := w2.Arm(ctx2); !errors.Is(err, context.Canceled) {
		t.Errorf("Arm with an ended context: %v, want context.Canceled", err)
	}
	if err := w2.Arm(context.Background()); err != nil {
		t.Fatal(err)
	}
	go server2.Write([]byte("reply"))
	n, err := client2.Read(buf)
	if err != nil || string(buf[:n]) != "reply" {
		t.Errorf("a read under the next context: %q, %v; want the reply", buf[:n], err)
	}
	if w2.Interrupted() {
		t.Error("Interrupted with nothing armed")
	}
	_ = server
}
