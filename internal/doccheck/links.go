package doccheck

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Broken is one link that does not resolve.
type Broken struct {
	File   string // slash-separated, relative to the checked root
	Line   int    // 1-based
	Target string // the link's destination as written
	Reason string
}

func (b Broken) String() string {
	return fmt.Sprintf("%s:%d: %s: %s", b.File, b.Line, b.Target, b.Reason)
}

// link is one link or image of a page, destination as written.
type link struct {
	line int
	dest string
}

// page is one parsed Markdown file.
type page struct {
	links   []link
	anchors map[string]bool
}

var md = goldmark.New(goldmark.WithExtensions(extension.Table))

// parse reads the links and heading anchors of one Markdown source.
func parse(src []byte) *page {
	doc := md.Parser().Parse(text.NewReader(src))
	p := &page{anchors: map[string]bool{}}
	slugs := slugger{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			var b strings.Builder
			headingText(&b, n, src)
			p.anchors[slugs.slug(b.String())] = true
		case *ast.Link:
			p.links = append(p.links, link{line: lineOf(src, n), dest: string(n.Destination)})
		case *ast.Image:
			p.links = append(p.links, link{line: lineOf(src, n), dest: string(n.Destination)})
		}
		return ast.WalkContinue, nil
	})
	return p
}

// headingText writes the text GitHub makes a heading's anchor from: the
// text of its inline content, code spans and link texts included, markup
// and images left out.
func headingText(b *strings.Builder, n ast.Node, src []byte) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Value(src))
			if c.SoftLineBreak() || c.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.AutoLink:
			b.Write(c.Label(src))
		case *ast.RawHTML, *ast.Image:
			// tags are not text; an image's alt text is not either
		default:
			headingText(b, c, src)
		}
	}
}

// lineOf is the 1-based line of n in src: its own position when the parser
// kept one, else that of its first text, else that of the nearest block.
func lineOf(src []byte, n ast.Node) int {
	off := -1
	if n.Pos() >= 0 {
		off = n.Pos()
	}
	if off < 0 {
		_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
			if t, ok := c.(*ast.Text); entering && ok {
				off = t.Segment.Start
				return ast.WalkStop, nil
			}
			return ast.WalkContinue, nil
		})
	}
	for b := n; off < 0 && b != nil; b = b.Parent() {
		if b.Type() == ast.TypeBlock && b.Lines().Len() > 0 {
			off = b.Lines().At(0).Start
		}
	}
	if off < 0 {
		return 0
	}
	return bytes.Count(src[:min(off, len(src))], []byte("\n")) + 1
}

// slugger makes GitHub's heading anchors, duplicates numbered as GitHub
// numbers them (github-slugger): "a", "a-1", "a-2".
type slugger map[string]int

func (s slugger) slug(heading string) string {
	base := Slug(heading)
	slug := base
	for {
		if _, taken := s[slug]; !taken {
			break
		}
		s[base]++
		slug = base + "-" + strconv.Itoa(s[base])
	}
	s[slug] = 0
	return slug
}

// Slug is the anchor GitHub gives a heading of this text: lower case,
// every character but letters, marks, digits, connector punctuation (_),
// '-' and ' ' removed, then each space made a '-'.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-', unicode.IsLetter(r), unicode.IsMark(r), unicode.IsNumber(r), unicode.Is(unicode.Pc, r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var scheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:`)

// Checker checks the links of Markdown files under one root.
type Checker struct {
	root  string
	pages map[string]*page // by slash path relative to root
}

// NewChecker makes a checker of the Markdown files under root.
func NewChecker(root string) *Checker {
	return &Checker{root: root, pages: map[string]*page{}}
}

// load parses the Markdown file at rel (slash path), once.
func (c *Checker) load(rel string) (*page, error) {
	if p, ok := c.pages[rel]; ok {
		return p, nil
	}
	src, err := os.ReadFile(filepath.Join(c.root, filepath.FromSlash(rel)))
	if err != nil {
		return nil, fmt.Errorf("doccheck: %w", err)
	}
	p := parse(src)
	c.pages[rel] = p
	return p, nil
}

// resolve turns a link's destination in file from into the slash path it
// names (relative to root) and its fragment; external is true for a link
// with a scheme or a host, which is not checked.
func resolve(from, dest string) (target, frag string, external bool, err error) {
	if scheme.MatchString(dest) || strings.HasPrefix(dest, "//") {
		return "", "", true, nil
	}
	u, err := url.Parse(dest)
	if err != nil {
		return "", "", false, fmt.Errorf("not a URL: %w", err)
	}
	frag = u.Fragment
	switch {
	case u.Path == "":
		target = from
	case strings.HasPrefix(u.Path, "/"):
		target = path.Clean(strings.TrimPrefix(u.Path, "/"))
	default:
		target = path.Join(path.Dir(from), u.Path)
	}
	if target == ".." || strings.HasPrefix(target, "../") {
		return "", "", false, fmt.Errorf("outside the repository")
	}
	return target, frag, false, nil
}

// Check checks every link of the given files (slash paths relative to
// the root) and returns the broken ones, in file and line order.
func (c *Checker) Check(files []string) ([]Broken, error) {
	var broken []Broken
	for _, f := range files {
		p, err := c.load(f)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links {
			bad := func(reason string) {
				broken = append(broken, Broken{File: f, Line: l.line, Target: l.dest, Reason: reason})
			}
			target, frag, external, err := resolve(f, l.dest)
			switch {
			case err != nil:
				bad(err.Error())
				continue
			case external:
				continue
			}
			info, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(target)))
			if err != nil {
				bad("no such file: " + target)
				continue
			}
			if frag == "" || info.IsDir() || !strings.HasSuffix(target, ".md") {
				// A fragment of a folder or of a file GitHub does not
				// render as Markdown (a line, #L10) is not a heading.
				continue
			}
			tp, err := c.load(target)
			if err != nil {
				return nil, err
			}
			if !tp.anchors[frag] {
				bad("no heading with anchor #" + frag + " in " + target)
			}
		}
	}
	sort.SliceStable(broken, func(i, j int) bool {
		if broken[i].File != broken[j].File {
			return broken[i].File < broken[j].File
		}
		return broken[i].Line < broken[j].Line
	})
	return broken, nil
}

// Unreached returns the pages of files that cannot be reached from start
// by following relative links to Markdown files, or to folders (their
// README.md); start itself is reached.
func (c *Checker) Unreached(start string, files []string) ([]string, error) {
	seen := map[string]bool{start: true}
	queue := []string{start}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		p, err := c.load(f)
		if err != nil {
			return nil, err
		}
		for _, l := range p.links {
			target, _, external, err := resolve(f, l.dest)
			if err != nil || external {
				continue
			}
			info, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(target)))
			if err != nil {
				continue // reported by Check
			}
			if info.IsDir() {
				// GitHub shows a folder's README.md on the folder's page.
				target = path.Join(target, "README.md")
				if _, err := os.Stat(filepath.Join(c.root, filepath.FromSlash(target))); err != nil {
					continue
				}
			}
			if seen[target] || !strings.HasSuffix(target, ".md") {
				continue
			}
			seen[target] = true
			queue = append(queue, target)
		}
	}
	var out []string
	for _, f := range files {
		if !seen[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

// Files lists README.md and every .md file under docs/ of root, as slash
// paths relative to root.
func Files(root string) ([]string, error) {
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("doccheck: list docs: %w", err)
	}
	return files, nil
}
