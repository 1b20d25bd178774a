package tui

import (
	"strings"
	"testing"
)

// Every key a user needs shows at the foot of the screen, at 80x24 as at
// 120x40 (in shorter words where the long ones do not fit on two lines),
// and the full help keeps all three of its columns at 80x24: the keys of
// the third (tab, w, i, c, the arrows, ?, q) are not dropped.
func TestEveryKeyFits(t *testing.T) {
	run := running(fakeRun(40, 0))
	for _, size := range [][2]int{{80, 24}, {120, 40}, {100, 30}} {
		m, _ := frameAfter(t, size[0], size[1], run, nil)
		lines := strings.Split(m.frame, "\n")
		foot := strings.Join(lines[len(lines)-2:], "\n")
		for _, k := range []string{"+/- ", "]/[ ", "t/T ", ": ", "space ", "m mark", "r ", "tab ", "s save", "c theme", "w window", "? help", "q quit"} {
			if !strings.Contains(foot, " "+k) {
				t.Errorf("%dx%d: the foot lacks %q:\n%s", size[0], size[1], k, foot)
			}
		}
		if strings.Contains(foot, "…") {
			t.Errorf("%dx%d: the foot is cut:\n%s", size[0], size[1], foot)
		}
		press(m, "?")
		for _, k := range []string{"+/- threads", "}/{ partitions", "t/T target", "0   target unlimited", "space pause/resume", "m     mark",
			"r     new segment", "s     save report", "tab segments", "w   chart window", "i   latency; segments ±", "c   next theme",
			"↑/↓ scroll segments", "?   help", "q   quit"} {
			if !strings.Contains(m.frame, k) {
				t.Errorf("%dx%d: the full help lacks %q:\n%s", size[0], size[1], k, m.frame)
			}
		}
	}
}
