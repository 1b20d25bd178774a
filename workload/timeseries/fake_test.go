package timeseries

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"benchtop/adapters"
)

// fakeLP is an in-memory line-protocol store: it parses every line it is
// given and keeps one point per series and timestamp, merging duplicates
// as InfluxDB does, so that a workload that reused a series and timestamp
// would show fewer points than it wrote.
type fakeLP struct {
	mu      sync.Mutex
	points  map[string]struct{} // series key + " " + timestamp
	byRun   map[string]int64    // points per run tag value
	batches []int               // lines per write
	bytes   int64
	dups    int64
	bad     []string // malformed lines

	delay      time.Duration // per write
	precision  time.Duration
	dropEvery  int64 // acknowledge every Nth write without storing it
	failFirst  int   // fail the first attempt of each batch with status
	failStatus int   // (set with failFirst) status of the failure
	writes     atomic.Int64
	seenFirst  sync.Map // first line of a batch -> attempts
	countExtra int64    // added to CountPoints
}

func newFakeLP() *fakeLP {
	return &fakeLP{points: map[string]struct{}{}, byRun: map[string]int64{}, precision: time.Nanosecond}
}

type statusErr struct{ status int }

func (e *statusErr) Error() string   { return fmt.Sprintf("HTTP %d", e.status) }
func (e *statusErr) HTTPStatus() int { return e.status }

func (f *fakeLP) WriteLines(ctx context.Context, body []byte, lines int) error {
	n := f.writes.Add(1)
	if f.delay > 0 {
		select {
		case <-time.After(f.delay):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if f.failFirst > 0 {
		first := string(body[:bytes.IndexByte(body, '\n')])
		v, _ := f.seenFirst.LoadOrStore(first, new(atomic.Int64))
		if v.(*atomic.Int64).Add(1) <= int64(f.failFirst) {
			kind := adapters.KindOther
			if f.failStatus == 503 || f.failStatus == 429 {
				kind = adapters.KindThrottled
			}
			return adapters.WithKind(kind, fmt.Errorf("fake write: %w", &statusErr{f.failStatus}))
		}
	}
	if got := bytes.Count(body, []byte{'\n'}); got != lines {
		return fmt.Errorf("fake: %d lines in the body, %d announced", got, lines)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.batches = append(f.batches, lines)
	f.bytes += int64(len(body))
	if f.dropEvery > 0 && n%f.dropEvery == 0 {
		return nil // acknowledged, not stored
	}
	for _, line := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		parts := strings.Split(line, " ")
		if len(parts) != 3 {
			f.bad = append(f.bad, line)
			continue
		}
		key := parts[0] + " " + parts[2]
		if _, dup := f.points[key]; dup {
			f.dups++
			continue
		}
		f.points[key] = struct{}{}
		run := ""
		for _, tag := range strings.Split(parts[0], ",")[1:] {
			if v, ok := strings.CutPrefix(tag, "run="); ok {
				run = v
			}
		}
		f.byRun[run]++
	}
	return nil
}

func (f *fakeLP) Precision() time.Duration { return f.precision }

func (f *fakeLP) CountPoints(_ context.Context, measurement string, tags map[string]string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if run, ok := tags["run"]; ok {
		return f.byRun[run] + f.countExtra, nil
	}
	return int64(len(f.points)) + f.countExtra, nil
}

func (f *fakeLP) stored() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.points))
}

var errKV = errors.New("fake: key-value operations not supported")

func (f *fakeLP) Read(context.Context, string, string, []string, []adapters.Field) ([]adapters.Field, error) {
	return nil, errKV
}
func (f *fakeLP) Scan(context.Context, string, string, int, []string, []adapters.Record) ([]adapters.Record, error) {
	return nil, errKV
}
func (f *fakeLP) Update(context.Context, string, string, []adapters.Field) error { return errKV }
func (f *fakeLP) Insert(context.Context, string, string, []adapters.Field) error { return errKV }
func (f *fakeLP) Delete(context.Context, string, string) error                   { return errKV }
func (f *fakeLP) Close() error                                                   { return nil }
