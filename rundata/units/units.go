// Package units formats numbers for people, the same way in reports, status
// lines and on the screen. It imports nothing of benchtop, so that every
// package (workloads included) can use it.
package units

import (
	"strconv"
	"strings"
)

// Count renders n with thousands separators: 1,284,511.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i := 0; i < len(s); i++ {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
