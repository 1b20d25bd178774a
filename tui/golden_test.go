package tui

import (
	"bytes"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"benchtop/engine"
	"benchtop/themes"
	"benchtop/tui/common"
)

func init() {
	// Goldens hold text, not colours.
	lipgloss.SetColorProfile(termenv.Ascii)
}

func widthOf(s string) int { return common.Width(s) }

// screen runs the program on a fake run at w x h, presses keys once the
// run has finished, quits and returns the last screen drawn.
func screen(t *testing.T, w, h int, snaps []*engine.Snapshot, keys ...tea.KeyMsg) string {
	t.Helper()
	return screenWith(t, w, h, snaps, nil, keys...)
}

// screenWith is screen with the options changed by opt first.
func screenWith(t *testing.T, w, h int, snaps []*engine.Snapshot, opt func(*Options), keys ...tea.KeyMsg) string {
	t.Helper()
	ch := make(chan *engine.Snapshot, len(snaps))
	for _, s := range snaps {
		ch <- s
	}
	close(ch)
	th, _ := themes.Get("")
	opts := Options{Info: fakeInfo, Snapshots: ch, Control: &recorder{}, Interval: time.Second}
	if opt != nil {
		opt(&opts)
	}
	m := newModel(opts, th)
	// The program's timers are real: a notice the keys put up (w's, in
	// window_1m_120x40) is on the screen read after q however slow the
	// machine, not only within noticeFor of the key.
	m.noticeLife = time.Hour
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte("finished"))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	for _, k := range keys {
		tm.Send(k)
	}
	tm.Send(keyMsg("q"))
	fm, ok := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	if !ok {
		t.Fatal("final model is not a *Model")
	}
	return fm.frame
}

func TestGolden(t *testing.T) {
	run := fakeRun(40, 0)
	targeted := fakeRun(40, 1_200_000)
	cases := []struct {
		name  string
		w, h  int
		snaps []*engine.Snapshot
		keys  []tea.KeyMsg
	}{
		{"main_80x24", 80, 24, run, nil},
		{"main_120x40", 120, 40, run, nil},
		{"segments_80x24", 80, 24, run, []tea.KeyMsg{keyMsg("tab")}},
		{"segments_120x40", 120, 40, run, []tea.KeyMsg{keyMsg("tab")}},
		// i on the segments view: the 95 % intervals' margins in place of
		// p50 and p95, the table as wide as without them.
		{"segments_intervals_80x24", 80, 24, run, []tea.KeyMsg{keyMsg("tab"), keyMsg("i")}},
		{"segments_intervals_target_80x24", 80, 24, targeted, []tea.KeyMsg{keyMsg("tab"), keyMsg("i")}},
		{"target_120x40", 120, 40, targeted, nil},
		{"target_80x24", 80, 24, targeted, nil},
		{"window_1m_120x40", 120, 40, run, []tea.KeyMsg{keyMsg("w"), keyMsg("w"), keyMsg("w")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := screen(t, c.w, c.h, c.snaps, c.keys...)
			golden.RequireEqual(t, []byte(out))
		})
	}
}
