package tui

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"benchtop/engine"
	"benchtop/themes"
)

// Timers are recognised by their code: every command made by the same
// function literal has the same code, whatever it captured.
var (
	// tickCode is the code of the commands tea.Tick makes, which wait
	// seconds for a timer (the notice and stop timeouts).
	tickCode = reflect.ValueOf(tea.Tick(time.Hour, func(time.Time) tea.Msg { return nil })).Pointer()
	// blinkCode is the code of the commands a text input's cursor makes
	// after each key (cursor.Model.BlinkCmd), which wait its blink speed
	// (0.53 s) before the cursor blinks: the prompt's.
	blinkCode = func() uintptr {
		c := cursor.New()
		return reflect.ValueOf(c.BlinkCmd()).Pointer()
	}()
)

// isTimer tells whether cmd only waits for a timer before its message.
func isTimer(cmd tea.Cmd) bool {
	code := reflect.ValueOf(cmd).Pointer()
	return code == tickCode || code == blinkCode
}

// runCmd executes cmd as bubbletea would and returns the messages it
// produced. Timers (tea.Tick: the notice and stop timeouts, seconds long;
// the prompt cursor's blink, half a second after every key typed) are
// left out: their messages come later than anything a test looks at.
// They are recognised by their code rather than by how long they take,
// so that a command slowed down by a busy machine is still run to its
// end.
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil || isTimer(cmd) {
		return nil
	}
	ch := make(chan tea.Msg, 1)
	go func() { ch <- cmd() }()
	select {
	case msg := <-ch:
		if batch, ok := msg.(tea.BatchMsg); ok {
			var out []tea.Msg
			for _, c := range batch {
				out = append(out, runCmd(c)...)
			}
			return out
		}
		return []tea.Msg{msg}
	case <-time.After(30 * time.Second):
		panic("a command that is not a timer did not return within 30 s")
	}
}

