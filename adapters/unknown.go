package adapters

import (
	"fmt"
	"sort"
	"strings"
)

// UnknownWarnings returns one warning for each property under claimed
// (names ending in '.' are prefixes such as "redis.", others exact names
// such as "batchsize") that is not in known, sorted by key:
//
//	warning: unknown property "redis.adress" ignored (did you mean redis.addr?)
//
// The hint names the closest known property when one is close (Suggest).
// The engine calls it with a Driver's Prefixes and Keys (and a workload
// Factory's) before it opens anything.
func UnknownWarnings(props map[string]string, claimed []string, known []string) []string {
	isKnown := make(map[string]bool, len(known))
	for _, k := range known {
		isKnown[k] = true
	}
	var keys []string
	for k := range props {
		if !isKnown[k] && Claims(claimed, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	warns := make([]string, 0, len(keys))
	for _, k := range keys {
		warns = append(warns, UnknownWarning(k, known))
	}
	return warns
}

// UnknownKeyError returns a *ConfigError for the first (in sort order)
// property under claimed that is not in known, naming the close match
// when there is one and listing the known names under claimed; nil when
// there is none.
// Adapters that refuse unknown names (Driver.StrictKeys) return it.
func UnknownKeyError(props map[string]string, claimed []string, known []string) error {
	isKnown := make(map[string]bool, len(known))
	for _, k := range known {
		isKnown[k] = true
	}
	first := ""
	for k := range props {
		if !isKnown[k] && Claims(claimed, k) && (first == "" || k < first) {
			first = k
		}
	}
	if first == "" {
		return nil
	}
	allowed := "a known property"
	if m := Suggest(first, known); m != "" {
		allowed += " (did you mean " + m + "?)"
	}
	var names []string // the known names under claimed
	for _, k := range known {
		if Claims(claimed, k) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	return &ConfigError{Key: first, Value: props[first], Allowed: allowed + ": " + strings.Join(names, ", ")}
}

// UnknownWarning is the warning for one unknown property key, with a hint
// from known when one is close.
func UnknownWarning(key string, known []string) string {
	w := fmt.Sprintf("warning: unknown property %q ignored", key)
	if s := Suggest(key, known); s != "" {
		w += " (did you mean " + s + "?)"
	}
	return w
}

// Claims reports whether key falls under claimed: a prefix ending in '.'
// it starts with, or a name it equals.
func Claims(claimed []string, key string) bool {
	for _, c := range claimed {
		if c == "" {
			continue
		}
		if strings.HasSuffix(c, ".") {
			if strings.HasPrefix(key, c) {
				return true
			}
		} else if key == c {
			return true
		}
	}
	return false
}

// Suggest returns the name in known closest to key, or "" when none is
// close. Names are compared without case and without their first
// dot-separated part when they have more than one ("redis.adress" is
// compared as "adress", so "memory.partitions" finds "partitions"). A name
// is close when its edit distance (Levenshtein) is at most 2, or a third
// of the longer name, or when the two share a subsequence of at least 3
// characters covering 70 % of the shorter one (so that "adress" finds the
// abbreviation "addr"), or when the shorter one is an abbreviation of the
// other (its letters in order, the first one shared: "db" and
// "database"). The closest wins, a name that starts the other
// counting as one edit away ("pool" for "poolsize"); ties go to the smaller distance over the whole
// name, then to the first in sort order.
//
// Hand-written rather than a library: 40 lines, and the packages that
// offer it carry much more than this.
func Suggest(key string, known []string) string {
	t := strings.ToLower(key)
	ts := stem(t)
	best, bestD, bestFull := "", 0, 0
	for _, k := range known {
		if k == key {
			continue
		}
		c := strings.ToLower(k)
		cs := stem(c)
		d := levenshtein(ts, cs)
		if !isClose(ts, cs, d) {
			continue
		}
		if d > 1 && (strings.HasPrefix(cs, ts) || strings.HasPrefix(ts, cs)) {
			d = 1 // a name cut short ("pool" for "poolsize") is a near miss
		}
		full := levenshtein(t, c)
		if best == "" || d < bestD || (d == bestD && (full < bestFull || (full == bestFull && k < best))) {
			best, bestD, bestFull = k, d, full
		}
	}
	return best
}

func stem(s string) string {
	if i := strings.IndexByte(s, '.'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}

func isClose(a, b string, d int) bool {
	la, lb := len([]rune(a)), len([]rune(b))
	long, short := max(la, lb), min(la, lb)
	if d <= 2 && d < long || d*3 <= long {
		return short > 0
	}
	l := lcs(a, b)
	if l == short && short >= 2 && a[0] == b[0] {
		return true // an abbreviation: "db" for "database"
	}
	return l >= 3 && l*10 >= short*7
}

// levenshtein is the edit distance (insertions, deletions and
// substitutions of runes) between a and b.
func levenshtein(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			sub := prev[j-1]
			if ra[i-1] != rb[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// lcs is the length of the longest common subsequence of a and b.
func lcs(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			if ra[i-1] == rb[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
