package tui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// noticeFor is how long a notice stays on the status line (the model's
// noticeLife, which tests may hold longer than they take).
const noticeFor = 4 * time.Second

// noticeExpiredMsg clears notice number id, unless a newer one replaced it.
type noticeExpiredMsg struct{ id int }

// setNotice shows text on the notice line for a few seconds.
func (m *Model) setNotice(text string) tea.Cmd {
	m.notice = text
	m.noticeID++
	id := m.noticeID
	m.rebuild()
	return tea.Tick(m.noticeLife, func(time.Time) tea.Msg { return noticeExpiredMsg{id} })
}

// openingNotice keeps the notice the screen opens with (Options.Notice)
// three times as long as others; nil without one.
func (m *Model) openingNotice() tea.Cmd {
	if m.notice == "" {
		return nil
	}
	m.noticeID++
	id := m.noticeID
	return tea.Tick(3*m.noticeLife, func(time.Time) tea.Msg { return noticeExpiredMsg{id} })
}

// noticeExpired clears notice number id if it is still the one shown.
func (m *Model) noticeExpired(id int) {
	if id == m.noticeID && m.notice != "" {
		m.notice = ""
		m.rebuild()
	}
}