func keyMsg(k string) tea.KeyMsg {
	switch k {
	case " ":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "ctrl+c":
		return tea.KeyMsg{Type: tea.KeyCtrlC}
	case "tab":
		return tea.KeyMsg{Type: tea.KeyTab}
	case "esc":
		return tea.KeyMsg{Type: tea.KeyEsc}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
}

// press sends key k to m, runs what it asks for and feeds the results
// back, as the program would.
func press(m *Model, k string) {
	_, cmd := m.Update(keyMsg(k))
	for _, msg := range runCmd(cmd) {
		if _, ok := msg.(tea.QuitMsg); ok {
			continue
		}
		m.Update(msg)
	}
}

// testModel is a model on an 80x24 screen that has seen one snapshot.
func testModel(t *testing.T, info engine.Info, snap *engine.Snapshot) (*Model, *recorder) {
	t.Helper()
	rec := &recorder{}
	th, _ := themes.Get("")
	m := newModel(Options{Info: info, Control: rec, Interval: time.Second}, th)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if snap != nil {
		m.Update(snapshotMsg{snap})
	}
	return m, rec
}

func snapWith(threads, partitions int, target, rate float64) *engine.Snapshot {
	s := &engine.Snapshot{Seq: 1, Elapsed: time.Second, Interval: time.Second, Phase: engine.PhaseRun,
		Progress: -1, Threads: threads, Partitions: partitions, Target: target}
	s.Total.Interval.Rate = rate
	return s
}

func TestKeysCallTheController(t *testing.T) {
	cases := []struct {
		name   string
		snap   *engine.Snapshot
		keys   []string
		want   []string
		notice string // a substring of the notice, if one is expected
	}{
		{"plus", snapWith(16, 8, 0, 1000), []string{"+"}, []string{"SetThreads(17)"}, ""},
		{"equals", snapWith(16, 8, 0, 1000), []string{"="}, []string{"SetThreads(17)"}, ""},
		{"minus", snapWith(16, 8, 0, 1000), []string{"-"}, []string{"SetThreads(15)"}, ""},
		{"double", snapWith(16, 8, 0, 1000), []string{">"}, []string{"SetThreads(32)"}, ""},
		{"halve", snapWith(16, 8, 0, 1000), []string{"<"}, []string{"SetThreads(8)"}, ""},
		{"plus twice before a snapshot", snapWith(16, 8, 0, 1000), []string{"+", "+"}, []string{"SetThreads(17)", "SetThreads(18)"}, ""},
		{"threads max", snapWith(4096, 8, 0, 1000), []string{">"}, nil, "threads already at 4096"},
		{"threads double clamps", snapWith(3000, 8, 0, 1000), []string{">"}, []string{"SetThreads(4096)"}, ""},
		{"threads min", snapWith(1, 8, 0, 1000), []string{"-"}, nil, "threads already at 1"},
		{"partitions up", snapWith(16, 8, 0, 1000), []string{"]"}, []string{"SetPartitions(9)"}, ""},
		{"partitions down", snapWith(16, 8, 0, 1000), []string{"["}, []string{"SetPartitions(7)"}, ""},
		{"partitions double", snapWith(16, 8, 0, 1000), []string{"}"}, []string{"SetPartitions(16)"}, ""},
		{"partitions halve", snapWith(16, 8, 0, 1000), []string{"{"}, []string{"SetPartitions(4)"}, ""},
		{"partitions max", snapWith(16, 1024, 0, 1000), []string{"}"}, nil, "partitions already at 1024"},
		{"target from unlimited starts at the achieved rate", snapWith(16, 8, 0, 1000), []string{"t"}, []string{"SetTarget(1000)"}, "target → 1.00K ops/s"},
		{"target from unlimited, then up", snapWith(16, 8, 0, 1000), []string{"t", "t"}, []string{"SetTarget(1000)", "SetTarget(1250)"}, "target → 1.25K ops/s"},
		{"target down from unlimited", snapWith(16, 8, 0, 1000), []string{"T"}, []string{"SetTarget(750)"}, ""},
		{"target up", snapWith(16, 8, 2000, 1900), []string{"t"}, []string{"SetTarget(2500)"}, ""},
		{"target down", snapWith(16, 8, 2000, 1900), []string{"T"}, []string{"SetTarget(1500)"}, ""},
		{"target up twice", snapWith(16, 8, 2000, 1900), []string{"t", "t"}, []string{"SetTarget(2500)", "SetTarget(3125)"}, ""},
		{"target unlimited", snapWith(16, 8, 2000, 1900), []string{"0"}, []string{"SetTarget(0)"}, "unlimited"},
		{"target without a rate", snapWith(16, 8, 0, 0), []string{"t"}, nil, "no rate measured yet"},
		{"pause then resume", snapWith(16, 8, 0, 1000), []string{" ", " "}, []string{"Pause()", "Resume()"}, "resumed"},
		{"resume when paused", func() *engine.Snapshot { s := snapWith(16, 8, 0, 0); s.Paused = true; return s }(), []string{" "}, []string{"Resume()"}, ""},
		{"mark", snapWith(16, 8, 0, 1000), []string{"m", "m"}, []string{`Mark("mark 1")`, `Mark("mark 2")`}, "mark 2"},
		{"new segment", snapWith(16, 8, 0, 1000), []string{"r"}, []string{"NewSegment()"}, "new segment"},
		{"quit", snapWith(16, 8, 0, 1000), []string{"q"}, []string{"Stop()"}, ""},
		{"ctrl+c", snapWith(16, 8, 0, 1000), []string{"ctrl+c"}, []string{"Stop()"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m, rec := testModel(t, fakeInfo, c.snap)
			for _, k := range c.keys {
				press(m, k)
			}
			got := rec.Calls()
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("keys %q: calls %v, want %v", c.keys, got, c.want)
			}
			if c.notice != "" && !strings.Contains(m.notice, c.notice) {
				t.Errorf("keys %q: notice %q, want it to contain %q", c.keys, m.notice, c.notice)
			}
			if c.notice != "" && !strings.Contains(m.frame, c.notice) {
				t.Errorf("keys %q: the notice %q is not on screen:\n%s", c.keys, c.notice, m.frame)
			}
		})
	}
}

func TestNoStepBeforeTheFirstSnapshot(t *testing.T) {
	m, rec := testModel(t, fakeInfo, nil)
	for _, k := range []string{"+", "-", ">", "<", "]", "[", "}", "{", "t", "T"} {
		press(m, k)
	}
	if calls := rec.Calls(); len(calls) != 0 {
		t.Errorf("calls before the first snapshot: %v", calls)
	}
	if !strings.Contains(m.frame, "waiting for the first interval") {
		t.Errorf("no notice:\n%s", m.frame)
	}
	press(m, "0")
	press(m, "m")
	if got := strings.Join(rec.Calls(), " "); got != `SetTarget(0) Mark("mark 1")` {
		t.Errorf("calls %s", got)
	}
}

func TestPartitionsWithoutRepartition(t *testing.T) {
	info := fakeInfo
	info.CanRepartition = false
	for _, k := range []string{"]", "[", "}", "{"} {
		m, rec := testModel(t, info, snapWith(16, 8, 0, 1000))
		press(m, k)
		if calls := rec.Calls(); len(calls) != 0 {
			t.Errorf("%s: calls %v, want none", k, calls)
		}
		if !strings.Contains(m.notice, "cannot repartition") || !strings.Contains(m.frame, "cannot repartition") {
			t.Errorf("%s: notice %q; frame:\n%s", k, m.notice, m.frame)
		}
	}
}

