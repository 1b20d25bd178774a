package themes

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// env is a fixed environment for termenv, so the test does not depend on
// the terminal it runs in.
type env map[string]string

func (e env) Environ() []string {
	var out []string
	for k, v := range e {
		out = append(out, k+"="+v)
	}
	return out
}

func (e env) Getenv(k string) string { return e[k] }

func renderer(e env) *lipgloss.Renderer {
	var buf bytes.Buffer
	return lipgloss.NewRenderer(&buf, termenv.WithTTY(true), termenv.WithEnvironment(e))
}

// renderAll renders a sample text with every style in s.
func renderAll(s Styles) string {
	var b strings.Builder
	v := reflect.ValueOf(s)
	for i := 0; i < v.NumField(); i++ {
		if st, ok := v.Field(i).Interface().(lipgloss.Style); ok {
			b.WriteString(st.Render("x"))
		}
	}
	return b.String()
}

func TestNamesAndGet(t *testing.T) {
	names := Names()
	if len(names) < 4 {
		t.Fatalf("want at least 4 themes, got %v", names)
	}
	if names[0] != Default {
		t.Errorf("Names()[0] = %q, want the default %q", names[0], Default)
	}
	for _, want := range []string{"dark", "light", "high-contrast", "colorblind"} {
		th, ok := Get(want)
		if !ok || th.Name != want {
			t.Errorf("Get(%q) = %q, %v", want, th.Name, ok)
		}
	}
	if th, ok := Get(""); !ok || th.Name != Default {
		t.Errorf("Get(\"\") = %q, %v; want the default", th.Name, ok)
	}
	if _, ok := Get("no-such-theme"); ok {
		t.Error("Get of an unknown name succeeded")
	}
}

func TestEveryThemeBuildsItsStyles(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			th, _ := Get(name)
			v := reflect.ValueOf(th)
			for i := 0; i < v.NumField(); i++ {
				f := v.Type().Field(i)
				if f.Type == reflect.TypeOf((*lipgloss.TerminalColor)(nil)).Elem() && v.Field(i).IsNil() {
					t.Errorf("colour %s is not set", f.Name)
				}
			}
			for _, profile := range []string{"xterm", "xterm-256color", "xterm-direct"} {
				e := env{"TERM": profile}
				if profile == "xterm-direct" {
					e["COLORTERM"] = "truecolor"
				}
				s := NewStylesWithRenderer(renderer(e), th)
				if s.Theme.Name != name {
					t.Errorf("styles carry theme %q", s.Theme.Name)
				}
				if out := renderAll(s); !strings.Contains(out, "\x1b[") {
					t.Errorf("TERM=%s: no escape codes at all; colours are not applied", profile)
				}
			}
			// termenv treats TERM=screen as having no colours: still renders.
			if out := renderAll(NewStylesWithRenderer(renderer(env{"TERM": "screen"}), th)); !strings.Contains(out, "x") {
				t.Errorf("TERM=screen rendered nothing: %q", out)
			}
			_ = NewStyles(th) // the default renderer must work too
		})
	}
}

func TestNoColorGivesNoEscapeCodes(t *testing.T) {
	for _, name := range Names() {
		th, _ := Get(name)
		s := NewStylesWithRenderer(renderer(env{"TERM": "xterm-256color", "COLORTERM": "truecolor", "NO_COLOR": "1"}), th)
		// Colours only: bold and underline are not colour, but NO_COLOR
		// makes termenv drop every SGR sequence, which is what we check.
		if out := renderAll(s); strings.Contains(out, "\x1b") {
			t.Errorf("%s with NO_COLOR=1 rendered escape codes: %q", name, out)
		}
	}
}
