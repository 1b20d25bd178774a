package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"benchtop/engine"
	"benchtop/themes"
	"benchtop/tui/common"
	"benchtop/tui/components/agents"
	"benchtop/tui/components/errpanel"
	"benchtop/tui/components/header"
	"benchtop/tui/components/hostpanel"
	"benchtop/tui/components/latency"
	"benchtop/tui/components/opstable"
	"benchtop/tui/components/partitions"
	"benchtop/tui/components/prompt"
	"benchtop/tui/components/segments"
	"benchtop/tui/components/throughput"
	"benchtop/tui/history"
)

// Every component keeps the contract of common.Component: after SetSize(w,
// h) and a drawing, View is exactly h lines of exactly w cells, at the
// sizes the layout gives it, boxed and not.
func TestComponentsFillTheirSize(t *testing.T) {
	th, _ := themes.Get("")
	hist := history.New(time.Second)
	for _, s := range fakeRun(40, 50_000) {
		hist.Add(s)
	}
	rows := []engine.AgentRow{{Name: "a1", State: "running"}, {Name: "a2", State: "lost"}}
	stream := &engine.PartitionsView{Partitions: 3, Consumers: 3,
		Parts: []engine.PartitionView{{Index: 0, Active: true}, {Index: 1, Active: true}, {Index: 2, Active: true}}}

	for _, bordered := range []bool{true, false} {
		ctx := &common.Context{Styles: themes.NewStyles(th), Info: fakeInfo, Interval: time.Second, Bordered: bordered}
		pr := prompt.New(ctx, prompt.Limits{MaxThreads: MaxThreads, MaxPartitions: MaxPartitions})
		pr.Open()
		drawn := map[string]func(w, h int) string{
			"header": func(w, h int) string {
				c := header.New(ctx)
				c.SetSize(w, h)
				c.Render(hist, header.State{})
				return c.View()
			},
			"prompt": func(w, h int) string { pr.SetSize(w, h); return pr.View() },
			"agents": func(w, h int) string {
				return viewOf(ptr(agents.New(ctx)), rows, w, h)
			},
			"partitions": func(w, h int) string {
				return viewOf(ptr(partitions.New(ctx)), stream, w, h)
			},
			"errpanel":   func(w, h int) string { return viewOf(ptr(errpanel.New(ctx)), hist, w, h) },
			"hostpanel":  func(w, h int) string { return viewOf(ptr(hostpanel.New(ctx)), hist, w, h) },
			"latency":    func(w, h int) string { return viewOf(ptr(latency.New(ctx)), hist, w, h) },
			"opstable":   func(w, h int) string { return viewOf(ptr(opstable.New(ctx)), hist, w, h) },
			"segments":   func(w, h int) string { return viewOf(ptr(segments.New(ctx)), hist, w, h) },
			"throughput": func(w, h int) string { return viewOf(ptr(throughput.New(ctx)), hist, w, h) },
		}
		for name, draw := range drawn {
			for _, size := range sizesOf(name) {
				w, h := size[0], size[1]
				t.Run(fmt.Sprintf("%s/%dx%d/bordered=%v", name, w, h, bordered), func(t *testing.T) {
					lines := strings.Split(draw(w, h), "\n")
					if len(lines) != h {
						t.Fatalf("%d lines, want %d", len(lines), h)
					}
					for i, l := range lines {
						if got := common.Width(l); got != w {
							t.Errorf("line %d is %d cells wide, want %d: %q", i, got, w, l)
						}
					}
				})
			}
		}
	}
}

// sizesOf are sizes the layout gives the component at 80x24 and 120x40.
func sizesOf(name string) [][2]int {
	switch name {
	case "header":
		return [][2]int{{80, header.Height}, {120, header.Height}}
	case "prompt":
		return [][2]int{{80, 1}, {120, 1}}
	case "hostpanel":
		return [][2]int{{hostpanel.Width(80, false), 10}, {hostpanel.Width(120, true), 19}}
	case "throughput":
		return [][2]int{{53, 10}, {86, 19}, {80, 8}, {120, 20}}
	}
	return [][2]int{{80, 6}, {120, 8}, {80, 19}, {120, 33}}
}

func ptr[T any](v T) *T { return &v }

// viewOf sizes c, draws data and returns the drawing.
func viewOf[T any](c common.Renderer[T], data T, w, h int) string {
	c.SetSize(w, h)
	c.Render(data)
	return c.View()
}
