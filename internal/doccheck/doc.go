// Package doccheck checks the project's Markdown: that every relative link
// in README.md and docs/ names a file that exists, that every #anchor names
// a heading of its target page as GitHub renders it, and that every docs/
// page can be reached from the README. Its test runs the check on the
// repository, so that CI fails on a broken link.
//
// The Markdown is parsed with goldmark (CommonMark with GitHub's tables),
// not matched with regular expressions, so that links inside code blocks
// and code spans are not taken for links, and reference-style links are
// resolved as GitHub resolves them. External links (a scheme such as https:
// or mailto:) are not fetched.
package doccheck
