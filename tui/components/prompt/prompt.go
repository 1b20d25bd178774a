package prompt

import (
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"benchtop/tui/common"
)

// Model is the prompt line: a text input with the check of what is typed
// beside it.
type Model struct {
	ctx    *common.Context
	w, h   int
	input  textinput.Model
	Limits Limits
	open   bool
}

var _ common.Component = (*Model)(nil)

// New returns a closed prompt drawing with ctx and checking against lim.
func New(ctx *common.Context, lim Limits) Model {
	in := textinput.New()
	in.Prompt = ": "
	in.CharLimit = 120
	return Model{ctx: ctx, input: in, Limits: lim}
}

// SetSize sets the outer size: the prompt is one line, so the screen
// gives it 1.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// Open shows the prompt, empty and focused.
func (m *Model) Open() {
	m.open = true
	m.input.SetValue("")
	m.input.Focus()
}

// Close hides the prompt.
func (m *Model) Close() {
	m.open = false
	m.input.Blur()
}

// IsOpen tells whether the prompt takes the keys.
func (m *Model) IsOpen() bool { return m.open }

// Value is the text typed so far.
func (m *Model) Value() string { return m.input.Value() }

// Update passes a key to the text input.
func (m *Model) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// Check is the parse of what is typed so far.
func (m *Model) Check() (Command, error) { return Parse(m.input.Value(), m.Limits) }

// View draws the prompt line at the size set: the input, then the hint
// for an empty line or the error of what is typed.
func (m *Model) View() string { return common.Block([]string{m.line(m.w)}, m.w, m.h) }

// line is the prompt line w cells wide.
func (m *Model) line(w int) string {
	st := m.ctx.Styles
	m.input.PromptStyle = st.Accent
	m.input.TextStyle = st.Text
	m.input.Cursor.Style = st.Accent
	text := m.input.Value()
	right := st.Muted.Render(Hint(m.Limits.ReadOnly))
	if text != "" {
		if _, err := m.Check(); err != nil {
			right = st.Alarm.Render("✗ " + err.Error())
		} else {
			right = st.Good.Render("✓ enter applies")
		}
	}
	left := " " + m.input.View()
	lw := common.Width(left)
	room := w - lw - 3
	if room < 10 {
		return common.Fit(left, w)
	}
	return common.Fit(left+"   "+common.FitTail(right, room), w)
}
