package doccheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoRoot is the folder of go.mod above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = up
	}
}

// TestRepositoryLinks is the check CI runs: every relative link and
// anchor of README.md and docs/ resolves, and every docs/ page can be
// reached from the README.
func TestRepositoryLinks(t *testing.T) {
	root := repoRoot(t)
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 {
		t.Fatalf("found %v: expected README.md and the docs/ pages", files)
	}
	c := NewChecker(root)
	broken, err := c.Check(files)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range broken {
		t.Errorf("broken link: %s", b)
	}
	unreached, err := c.Unreached("README.md", files)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range unreached {
		t.Errorf("%s: no link leads to this page from README.md", f)
	}
}

// TestCheckerReportsBrokenLinks runs the checker on a small tree with a
// missing file, a missing heading, a missing image, a missing anchor in
// another page, a link out of the tree and a page nothing links to, beside
// links that are good (duplicate headings, code spans in headings,
// reference links, folders, external links, links in code): exactly the
// broken ones must be reported, at their lines.
func TestCheckerReportsBrokenLinks(t *testing.T) {
	root := filepath.Join("testdata", "broken")
	files, err := Files(root)
	if err != nil {
		t.Fatal(err)
	}
	c := NewChecker(root)
	broken, err := c.Check(files)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range broken {
		got = append(got, b.String())
	}
	want := []string{
		"README.md:9: docs/missing.md: no such file: docs/missing.md",
		"README.md:11: docs/page.md#no-such-heading: no heading with anchor #no-such-heading in docs/page.md",
		"README.md:15: docs/missing.png: no such file: docs/missing.png",
		"docs/page.md:5: ../README.md#missing: no heading with anchor #missing in README.md",
		"docs/page.md:15: ../../outside.md: outside the repository",
	}
	if !slices.Equal(got, want) {
		t.Errorf("broken links:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	unreached, err := c.Unreached("README.md", files)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"docs/orphan.md"}; !slices.Equal(unreached, want) {
		t.Errorf("unreached pages %v, want %v", unreached, want)
	}
}

// TestSlug checks the anchors GitHub gives headings, taken from headings
// whose anchors GitHub rendered.
func TestSlug(t *testing.T) {
	cases := map[string]string{
		"Two commands":                                  "two-commands",
		"Exact values: the : prompt":                    "exact-values-the--prompt",
		"Latency, honestly":                             "latency-honestly",
		"Measured: InfluxDB 1.6 on 2026-12-01":          "measured-influxdb-16-on-2026-12-01",
		"The reproduction: scripts/reproduce-tunnel.sh": "the-reproduction-scriptsreproduce-tunnelsh",
		"DynamoDB API: Amazon DynamoDB, ScyllaDB Alternator, dynalite (dynamodb)": "dynamodb-api-amazon-dynamodb-scylladb-alternator-dynalite-dynamodb",
		"The adapters' client cost per operation":                                 "the-adapters-client-cost-per-operation",
		"snake_case and UPPER":                                                    "snake_case-and-upper",
		"Ünïcode stays, ★ goes":                                                   "ünïcode-stays--goes",
	}
	for in, want := range cases {
		if got := Slug(in); got != want {
			t.Errorf("Slug(%q) = %q, want %q", in, got, want)
		}
	}
	s := slugger{}
	var got []string
	for _, h := range []string{"Tests", "Tests", "Tests-1", "Tests"} {
		got = append(got, s.slug(h))
	}
	// github-slugger: the third heading's own slug "tests-1" is taken by
	// the second, so it becomes "tests-1-1"; the fourth gets "tests-2".
	if want := []string{"tests", "tests-1", "tests-1-1", "tests-2"}; !slices.Equal(got, want) {
		t.Errorf("duplicate headings: %v, want %v", got, want)
	}
}
