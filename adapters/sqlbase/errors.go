package sqlbase

import (
	"fmt"
	"strings"

	"benchtop/adapters"
)

// NotFound is the error of an operation on a key with no row: a read, or
// an update or delete that changed no row (YCSB's UNEXPECTED_STATE).
func NotFound(op, table, key string) error {
	return fmt.Errorf("%s %s: key %q: %w", op, table, key, adapters.ErrNotFound)
}

// scrubbed is an error whose text has lost its secrets; errors.As and
// errors.Is still see what it wraps.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Scrub returns err with every secret (of at least 3 characters) in its
// text replaced by ****, and any URL's password masked: the last guard
// before a driver's message reaches a screen or a report. nil stays nil.
func Scrub(err error, secrets ...string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	clean := msg
	for _, s := range secrets {
		if len(s) >= 3 {
			clean = strings.ReplaceAll(clean, s, "****")
		}
	}
	if clean == msg {
		return err
	}
	return &scrubbed{msg: clean, err: err}
}