func TestControlErrorIsShown(t *testing.T) {
	m, rec := testModel(t, fakeInfo, snapWith(16, 8, 0, 1000))
	rec.fail = errors.New("the pool is closing")
	press(m, "+")
	if !strings.Contains(m.frame, "threads: the pool is closing") {
		t.Errorf("error not shown; notice %q", m.notice)
	}
	if m.threads.set {
		t.Error("a refused change stays pending")
	}
}

func TestPendingValueShowsUntilSeen(t *testing.T) {
	m, _ := testModel(t, fakeInfo, snapWith(16, 8, 0, 1000))
	press(m, "+")
	if !strings.Contains(m.frame, "Threads 16→17") {
		t.Errorf("pending threads not shown:\n%s", m.frame)
	}
	m.Update(snapshotMsg{snapWith(17, 8, 0, 1000)})
	if !strings.Contains(m.frame, "Threads 17 ") || strings.Contains(m.frame, "→17") {
		t.Errorf("threads 17 not shown plainly:\n%s", m.frame)
	}
}

func TestQuitWaitsForTheFinalSnapshot(t *testing.T) {
	m, rec := testModel(t, fakeInfo, snapWith(16, 8, 0, 1000))
	_, cmd := m.Update(keyMsg("q"))
	runCmd(cmd)
	if rec.last() != "Stop()" {
		t.Fatalf("calls %v, want Stop()", rec.Calls())
	}
	if !m.stopping || m.quitting {
		t.Fatal("q should wait for the end of the run, not quit at once")
	}
	if !strings.Contains(m.frame, "stopping") {
		t.Errorf("no stopping state on screen:\n%s", m.frame)
	}
	final := snapWith(16, 8, 0, 1000)
	final.Done = true
	m.Update(snapshotMsg{final})
	_, cmd = m.Update(closedMsg{})
	if msgs := runCmd(cmd); len(msgs) != 1 {
		t.Fatalf("closing gave %v, want quit", msgs)
	} else if _, ok := msgs[0].(tea.QuitMsg); !ok {
		t.Fatalf("closing gave %T, want tea.QuitMsg", msgs[0])
	}
}

func TestFinishedRunStaysOnScreen(t *testing.T) {
	m, rec := testModel(t, fakeInfo, snapWith(16, 8, 0, 1000))
	_, cmd := m.Update(closedMsg{})
	if cmd != nil {
		t.Fatal("a finished run should stay on screen")
	}
	if !strings.Contains(m.frame, "finished · q to quit") {
		t.Errorf("header does not say finished:\n%s", m.frame)
	}
	press(m, "+")
	if len(rec.Calls()) != 0 {
		t.Errorf("controls after the end: %v", rec.Calls())
	}
	_, cmd = m.Update(keyMsg("q"))
	if msgs := runCmd(cmd); len(msgs) != 1 {
		t.Fatalf("q after the end gave %v, want quit", msgs)
	}
	if len(rec.Calls()) != 0 {
		t.Errorf("q after the end called %v", rec.Calls())
	}
}

func TestSaveReport(t *testing.T) {
	m, _ := testModel(t, fakeInfo, snapWith(16, 8, 0, 1000))
	m.opts.SaveReport = func() (string, error) { return "/tmp/r.json", nil }
	press(m, "s")
	if !strings.Contains(m.frame, "report saved to /tmp/r.json") {
		t.Errorf("notice %q", m.notice)
	}
	m.opts.SaveReport = func() (string, error) { return "", errors.New("disk full") }
	press(m, "s")
	if !strings.Contains(m.frame, "save failed: disk full") {
		t.Errorf("notice %q", m.notice)
	}
}

func TestViewKeys(t *testing.T) {
	m, rec := testModel(t, fakeInfo, fakeRun(40, 0)[39])
	press(m, "tab")
	if !strings.Contains(m.frame, "Segments") || !strings.Contains(m.frame, "★ best") {
		t.Errorf("tab: no segments view:\n%s", m.frame)
	}
	press(m, "tab")
	if !strings.Contains(m.frame, "Throughput") {
		t.Errorf("tab twice: not back on the main view:\n%s", m.frame)
	}
	press(m, "?")
	if !strings.Contains(m.frame, "Keys") || !strings.Contains(m.frame, "new segment") {
		t.Errorf("?: no full help:\n%s", m.frame)
	}
	press(m, "esc")
	if strings.Contains(m.frame, "? or esc to close") {
		t.Error("esc did not close the help")
	}
	press(m, "w")
	if !strings.Contains(m.frame, "last 15m") {
		t.Errorf("w: window not 15m:\n%s", m.frame)
	}
	before := m.ctx.Styles.Theme.Name
	press(m, "c")
	if m.ctx.Styles.Theme.Name == before || !strings.Contains(m.notice, "theme") {
		t.Errorf("c: theme still %q", before)
	}
	if len(rec.Calls()) != 0 {
		t.Errorf("view keys called the controller: %v", rec.Calls())
	}
}

