package adapters

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// A file that is not Java-properties text is refused with the line where
// it goes wrong, never parsed into junk properties.
func TestParsePropertiesRefusesBinary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.UintN(256))
	}
	long := "recordcount=1\nfieldcount=2\nx=" + strings.Repeat("a", maxPropertyLine) + "\n"
	cases := []struct {
		name string
		in   string
		want []string
	}{
		{"random bytes", string(random), []string{"line ", "not a text file"}},
		{"NUL on line 2", "a=1\nb=\x00\n", []string{"line 2", "NUL"}},
		{"invalid UTF-8 on line 3", "a=1\n# ok\nb=caf\xe9\n", []string{"line 3", "UTF-8"}},
		{"invalid UTF-8 in a comment", "# caf\xe9\na=1\n", []string{"line 1", "UTF-8"}},
		{"NUL through an escape", "a=x\\u0000y\n", []string{"line 1", "NUL"}},
		{"line too long", long, []string{"line 3", "longer than", "1 MiB"}},
		{"all zeros", strings.Repeat("\x00", 2<<20), []string{"line 1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParseProperties(strings.NewReader(c.in))
			if err == nil {
				t.Fatalf("accepted, %d properties", len(p))
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if strings.ContainsAny(err.Error(), "\x00\n") || !isPrintable(err.Error()) {
				t.Errorf("error carries the file's bytes: %q", err)
			}
		})
	}
}

func isPrintable(s string) bool {
	for _, r := range s {
		if r < 0x20 || r == 0x7f || r == '\uFFFD' {
			return false
		}
	}
	return true
}

func TestParsePropertiesText(t *testing.T) {
	in := "\ufeff# café\nname=naïve ✓\r\nlong=a\\\n   b\nu=\\u00e9\n"
	p, err := ParseProperties(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"name": "naïve ✓", "long": "ab", "u": "é"}
	if len(p) != len(want) {
		t.Errorf("got %v, want %v", p, want)
	}
	for k, v := range want {
		if p[k] != v {
			t.Errorf("%s = %q, want %q", k, p[k], v)
		}
	}
}
