package adapters

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxPropertyLine is the longest physical line ParseProperties reads.
const maxPropertyLine = 1 << 20

// ParseProperties reads the java.util.Properties text format that YCSB's
// property files (-P) and credentials files use: `key=value`, `key: value`
// or `key value`; lines starting with # or ! are comments; a line ending in
// an odd number of backslashes continues on the next (whose leading white
// space is dropped); \t \n \r \f \uXXXX and \<char> escapes; a later key
// wins; lines may end in \n or \r\n. As in Java, trailing white space
// stays in a value (numbers are trimmed where they are read). Errors give
// the line number, never its text, which may be a secret. Text that is not
// UTF-8, holds a NUL character or has a line longer than 1 MiB is refused
// (a binary file given by mistake), naming the line.
func ParseProperties(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), maxPropertyLine)
	lineNo := 0
	next := func() (string, error) {
		lineNo++
		if err := checkText(sc.Bytes()); err != nil {
			return "", fmt.Errorf("line %d: %w", lineNo, err)
		}
		// \r\n ends a line too, as in Java.
		return strings.TrimSuffix(sc.Text(), "\r"), nil
	}
	for sc.Scan() {
		text, err := next()
		if err != nil {
			return nil, err
		}
		if lineNo == 1 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		line := strings.TrimLeft(text, " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		first := lineNo
		for endsWithContinuation(line) {
			line = line[:len(line)-1]
			if !sc.Scan() {
				break
			}
			more, err := next()
			if err != nil {
				return nil, err
			}
			line += strings.TrimLeft(more, " \t\f")
		}
		key, value := splitProperty(line)
		k, err := unescapeProperty(key)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", first, err)
		}
		v, err := unescapeProperty(value)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", first, err)
		}
		if k != "" {
			out[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d is longer than 1 MiB (%d bytes), the limit of a property line: not a text file?", lineNo+1, maxPropertyLine)
		}
		return nil, fmt.Errorf("line %d: %w", lineNo+1, err)
	}
	return out, nil
}

// checkText refuses what no property file holds: a NUL byte or bytes that
// are not UTF-8.
func checkText(line []byte) error {
	if bytes.IndexByte(line, 0) >= 0 {
		return errors.New("a NUL byte: not a text file")
	}
	if !utf8.Valid(line) {
		return errors.New("bytes that are not UTF-8 text: not a text file (save it as UTF-8)")
	}
	return nil
}

func endsWithContinuation(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitProperty splits a logical line at the first unescaped '=', ':' or
// white space, then skips white space and at most one '=' or ':'.
func splitProperty(line string) (key, value string) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	i = min(i, len(line))
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return line[:i], rest
}

// unescapeProperty resolves the escapes of the properties format.
func unescapeProperty(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
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
		case 'u':
			if i+5 > len(s) {
				return "", errors.New(`malformed \uXXXX escape`)
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", errors.New(`malformed \uXXXX escape`)
			}
			if n == 0 {
				return "", errors.New(`\u0000: a NUL character is not allowed`)
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
