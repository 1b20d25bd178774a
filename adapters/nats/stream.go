package nats

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"benchtop/adapters"
)

// pollTime is how long an idle Read waits before it returns no rows.
const pollTime = 200 * time.Millisecond

// purgeEvery is how many rows a reader delivers between two purges of
// what it has read.
const purgeEvery = 20000

// OpenStream creates a JetStream stream named name taking the subjects
// name.>; partition N is subject name.pN. Close deletes the stream.
func (db *DB) OpenStream(ctx context.Context, name string, partitions int) (adapters.Stream, error) {
	if partitions < 1 {
		return nil, fmt.Errorf("nats: stream %s: %d partitions", name, partitions)
	}
	cctx, cancel := context.WithTimeout(ctx, db.cfg.Timeout)
	defer cancel()
	st, err := db.js.CreateStream(cctx, jetstream.StreamConfig{
		Name:      name,
		Subjects:  []string{name + ".>"},
		Storage:   db.cfg.Storage,
		Retention: jetstream.LimitsPolicy,
		Discard:   jetstream.DiscardOld,
		Replicas:  1,
	})
	if err != nil {
		return nil, fmt.Errorf("nats: create stream %s: %w", name, classify(err))
	}
	return &stream{db: db, name: name, st: st, parts: partitions}, nil
}

type stream struct {
	db   *DB
	name string
	st   jetstream.Stream

	mu    sync.Mutex
	parts int
}

func (s *stream) subject(p int) string { return fmt.Sprintf("%s.p%d", s.name, p) }

func (s *stream) Partitions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.parts
}

// EnsurePartitions has nothing to create: the stream takes name.> .
func (s *stream) EnsurePartitions(_ context.Context, n int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.parts = max(s.parts, n)
	return nil
}

// Produce publishes every row asynchronously on the one connection (so
// the server stores each subject's rows in the order given) and waits for
// all the acknowledgements. Retries are off: a retried message could land
// after a later one.
func (s *stream) Produce(ctx context.Context, rows []adapters.StreamRow) error {
	n := s.Partitions()
	futs := make([]jetstream.PubAckFuture, 0, len(rows))
	var first error
	for _, r := range rows {
		if r.Partition < 0 || r.Partition >= n {
			first = fmt.Errorf("nats: stream %s: no partition %d (%d exist)", s.name, r.Partition, n)
			break
		}
		f, err := s.db.js.PublishAsync(s.subject(r.Partition), r.Data, jetstream.WithRetryAttempts(0))
		if err != nil {
			first = fmt.Errorf("nats: stream %s: publish: %w", s.name, classify(err))
			break
		}
		futs = append(futs, f)
	}
	// Wait for every publish sent, even after an error: the data must
	// stay untouched until the client is done with it.
	timeout := time.NewTimer(s.db.cfg.Timeout)
	defer timeout.Stop()
	for _, f := range futs {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			if first == nil {
				first = fmt.Errorf("nats: stream %s: publish: %w", s.name, classify(err))
			}
		case <-timeout.C:
			return fmt.Errorf("nats: stream %s: no acknowledgement within %v: %w", s.name, s.db.cfg.Timeout, adapters.WithKind(adapters.KindTimeout, context.DeadlineExceeded))
		case <-ctx.Done():
			return fmt.Errorf("nats: stream %s: publish: %w", s.name, classify(ctx.Err()))
		}
	}
	return first
}

// Reader creates an ordered consumer of partition p's subject; its
// messages are handed to Read through a buffered channel.
func (s *stream) Reader(ctx context.Context, p int) (adapters.StreamReader, error) {
	if p < 0 || p >= s.Partitions() {
		return nil, fmt.Errorf("nats: stream %s: no partition %d", s.name, p)
	}
	cctx, cancel := context.WithTimeout(ctx, s.db.cfg.Timeout)
	defer cancel()
	subj := s.subject(p)
	cons, err := s.db.js.OrderedConsumer(cctx, s.name, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{subj},
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("nats: stream %s: consumer of %s: %w", s.name, subj, classify(err))
	}
	r := &reader{s: s, subj: subj, msgs: make(chan jetstream.Msg, 4096), errs: make(chan error, 1), done: make(chan struct{}), timer: time.NewTimer(time.Hour)}
	r.timer.Stop()
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case r.msgs <- m:
		case <-r.done:
		}
	},
		jetstream.PullMaxMessages(2048),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			select {
			case r.errs <- err:
			default:
			}
		}))
	if err != nil {
		return nil, fmt.Errorf("nats: stream %s: consume %s: %w", s.name, subj, classify(err))
	}
	r.cc = cc
	return r, nil
}

func (s *stream) Describe() string {
	return fmt.Sprintf("%s stream %s, subjects %s.p0..p%d", s.db.Describe(), s.name, s.name, s.Partitions()-1)
}

// Close deletes the stream.
func (s *stream) Close(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, s.db.cfg.Timeout)
	defer cancel()
	if err := s.db.js.DeleteStream(cctx, s.name); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("nats: delete stream %s: %w", s.name, classify(err))
	}
	return nil
}

type reader struct {
	s      *stream
	subj   string
	cc     jetstream.ConsumeContext
	msgs   chan jetstream.Msg
	errs   chan error
	done   chan struct{} // closed by Close: releases a blocked handler
	closed bool
	timer  *time.Timer
	last   jetstream.Msg
	purged int
}

// Read waits up to pollTime for the first message, then takes what else
// is buffered, up to limit.
func (r *reader) Read(ctx context.Context, dst [][]byte, limit int) ([][]byte, error) {
	if err := ctx.Err(); err != nil {
		return dst, err
	}
	var m jetstream.Msg
	select {
	case m = <-r.msgs:
	default:
		r.timer.Reset(pollTime)
		select {
		case m = <-r.msgs:
			r.timer.Stop()
		case <-r.timer.C:
			select {
			case err := <-r.errs:
				// Ordered consumers recover by themselves: report, go on.
				return dst, fmt.Errorf("nats: stream %s: consume %s: %w", r.s.name, r.subj, classify(err))
			default:
			}
			return dst, nil
		case <-ctx.Done():
			r.timer.Stop()
			return dst, ctx.Err()
		}
	}
	dst = append(dst, m.Data())
	n := 1
	r.last = m
more:
	for n < limit {
		select {
		case m = <-r.msgs:
			dst = append(dst, m.Data())
			r.last = m
			n++
		default:
			break more
		}
	}
	r.purged += n
	if r.purged >= purgeEvery && r.last != nil {
		if md, err := r.last.Metadata(); err == nil {
			// Everything of this subject before the last row delivered.
			if err := r.s.st.Purge(ctx, jetstream.WithPurgeSubject(r.subj), jetstream.WithPurgeSequence(md.Sequence.Stream)); err == nil {
				r.purged = 0
			}
		}
	}
	return dst, nil
}

func (r *reader) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	close(r.done)
	if r.cc != nil {
		r.cc.Stop()
	}
	return nil
}
