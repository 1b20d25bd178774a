package metrics

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docs/metrics.md names every series, and no series that is not served.
func TestNamesDocumented(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	for _, n := range allNames {
		if !strings.Contains(doc, "`"+n+"`") {
			t.Errorf("%s is not in docs/metrics.md", n)
		}
	}
	for _, m := range regexp.MustCompile("`(benchtop_[a-z_]+)[`{]").FindAllStringSubmatch(doc, -1) {
		name := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(m[1], "_bucket"), "_count"), "_sum")
		if !slices.Contains(allNames, name) {
			t.Errorf("docs/metrics.md names %s, which is not served", m[1])
		}
	}
}
