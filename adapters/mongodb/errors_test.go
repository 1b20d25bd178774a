package mongodb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"benchtop/adapters"
)

func TestKindOf(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"duplicate insert", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11000, Message: "E11000 duplicate key"}}}, KindDuplicate},
		{"duplicate in batch", mongo.BulkWriteException{WriteErrors: []mongo.BulkWriteError{{WriteError: mongo.WriteError{Code: 11000}}}}, KindDuplicate},
		{"duplicate command", mongo.CommandError{Code: 11000}, KindDuplicate},
		{"server selection", topology.ServerSelectionError{Wrapped: errors.New("server selection timeout")}, adapters.KindUnavailable},
		{"server selection deadline", topology.ServerSelectionError{Wrapped: context.DeadlineExceeded}, adapters.KindUnavailable},
		{"client closed", mongo.ErrClientDisconnected, adapters.KindUnavailable},
		{"deadline", fmt.Errorf("op: %w", context.DeadlineExceeded), adapters.KindTimeout},
		{"maxTimeMS", mongo.CommandError{Code: 50, Name: "MaxTimeMSExpired"}, adapters.KindTimeout},
		{"network timeout label", mongo.CommandError{Labels: []string{"NetworkError", "NetworkTimeoutError"}}, adapters.KindTimeout},
		{"network error label", mongo.CommandError{Labels: []string{"NetworkError"}}, adapters.KindUnavailable},
		{"connection error", topology.ConnectionError{Wrapped: io.EOF}, adapters.KindUnavailable},
		{"refused", refused, adapters.KindUnavailable},
		{"eof", fmt.Errorf("read: %w", io.EOF), adapters.KindUnavailable},
		{"shutting down", mongo.CommandError{Code: 91, Name: "ShutdownInProgress"}, adapters.KindUnavailable},
		{"not primary", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 10107}}}, adapters.KindUnavailable},
		{"canceled", fmt.Errorf("op: %w", context.Canceled), adapters.KindCanceled},
		{"other command error", mongo.CommandError{Code: 2, Name: "BadValue"}, adapters.KindOther},
		{"plain", errors.New("boom"), adapters.KindOther},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := kindOf(tt.err); got != tt.want {
				t.Errorf("kindOf(%v) = %q, want %q", tt.err, got, tt.want)
			}
			// What the engine sees, through fail's wrapping.
			d := &DB{cfg: &config{redact: strings.NewReplacer()}}
			if got := adapters.Kind(d.fail(tt.err, "read %q", "k")); got != tt.want {
				t.Errorf("Kind(fail(%v)) = %q, want %q", tt.err, got, tt.want)
			}
		})
	}
}

func TestSanitize(t *testing.T) {
	cfg, err := parseConfig(adapters.Properties{
		"mongodb.url": "mongodb://ann:s3cr%2Ft@127.0.0.1:27017/db?authMechanismProperties=AWS_SESSION_TOKEN:tok123&w=1",
	})
	if err != nil {
		t.Fatal(err)
	}
	inner := mongo.CommandError{Code: 18, Name: "AuthenticationFailed", Labels: []string{"NetworkError"}}
	raw := fmt.Errorf("connecting to %s as ann:s3cr/t@127.0.0.1 (password s3cr/t, token tok123): %w", cfg.url, inner)
	got := cfg.sanitize(raw)
	msg := got.Error()
	for _, secret := range []string{"s3cr", "tok123"} {
		if strings.Contains(msg, secret) {
			t.Errorf("sanitized message still has %q: %s", secret, msg)
		}
	}
	if !strings.Contains(msg, "ann:****@127.0.0.1") {
		t.Errorf("sanitized message lost the user and host: %s", msg)
	}
	var ce mongo.CommandError
	if !errors.As(got, &ce) || kindOf(got) != adapters.KindUnavailable {
		t.Errorf("sanitize hid the cause from errors.As: %v", got)
	}
	plain := errors.New("nothing secret")
	if cfg.sanitize(plain) != plain {
		t.Error("sanitize rewrapped an error with nothing to mask")
	}
}

func TestBSONRoundTrip(t *testing.T) {
	vals := []adapters.Field{
		{Name: "field0", Value: []byte{0, 1, 2, 0xff}},
		{Name: "field1", Value: []byte{}},
		{Name: "field2", Value: []byte("hello")},
	}
	doc, _, err := record(nil, "user1", vals)
	if err != nil {
		t.Fatal(err)
	}
	got, id, err := appendFields(nil, nil, doc)
	if err != nil {
		t.Fatal(err)
	}
	if id != "user1" || len(got) != len(vals) {
		t.Fatalf("got id %q fields %v", id, got)
	}
	for i := range vals {
		if got[i].Name != vals[i].Name || string(got[i].Value) != string(vals[i].Value) {
			t.Errorf("field %d = %q:%x, want %q:%x", i, got[i].Name, got[i].Value, vals[i].Name, vals[i].Value)
		}
	}
	for _, bad := range []string{"", "_id", "a.b", "$set", "a\x00b"} {
		if _, _, err := record(nil, "k", []adapters.Field{{Name: bad}}); err == nil {
			t.Errorf("field name %q accepted", bad)
		}
	}
	if _, _, err := appendFields(nil, nil, doc[:len(doc)-3]); err == nil {
		t.Error("truncated document accepted")
	}
}
