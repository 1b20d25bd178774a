package engine

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// ParseProperties reads Java-properties text as YCSB's property files use
// it: `key=value`, `key: value` or `key value`; lines starting with # or !
// are comments; a line ending in an odd number of backslashes continues on
// the next; leading whitespace is ignored; later keys win. Common escapes
// (\t \n \\ \= \:) in keys and values are decoded.
func ParseProperties(r io.Reader) (map[string]string, error) {
	props := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	var logical strings.Builder
	continued := false
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if lineNo == 1 {
			line = strings.TrimPrefix(line, "\ufeff")
		}
		trimmed := strings.TrimLeft(line, " \t\f")
		if !continued {
			if trimmed == "" || trimmed[0] == '#' || trimmed[0] == '!' {
				continue
			}
		}
		if endsWithContinuation(trimmed) {
			logical.WriteString(trimmed[:len(trimmed)-1])
			continued = true
			continue
		}
		logical.WriteString(trimmed)
		continued = false
		k, v := splitProperty(logical.String())
		logical.Reset()
		if k == "" {
			continue
		}
		props[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %w", lineNo, err)
	}
	if continued && logical.Len() > 0 {
		if k, v := splitProperty(logical.String()); k != "" {
			props[k] = v
		}
	}
	return props, nil
}

func endsWithContinuation(s string) bool {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty splits a logical line at the first unescaped '=', ':' or
// whitespace.
func splitProperty(s string) (string, string) {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	key := unescape(s[:i])
	rest := strings.TrimLeft(s[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, unescape(strings.TrimRight(rest, " \t\f\r"))
}

func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// LoadPropertiesFile reads a property file (-P).
func LoadPropertiesFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := ParseProperties(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}
