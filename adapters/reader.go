package adapters

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Reader reads typed properties with range checks, the one way the engine,
// the workloads and the adapters read theirs. It keeps the first bad value
// as a *ConfigError (Err) and returns the default for it, so that a
// configuration reads as a list of calls with one check at the end:
//
//	r := adapters.NewReader(props)
//	c.PoolSize = r.Int("redis.poolsize", 0, 0, 65536)
//	c.Timeout = r.Duration("redis.timeout", 5*time.Second, time.Millisecond, 0, time.Hour)
//	if err := r.Err(); err != nil { ... }
//
// It also records every key it was asked for, so that Unknown can name the
// keys under a prefix that nothing read. A Reader is not safe for
// concurrent use.
type Reader struct {
	p     Properties
	err   *ConfigError
	asked map[string]bool
}

// NewReader reads p (a plain map[string]string converts implicitly).
func NewReader(p Properties) *Reader {
	return &Reader{p: p, asked: map[string]bool{}}
}

// Err returns the first bad value as a *ConfigError, or nil.
func (r *Reader) Err() error {
	if r.err == nil {
		return nil
	}
	return r.err
}

// Bad records key's value as not allowed (a cross-property check, a format
// of the reader's caller) unless an earlier error was recorded.
func (r *Reader) Bad(key, allowed string) {
	r.Fail(&ConfigError{Key: key, Value: r.p[key], Allowed: allowed})
}

// Fail records e unless an earlier error was recorded; use it when the
// value to show differs from the property's (a masked URL).
func (r *Reader) Fail(e *ConfigError) {
	if r.err == nil && e != nil {
		r.err = e
	}
}

// lookup returns the property and whether it is set, recording the key as
// read.
func (r *Reader) lookup(key string) (string, bool) {
	r.asked[key] = true
	v, ok := r.p[key]
	return v, ok
}

// Has reports whether key is set (and records it as read).
func (r *Reader) Has(key string) bool {
	_, ok := r.lookup(key)
	return ok
}

// String returns the property as given (white space kept), or def.
func (r *Reader) String(key, def string) string {
	if v, ok := r.lookup(key); ok {
		return v
	}
	return def
}

// Int reads a whole number from min to max.
func (r *Reader) Int(key string, def, min, max int) int {
	lo, hi := int64(min), int64(max)
	if min == math.MinInt {
		lo = math.MinInt64
	}
	if max == math.MaxInt {
		hi = math.MaxInt64
	}
	return int(r.Int64(key, int64(def), lo, hi))
}

// Int64 reads a whole number from min to max (math.MinInt64 and
// math.MaxInt64 for no bound).
func (r *Reader) Int64(key string, def, min, max int64) int64 {
	v, ok := r.lookup(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil || n < min || n > max {
		r.Bad(key, intAllowed(min, max))
		return def
	}
	return n
}

func intAllowed(min, max int64) string {
	switch {
	case min == math.MinInt64 && max == math.MaxInt64:
		return "a whole number"
	case max == math.MaxInt64:
		return fmt.Sprintf("a whole number >= %d", min)
	case min == math.MinInt64:
		return fmt.Sprintf("a whole number <= %d", max)
	}
	return fmt.Sprintf("a whole number from %d to %d", min, max)
}

// Float reads a number from min to max (-math.MaxFloat64 and
// math.MaxFloat64 for no bound). NaN and infinities are refused.
func (r *Reader) Float(key string, def, min, max float64) float64 {
	v, ok := r.lookup(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < min || f > max {
		r.Bad(key, floatAllowed(min, max))
		return def
	}
	return f
}

func floatAllowed(min, max float64) string {
	switch {
	case min == -math.MaxFloat64 && max == math.MaxFloat64:
		return "a number"
	case max == math.MaxFloat64:
		return fmt.Sprintf("a number >= %g", min)
	case min == -math.MaxFloat64:
		return fmt.Sprintf("a number <= %g", max)
	}
	return fmt.Sprintf("a number from %g to %g", min, max)
}

// Bool reads true/false, 1/0, yes/no or on/off, in any case.
func (r *Reader) Bool(key string, def bool) bool {
	v, ok := r.lookup(key)
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "1", "yes", "on":
		return true
	case "false", "0", "no", "off":
		return false
	}
	r.Bad(key, "true or false")
	return def
}

// Choice reads one of allowed, in any case, and returns it as spelled in
// allowed.
func (r *Reader) Choice(key, def string, allowed ...string) string {
	v, ok := r.lookup(key)
	if !ok {
		return def
	}
	v = strings.TrimSpace(v)
	for _, a := range allowed {
		if strings.EqualFold(v, a) {
			return a
		}
	}
	r.Bad(key, strings.Join(allowed, ", "))
	return def
}

// Seconds reads a duration given in seconds, as YCSB's properties give
// them ("30", "0.5"), or as a Go duration ("500ms"), from min to max.
func (r *Reader) Seconds(key string, def, min, max time.Duration) time.Duration {
	v, ok := r.lookup(key)
	if !ok {
		return def
	}
	d, ok := parseDuration(strings.TrimSpace(v), time.Second)
	if !ok || d < min || d > max {
		r.Bad(key, "seconds or a duration "+durRange(min, max))
		return def
	}
	return d
}

// Duration reads a Go duration ("300ms", "2s") or a bare number in unit
// (the unit the YCSB binding uses for the property), from min to max.
func (r *Reader) Duration(key string, def, unit, min, max time.Duration) time.Duration {
	v, ok := r.lookup(key)
	if !ok {
		return def
	}
	d, ok := parseDuration(strings.TrimSpace(v), unit)
	if !ok || d < min || d > max {
		r.Bad(key, fmt.Sprintf("a duration %s such as 300ms or 2s (a bare number is in %s)", durRange(min, max), unitName(unit)))
		return def
	}
	return d
}

func durRange(min, max time.Duration) string {
	if max == math.MaxInt64 {
		return fmt.Sprintf(">= %v", min)
	}
	return fmt.Sprintf("from %v to %v", min, max)
}

// parseDuration reads a bare number in unit or a Go duration. Values
// beyond what a time.Duration holds (about 292 years) are refused.
func parseDuration(s string, unit time.Duration) (time.Duration, bool) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		ns := f * float64(unit)
		if math.IsNaN(ns) || math.Abs(ns) >= math.MaxInt64 {
			return 0, false
		}
		return time.Duration(ns), true
	}
	d, err := time.ParseDuration(s)
	return d, err == nil
}

func unitName(u time.Duration) string {
	switch u {
	case time.Nanosecond:
		return "ns"
	case time.Microsecond:
		return "µs"
	case time.Millisecond:
		return "ms"
	case time.Second:
		return "seconds"
	case time.Minute:
		return "minutes"
	case time.Hour:
		return "hours"
	}
	return "units of " + u.String()
}

// Keys returns the keys the reader was asked for, sorted.
func (r *Reader) Keys() []string {
	out := make([]string, 0, len(r.asked))
	for k := range r.asked {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Unknown returns one warning for each property under one of prefixes
// (a name ending in '.' is a prefix, any other an exact name) that the
// reader was not asked for, naming the closest key it was asked for when
// one is close (see UnknownWarnings).
func (r *Reader) Unknown(prefixes ...string) []string {
	return UnknownWarnings(r.p, prefixes, r.Keys())
}
