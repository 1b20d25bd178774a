package dynamodb

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// fileCredentials are the keys of a YCSB AWSCredentials.properties file.
type fileCredentials struct {
	AccessKey string
	SecretKey string
}

// readCredentialsFile reads a Java properties file with accessKey and
// secretKey, as YCSB's binding does (through the Java SDK's
// PropertiesCredentials). Errors name the file and the missing key, never a
// line of the file, which may hold the secret.
func readCredentialsFile(path string) (fileCredentials, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileCredentials{}, err
	}
	defer f.Close()
	props, err := parseJavaProperties(f)
	if err != nil {
		return fileCredentials{}, err
	}
	c := fileCredentials{
		AccessKey: strings.TrimSpace(props["accessKey"]),
		SecretKey: strings.TrimSpace(props["secretKey"]),
	}
	if c.AccessKey == "" || c.SecretKey == "" {
		return fileCredentials{}, errors.New("the file does not contain both accessKey and secretKey")
	}
	return c, nil
}

// parseJavaProperties reads the java.util.Properties text format: "key =
// value", "key: value" or "key value"; # and ! comment lines; a trailing
// backslash continues the line; \t \n \r \f \uXXXX and \<char> escapes. Keys
// are case-sensitive; a later key wins.
func parseJavaProperties(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		line := strings.TrimLeft(sc.Text(), " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		// Join continuation lines: an odd number of trailing backslashes.
		for endsWithContinuation(line) {
			line = line[:len(line)-1]
			if !sc.Scan() {
				break
			}
			lineNo++
			line += strings.TrimLeft(sc.Text(), " \t\f")
		}
		key, value := splitProperty(line)
		k, err := unescapeProperty(key)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		v, err := unescapeProperty(value)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", lineNo, err)
		}
		out[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
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
	if i > len(line) {
		i = len(line)
	}
	key = line[:i]
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	return key, rest
}

// unescapeProperty resolves the escapes of the properties format. Errors
// say what is wrong, never the text (it may be a secret).
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
			b.WriteRune(rune(n))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}
