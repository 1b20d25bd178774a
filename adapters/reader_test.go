package adapters

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

// readCase is one call of a Reader method on one value: want is the value
// returned, allowed the ConfigError's Allowed ("" = no error).
type readCase struct {
	name    string
	value   string // "-" = unset
	read    func(r *Reader) any
	want    any
	allowed string
}

func runReadCases(t *testing.T, cases []readCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := Properties{}
			if c.value != "-" {
				p["k"] = c.value
			}
			r := NewReader(p)
			got := c.read(r)
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("value %q: got %v, want %v", c.value, got, c.want)
			}
			err := r.Err()
			if c.allowed == "" {
				if err != nil {
					t.Fatalf("value %q: unexpected error %v", c.value, err)
				}
				return
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("value %q: error %v, want a *ConfigError", c.value, err)
			}
			if ce.Key != "k" || ce.Value != c.value || ce.Allowed != c.allowed {
				t.Errorf("value %q: got %+v, want Key k, Value %q, Allowed %q", c.value, *ce, c.value, c.allowed)
			}
		})
	}
}

func TestReaderInt(t *testing.T) {
	i := func(r *Reader) any { return r.Int("k", 7, 1, 10) }
	runReadCases(t, []readCase{
		{"unset", "-", i, 7, ""},
		{"min", "1", i, 1, ""},
		{"max", "10", i, 10, ""},
		{"spaces", " 5 ", i, 5, ""},
		{"below", "0", i, 7, "a whole number from 1 to 10"},
		{"above", "11", i, 7, "a whole number from 1 to 10"},
		{"fraction", "2.5", i, 7, "a whole number from 1 to 10"},
		{"word", "five", i, 7, "a whole number from 1 to 10"},
		{"empty", "", i, 7, "a whole number from 1 to 10"},
		{"open above", "99999999999", func(r *Reader) any { return r.Int("k", 0, 0, math.MaxInt) }, 99999999999, ""},
		{"open above refused", "-1", func(r *Reader) any { return r.Int("k", 0, 0, math.MaxInt) }, 0, "a whole number >= 0"},
	})
}

func TestReaderInt64(t *testing.T) {
	i := func(r *Reader) any { return r.Int64("k", 3, 0, math.MaxInt64) }
	runReadCases(t, []readCase{
		{"unset", "-", i, int64(3), ""},
		{"large", "9223372036854775807", i, int64(math.MaxInt64), ""},
		{"overflow", "9223372036854775808", i, int64(3), "a whole number >= 0"},
		{"negative", "-1", i, int64(3), "a whole number >= 0"},
		{"malformed", "1e3", i, int64(3), "a whole number >= 0"},
		{"range", "6", func(r *Reader) any { return r.Int64("k", 1, 1, 5) }, int64(1), "a whole number from 1 to 5"},
		{"any", "-6", func(r *Reader) any { return r.Int64("k", 1, math.MinInt64, math.MaxInt64) }, int64(-6), ""},
		{"any malformed", "x", func(r *Reader) any { return r.Int64("k", 1, math.MinInt64, math.MaxInt64) }, int64(1), "a whole number"},
		{"upper only", "6", func(r *Reader) any { return r.Int64("k", 1, math.MinInt64, 5) }, int64(1), "a whole number <= 5"},
	})
}

func TestReaderFloat(t *testing.T) {
	f := func(r *Reader) any { return r.Float("k", 0.5, 0, 1) }
	open := func(r *Reader) any { return r.Float("k", 0.5, 0, math.MaxFloat64) }
	runReadCases(t, []readCase{
		{"unset", "-", f, 0.5, ""},
		{"in range", "0.25", f, 0.25, ""},
		{"bounds", "1", f, 1.0, ""},
		{"exponent", "1e-3", f, 0.001, ""},
		{"above", "1.01", f, 0.5, "a number from 0 to 1"},
		{"below", "-0.1", f, 0.5, "a number from 0 to 1"},
		{"nan", "NaN", f, 0.5, "a number from 0 to 1"},
		{"malformed", "half", f, 0.5, "a number from 0 to 1"},
		{"open", "1e300", open, 1e300, ""},
		{"open inf", "+Inf", open, 0.5, "a number >= 0"},
		{"open negative", "-2", open, 0.5, "a number >= 0"},
	})
}

func TestReaderBool(t *testing.T) {
	b := func(r *Reader) any { return r.Bool("k", true) }
	runReadCases(t, []readCase{
		{"unset", "-", b, true, ""},
		{"false", "false", b, false, ""},
		{"FALSE", " FALSE ", b, false, ""},
		{"0", "0", b, false, ""},
		{"no", "no", b, false, ""},
		{"off", "off", b, false, ""},
		{"yes", "yes", func(r *Reader) any { return r.Bool("k", false) }, true, ""},
		{"maybe", "maybe", b, true, "true or false"},
		{"empty", "", b, true, "true or false"},
	})
}

