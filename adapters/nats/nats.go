// Package nats is benchtop's NATS JetStream adapter, on
// github.com/nats-io/nats.go (package jetstream). It carries the stream
// workload only: one JetStream stream per run with one subject per
// partition ("<name>.p<N>"), rows published asynchronously and confirmed
// batch by batch, and one ordered consumer per partition (filtered on its
// subject), which JetStream delivers strictly in order and recreates
// itself on a gap. Readers purge what they have read from their subject
// as they go, so that the server keeps only the consumer lag.
//
// Properties: nats.url (default nats://127.0.0.1:4222; a user and
// password in it are never shown), nats.storage (file or memory, default
// file), nats.timeout (connect and request timeout, default 10s).
// Key-value workloads are refused: select -p workload=stream.
package nats

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/url"
	"strings"
	"time"

	natsgo "github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"benchtop/adapters"
)

func init() {
	adapters.Register(adapters.Driver{
		Name:        "nats",
		Description: "NATS JetStream: the stream workload, one subject and ordered consumer per partition",
		Prefixes:    []string{"nats."},
		Keys:        Keys,
		Open: func(ctx context.Context, props adapters.Properties) (adapters.DB, error) {
			return Open(ctx, props)
		},
	})
}

// Config is the adapter's configuration, from properties.
type Config struct {
	URL     string
	Storage jetstream.StorageType
	Timeout time.Duration
}

// Property names.
const (
	PropURL     = "nats.url"     // default nats://127.0.0.1:4222
	PropStorage = "nats.storage" // file (default) or memory
	PropTimeout = "nats.timeout" // connect and request timeout, default 10s
)

// Keys are the nats.* properties the adapter reads (the Driver's Keys).
var Keys = []string{PropURL, PropStorage, PropTimeout, "workload"}

// ParseConfig reads the nats.* properties. It refuses workloads other
// than the stream.
func ParseConfig(p adapters.Properties) (Config, error) {
	r := adapters.NewReader(p)
	c := readConfig(r)
	return c, r.Err()
}

// readConfig reads every property even after a bad one; the first error is
// the Reader's.
func readConfig(r *adapters.Reader) Config {
	if wl := strings.TrimSpace(r.String("workload", "")); wl != "stream" {
		r.Fail(&adapters.ConfigError{Key: "workload", Value: wl, Allowed: "stream (the nats adapter carries only the stream workload: -p workload=stream)"})
	}
	c := Config{URL: strings.TrimSpace(r.String(PropURL, "nats://127.0.0.1:4222"))}
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "tls" && u.Scheme != "ws" && u.Scheme != "wss") {
		r.Fail(&adapters.ConfigError{Key: PropURL, Value: adapters.MaskURL(c.URL), Allowed: "a URL such as nats://127.0.0.1:4222"})
	}
	c.Storage = jetstream.FileStorage
	if r.Choice(PropStorage, "file", "file", "memory") == "memory" {
		c.Storage = jetstream.MemoryStorage
	}
	c.Timeout = r.Duration(PropTimeout, 10*time.Second, time.Second, time.Millisecond, 24*time.Hour)
	return c
}

// DB is a connection to a NATS server with JetStream.
type DB struct {
	adapters.StreamOnly // no key-value operations: errKV
	cfg                 Config
	nc                  *natsgo.Conn
	js                  jetstream.JetStream
}

var (
	_ adapters.DB        = (*DB)(nil)
	_ adapters.Describer = (*DB)(nil)
	_ adapters.Streamer  = (*DB)(nil)
)

// Open connects and checks that JetStream is enabled.
func Open(ctx context.Context, props adapters.Properties) (*DB, error) {
	cfg, err := ParseConfig(props)
	if err != nil {
		return nil, fmt.Errorf("nats: %w", err)
	}
	return connect(ctx, cfg)
}

func connect(ctx context.Context, cfg Config) (*DB, error) {
	nc, err := natsgo.Connect(cfg.URL, natsgo.Timeout(cfg.Timeout), natsgo.Name("benchtop"),
		natsgo.MaxReconnects(-1), natsgo.ReconnectBufSize(64<<20),
		// [screen] Asynchronous errors go to the standard logger (benchtop
		// routes it to --log FILE), not to the terminal as NATS's default
		// handler writes them.
		natsgo.ErrorHandler(func(_ *natsgo.Conn, _ *natsgo.Subscription, err error) {
			log.Printf("nats: %v", err)
		}))
	if err != nil {
		return nil, fmt.Errorf("nats: connect to %s: %w", adapters.MaskURL(cfg.URL), classify(err))
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(1<<16))
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats: jetstream: %w", err)
	}
	actx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if _, err := js.AccountInfo(actx); err != nil {
		nc.Close()
		return nil, fmt.Errorf("nats: %s: JetStream is not available (start nats-server with -js): %w", adapters.MaskURL(cfg.URL), classify(err))
	}
	return &DB{cfg: cfg, nc: nc, js: js, StreamOnly: adapters.StreamOnly{Err: errKV}}, nil
}

// Describe returns the server URL with any password masked.
func (db *DB) Describe() string { return adapters.MaskURL(db.cfg.URL) + " (JetStream)" }

// Close drains nothing and closes the connection.
func (db *DB) Close() error {
	db.nc.Close()
	return nil
}

var errKV = errors.New("nats: key-value operations are not supported (the nats adapter carries the stream workload only)")

// classify attaches an error kind to a nats.go error.
func classify(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.Canceled):
		return adapters.WithKind(adapters.KindCanceled, err)
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, natsgo.ErrTimeout):
		return adapters.WithKind(adapters.KindTimeout, err)
	case errors.Is(err, natsgo.ErrNoServers), errors.Is(err, natsgo.ErrConnectionClosed),
		errors.Is(err, natsgo.ErrNoResponders), errors.Is(err, jetstream.ErrNoStreamResponse),
		errors.Is(err, natsgo.ErrConnectionReconnecting), errors.Is(err, jetstream.ErrJetStreamNotEnabled):
		return adapters.WithKind(adapters.KindUnavailable, err)
	case errors.Is(err, jetstream.ErrTooManyStalledMsgs):
		return adapters.WithKind(adapters.KindThrottled, err)
	case errors.Is(err, jetstream.ErrStreamNotFound), errors.Is(err, jetstream.ErrMsgNotFound):
		return adapters.WithKind(adapters.KindNotFound, err)
	}
	return err
}
