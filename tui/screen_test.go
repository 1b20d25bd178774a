package tui

import (
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/golden"

	"benchtop/engine"
	"benchtop/themes"
)

// frameAfter feeds a model the snapshots at w x h, then types keys (each
// a key name or, with a leading "type:", text), and returns the screen:
// for screens that stay open, such as the prompt, where quitting would
// close what is to be seen.
func frameAfter(t *testing.T, w, h int, snaps []*engine.Snapshot, opt func(*Options), keys ...string) (*Model, *recorder) {
	t.Helper()
	rec := &recorder{}
	th, _ := themes.Get("")
	opts := Options{Info: fakeInfo, Control: rec, Interval: time.Second}
	if opt != nil {
		opt(&opts)
	}
	m := newModel(opts, th)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	for _, s := range snaps {
		m.Update(snapshotMsg{s})
	}
	for _, k := range keys {
		if text, ok := strings.CutPrefix(k, "type:"); ok {
			for _, r := range text {
				press(m, string(r))
			}
			continue
		}
		if k == "enter" {
			_, cmd := m.Update(tea.KeyMsg{Type: tea.KeyEnter})
			for _, msg := range runCmd(cmd) {
				m.Update(msg)
			}
			continue
		}
		press(m, k)
	}
	return m, rec
}

// running drops the final snapshot: a run still going on.
func running(snaps []*engine.Snapshot) []*engine.Snapshot {
	out := append([]*engine.Snapshot(nil), snaps...)
	last := *out[len(out)-1]
	last.Done = false
	out[len(out)-1] = &last
	return out
}

func TestGoldenNewScreens(t *testing.T) {
	run := running(fakeRun(40, 0))
	targeted := running(fakeRun(40, 1_200_000))
	viewer := func(o *Options) {
		o.Remote, o.ReadOnly = true, true
		o.Viewers = func() int { return 3 }
	}
	cases := []struct {
		name  string
		snaps []*engine.Snapshot
		opt   func(*Options)
		keys  []string
	}{
		{"prompt_typing", run, nil, []string{":", "type:target 120k"}},
		{"prompt_error", run, nil, []string{":", "type:threads 5000"}},
		{"viewer", run, viewer, nil},
		{"viewer_refused", run, viewer, []string{"+"}},
		{"segments_target", targeted, nil, []string{"tab"}},
		{"demo_caption", run, func(o *Options) { o.Demo = demoFor(run) }, nil},
		{"help", run, nil, []string{"?"}},
	}
	for _, c := range cases {
		for _, size := range [][2]int{{80, 24}, {120, 40}} {
			name := c.name + "_" + itoa(size[0]) + "x" + itoa(size[1])
			t.Run(name, func(t *testing.T) {
				m, _ := frameAfter(t, size[0], size[1], c.snaps, c.opt, c.keys...)
				for i, l := range strings.Split(m.frame, "\n") {
					if w := widthOf(l); w != size[0] {
						t.Fatalf("line %d is %d wide, want %d", i, w, size[0])
					}
				}
				golden.RequireEqual(t, []byte(m.frame))
			})
		}
	}
}

// demoFor is a demo script matching the fake run's changes.
func demoFor([]*engine.Snapshot) []DemoStep {
	return []DemoStep{
		{Kind: "start", Caption: "2 threads: the baseline"},
		{Kind: "threads", To: "4", Caption: "threads 2 → 4"},
		{Kind: "threads", To: "8", Caption: "threads 4 → 8: more threads than cores"},
		{Kind: "partitions", To: "8", Caption: "partitions 1 → 8"},
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// The demo ends on a card with the segments table.
func TestGoldenDemoEndCard(t *testing.T) {
	run := fakeRun(40, 0)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(itoa(size[0])+"x"+itoa(size[1]), func(t *testing.T) {
			out := screenWith(t, size[0], size[1], run, func(o *Options) { o.Demo = demoFor(run) })
			if !strings.Contains(out, "That was the demo.") || !strings.Contains(out, "★ best") {
				t.Errorf("no end card with the segments:\n%s", out)
			}
			golden.RequireEqual(t, []byte(out))
		})
	}
}

// streamRun is a stream run's snapshots: rows consumed, two segments with
// the workload's own figures.
func streamRun() []*engine.Snapshot {
	run := running(fakeRun(25, 0))
	for i, s := range run {
		c := *s
		c.Workload = &engine.WorkloadView{Rate: &engine.WorkloadRate{Name: "Consumed", Unit: "rows/s", Value: 2.2e6, Mean: 2.1e6, MBps: 484}}
		var segs []engine.Segment
		for _, g := range c.Segments {
			g.Extra = map[string]float64{"rows_per_sec": 2.4e6, "mb_per_sec": 528}
			segs = append(segs, g)
		}
		c.Segments = segs
		run[i] = &c
	}
	return run
}

func TestGoldenStream(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(itoa(size[0])+"x"+itoa(size[1]), func(t *testing.T) {
			m, _ := frameAfter(t, size[0], size[1], streamRun(), nil, "tab")
			if size[0] == 120 {
				for _, want := range []string{"rows/s", "MB/s", "★ best", "← knee"} {
					if !strings.Contains(m.frame, want) {
						t.Errorf("segments lack %q:\n%s", want, m.frame)
					}
				}
			}
			if strings.Contains(m.frame, "_per_sec") || strings.Contains(m.frame, "µ ") || strings.Contains(m.frame, "µ│") {
				t.Errorf("raw figure names or cut latency values:\n%s", m.frame)
			}
			golden.RequireEqual(t, []byte(m.frame))
		})
	}
}
