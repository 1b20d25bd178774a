package engine

import (
	"errors"
	"strings"
	"testing"

	"benchtop/adapters"
)

func TestParseProperties(t *testing.T) {
	t.Parallel()
	in := "# comment\n! also a comment\n\nrecordcount=1000\n  operationcount : 50\nfieldlength 100\nlong=a\\\n   b\nescaped\\=key=v\\tx\nempty=\nreadproportion=0.5\nreadproportion=0.25\n"
	p, err := ParseProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"recordcount": "1000", "operationcount": "50", "fieldlength": "100",
		"long": "ab", "escaped=key": "v\tx", "empty": "", "readproportion": "0.25",
	}
	if len(p) != len(want) {
		t.Errorf("got %d properties %v, want %d", len(p), p, len(want))
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%q = %q, want %q", k, p[k], v)
		}
	}
}

// FuzzParseProperties: any text parses without panicking, and what a
// parse yields survives being written back and parsed again.
func FuzzParseProperties(f *testing.F) {
	f.Add("recordcount=1000\nreadproportion=0.5\n")
	f.Add("a\\\nb=c\\\\\n")
	f.Add("# c\n!x\n k : v \n")
	f.Add("=\n:\n\\")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProperties(strings.NewReader(s))
		if err != nil {
			return
		}
		var b strings.Builder
		for k, v := range p {
			b.WriteString(escapeProp(k, true) + "=" + escapeProp(v, false) + "\n")
		}
		q, err := ParseProperties(strings.NewReader(b.String()))
		if err != nil {
			t.Fatalf("re-parse: %v", err)
		}
		for k, v := range p {
			if q[k] != v {
				t.Fatalf("round trip of %q: %q became %q (text %q)", k, v, q[k], b.String())
			}
		}
	})
}

func escapeProp(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\f':
			b.WriteString(`\f`)
		case '=', ':', ' ':
			if key || (i == 0 && c == ' ') {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		case '#', '!':
			if key && i == 0 {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FuzzNewConfig: any property values give a Config or a ConfigError,
// never a panic.
func FuzzNewConfig(f *testing.F) {
	f.Add("recordcount", "1000", "requestdistribution", "zipfian", "target", "100")
	f.Add("minscanlength", "5", "maxscanlength", "1", "fieldlength", "0")
	f.Add("status.interval", "1e400", "maxexecutiontime", "-1", "hdrhistogram.percentiles", ",")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, k3, v3 string) {
		props := map[string]string{"recordcount": "100", k1: v1, k2: v2, k3: v3}
		c, _, err := NewConfig("run", "memory", props)
		if err != nil {
			var ce *adapters.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error is not a ConfigError: %v", err)
			}
			return
		}
		if c.Threads < 1 || c.StatusInterval <= 0 || c.Partitions < 1 || c.Target < 0 {
			t.Fatalf("invalid config accepted: %+v", c)
		}
	})
}
