package sqlbase

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// URLWarnings are the warning lines of the parameters of a jdbc: db.url
// (YCSB's form) that a SQL adapter accepts but does not honour as the
// JDBC driver does: unhonoured maps each such name to what benchtop does
// instead. Nothing for another form of URL, or one that does not parse
// (its error is told when the adapter opens).
func URLWarnings(raw string, unhonoured map[string]string) []string {
	if len(raw) <= 5 || !strings.EqualFold(raw[:5], "jdbc:") {
		return nil
	}
	u, err := url.Parse(raw[5:])
	if err != nil {
		return nil
	}
	q := u.Query()
	var names []string
	for k := range q {
		if _, ok := unhonoured[k]; ok {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var out []string
	for _, k := range names {
		out = append(out, fmt.Sprintf("warning: db.url's %s=%s has no effect: %s", k, q.Get(k), unhonoured[k]))
	}
	return out
}