func TestReaderChoice(t *testing.T) {
	c := func(r *Reader) any { return r.Choice("k", "hashed", "hashed", "ordered") }
	runReadCases(t, []readCase{
		{"unset", "-", c, "hashed", ""},
		{"exact", "ordered", c, "ordered", ""},
		{"case and space", " Ordered ", c, "ordered", ""},
		{"other", "random", c, "hashed", "hashed, ordered"},
		{"empty", "", c, "hashed", "hashed, ordered"},
	})
}

func TestReaderSeconds(t *testing.T) {
	s := func(r *Reader) any { return r.Seconds("k", time.Second, 100*time.Millisecond, 10*time.Second) }
	const allowed = "seconds or a duration from 100ms to 10s"
	runReadCases(t, []readCase{
		{"unset", "-", s, time.Second, ""},
		{"seconds", "2", s, 2 * time.Second, ""},
		{"fraction", "0.5", s, 500 * time.Millisecond, ""},
		{"go duration", "250ms", s, 250 * time.Millisecond, ""},
		{"below", "50ms", s, time.Second, allowed},
		{"above", "11", s, time.Second, allowed},
		{"negative", "-1", s, time.Second, allowed},
		{"malformed", "soon", s, time.Second, allowed},
		{"nan", "NaN", s, time.Second, allowed},
		{"overflow", "1e300", s, time.Second, allowed},
	})
}

func TestReaderDuration(t *testing.T) {
	d := func(r *Reader) any { return r.Duration("k", 5*time.Millisecond, time.Millisecond, 0, time.Minute) }
	const allowed = "a duration from 0s to 1m0s such as 300ms or 2s (a bare number is in ms)"
	runReadCases(t, []readCase{
		{"unset", "-", d, 5 * time.Millisecond, ""},
		{"bare is unit", "20", d, 20 * time.Millisecond, ""},
		{"bare fraction", "0.5", d, 500 * time.Microsecond, ""},
		{"go duration", "2s", d, 2 * time.Second, ""},
		{"zero", "0", d, time.Duration(0), ""},
		{"above", "61s", d, 5 * time.Millisecond, allowed},
		{"negative", "-1ms", d, 5 * time.Millisecond, allowed},
		{"malformed", "2 seconds", d, 5 * time.Millisecond, allowed},
		{"open", "-1", func(r *Reader) any { return r.Duration("k", 0, time.Second, 0, math.MaxInt64) }, time.Duration(0),
			"a duration >= 0s such as 300ms or 2s (a bare number is in seconds)"},
		{"seconds unit", "3", func(r *Reader) any { return r.Duration("k", 0, time.Second, time.Second, time.Hour) }, 3 * time.Second, ""},
		{"seconds unit below", "0.1", func(r *Reader) any { return r.Duration("k", 0, time.Second, time.Second, time.Hour) }, time.Duration(0),
			"a duration from 1s to 1h0m0s such as 300ms or 2s (a bare number is in seconds)"},
	})
}

func TestReaderString(t *testing.T) {
	s := func(r *Reader) any { return r.String("k", "def") }
	runReadCases(t, []readCase{
		{"unset", "-", s, "def", ""},
		{"kept as given", " a b ", s, " a b ", ""},
		{"empty", "", s, "", ""},
	})
}

func TestReaderFirstErrorWins(t *testing.T) {
	r := NewReader(Properties{"a": "x", "b": "y"})
	r.Int("a", 0, 0, 1)
	r.Bool("b", false)
	r.Bad("c", "something")
	var ce *ConfigError
	if !errors.As(r.Err(), &ce) || ce.Key != "a" {
		t.Fatalf("Err() = %v, want the error for a", r.Err())
	}
	if got := ce.Error(); got != `a: "x" is not allowed (allowed: a whole number from 0 to 1)` {
		t.Errorf("message %q", got)
	}
	if NewReader(nil).Err() != nil {
		t.Error("a reader with no error returned a non-nil error")
	}
}

func TestReaderBadAndFail(t *testing.T) {
	r := NewReader(Properties{"url": "http://u:secret@h"})
	r.Fail(&ConfigError{Key: "url", Value: "http://u:****@h", Allowed: "a reachable URL"})
	r.Bad("url", "ignored: not the first")
	var ce *ConfigError
	if !errors.As(r.Err(), &ce) || strings.Contains(ce.Error(), "secret") || ce.Allowed != "a reachable URL" {
		t.Fatalf("Err() = %v", r.Err())
	}
}

func TestReaderKeysAndUnknown(t *testing.T) {
	p := Properties{"redis.addr": "h:1", "redis.adress": "h:2", "redis.db": "1", "other.x": "1", "batchsize": "5"}
	r := NewReader(p)
	r.String("redis.addr", "")
	r.Int("redis.db", 0, 0, 15)
	r.Has("redis.password")
	if got, want := r.Keys(), []string{"redis.addr", "redis.db", "redis.password"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Keys() = %v, want %v", got, want)
	}
	got := r.Unknown("redis.", "batchsize")
	want := []string{
		`warning: unknown property "batchsize" ignored`,
		`warning: unknown property "redis.adress" ignored (did you mean redis.addr?)`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Unknown() =\n%q\nwant\n%q", got, want)
	}
}