func TestSmallTerminal(t *testing.T) {
	m, _ := testModel(t, fakeInfo, snapWith(16, 8, 0, 1000))
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 20})
	if !strings.Contains(m.frame, "needs at least 80x24") {
		t.Errorf("no size message:\n%s", m.frame)
	}
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if !strings.Contains(m.frame, "Threads") {
		t.Errorf("no screen after growing back:\n%s", m.frame)
	}
}

// Every frame must be exactly as large as the screen, whatever the size,
// so that resizing never leaves garbage behind.
func TestFrameFitsEverySize(t *testing.T) {
	snaps := fakeRun(40, 0)
	tsnaps := fakeRun(40, 5_000_000)
	for _, run := range [][]*engine.Snapshot{nil, snaps[:1], snaps, tsnaps} {
		m, _ := testModel(t, fakeInfo, nil)
		for _, s := range run {
			m.Update(snapshotMsg{s})
		}
		for _, view := range []string{"main", "segments", "help"} {
			for w := 80; w <= 200; w += 7 {
				for h := 24; h <= 60; h += 5 {
					// The view first: the resize draws the frame, once.
					m.view, m.showHelp = viewMain, view == "help"
					if view == "segments" {
						m.view = viewSegments
					}
					m.Update(tea.WindowSizeMsg{Width: w, Height: h})
					lines := strings.Split(m.frame, "\n")
					if len(lines) != h {
						t.Fatalf("%s %dx%d: %d lines", view, w, h, len(lines))
					}
					for i, l := range lines {
						if n := widthOf(l); n != w {
							t.Fatalf("%s %dx%d: line %d is %d wide: %q", view, w, h, i, n, l)
						}
					}
				}
			}
		}
	}
}

// Drawing happens once per snapshot: it must stay far below the interval.
func BenchmarkRebuild(b *testing.B) {
	for _, size := range [][2]int{{80, 24}, {200, 60}} {
		b.Run(strconv.Itoa(size[0])+"x"+strconv.Itoa(size[1]), func(b *testing.B) {
			// Colours cost the most: measure with them.
			lipgloss.SetColorProfile(termenv.TrueColor)
			defer lipgloss.SetColorProfile(termenv.Ascii)
			th, _ := themes.Get("")
			m := newModel(Options{Info: fakeInfo, Control: &recorder{}, Interval: time.Second}, th)
			m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			for _, s := range fakeRun(40, 0) {
				m.Update(snapshotMsg{s})
			}
			for b.Loop() {
				m.rebuild()
			}
		})
	}
}

func TestHeaderStates(t *testing.T) {
	s := snapWith(4, 2, 0, 1000)
	s.Progress = -1
	s.Paused = true
	s.Elapsed = 74 * time.Second
	m, _ := testModel(t, fakeInfo, s)
	top := strings.Split(m.frame, "\n")[0]
	if !strings.Contains(top, "❚❚ paused") || !strings.Contains(top, "00:01:14") {
		t.Errorf("header: %q", top)
	}
	if strings.Contains(top, "%") {
		t.Errorf("unknown progress drew a bar: %q", top)
	}
	s2 := snapWith(4, 2, 0, 1000)
	s2.Progress = 0.5
	s2.Phase = engine.PhaseLoad
	m.Update(snapshotMsg{s2})
	top = strings.Split(m.frame, "\n")[0]
	if !strings.Contains(top, "load") || !strings.Contains(top, "50%") || !strings.Contains(top, "● running") {
		t.Errorf("header: %q", top)
	}
}

func TestErrorBurstAndWarnings(t *testing.T) {
	s := snapWith(4, 2, 0, 1000)
	s.Ops = []engine.OpSnapshot{{Name: "READ"}, {Name: "UPDATE"}}
	s.Ops[1].Interval.Errors = 7
	s.Ops[1].Interval.ErrorsByKind = map[string]int64{"timeout": 5, "refused": 2}
	s.Warnings = []string{"client CPU 98%: the client may be the bottleneck"}
	m, _ := testModel(t, fakeInfo, s)
	for _, want := range []string{"7 errors in the last interval: timeout 5, refused 2", "⚠ client CPU 98%"} {
		if !strings.Contains(m.frame, want) {
			t.Errorf("%q not on screen:\n%s", want, m.frame)
		}
	}
}
