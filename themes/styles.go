package themes

import "github.com/charmbracelet/lipgloss"

// Styles is every lipgloss style the TUI draws with, built from one Theme in
// NewStyles. Components take a Styles and never build colours themselves.
type Styles struct {
	Theme Theme

	App    lipgloss.Style // "benchtop" in the header
	Text   lipgloss.Style
	Muted  lipgloss.Style
	Label  lipgloss.Style // "Threads", "p99", "rx"
	Value  lipgloss.Style // the numbers next to labels
	Accent lipgloss.Style

	Good  lipgloss.Style
	Warn  lipgloss.Style
	Alarm lipgloss.Style // errors above zero

	Border     lipgloss.Style // box-drawing characters of panels
	PanelTitle lipgloss.Style

	ChartLine   lipgloss.Style
	Baseline    lipgloss.Style // the --baseline run's line and label, faint
	ChartAxis   lipgloss.Style
	ChartLabel  lipgloss.Style
	Marker      lipgloss.Style // ▲ on the time axis
	MarkerLabel lipgloss.Style
	AlarmMarker lipgloss.Style // ! for errors and warnings on the time axis

	P50 lipgloss.Style
	P95 lipgloss.Style
	P99 lipgloss.Style

	GaugeLow   lipgloss.Style // filled part of a gauge below 60 %
	GaugeMid   lipgloss.Style // 60-85 %
	GaugeHigh  lipgloss.Style // above 85 %
	GaugeEmpty lipgloss.Style

	TableHeader lipgloss.Style
	Best        lipgloss.Style
	Knee        lipgloss.Style

	Banner lipgloss.Style // warnings in force
	Notice lipgloss.Style // transient notices

	HelpKey  lipgloss.Style
	HelpDesc lipgloss.Style
	HelpSep  lipgloss.Style

	TabActive   lipgloss.Style
	TabInactive lipgloss.Style
}

// NewStyles builds the styles of t for the default renderer (standard
// output), whose colour profile honours NO_COLOR and the terminal's abilities.
func NewStyles(t Theme) Styles {
	return NewStylesWithRenderer(lipgloss.DefaultRenderer(), t)
}

// NewStylesWithRenderer builds the styles of t for the renderer r, e.g. one
// per SSH session or one with a forced profile in tests.
func NewStylesWithRenderer(r *lipgloss.Renderer, t Theme) Styles {
	fg := func(col lipgloss.TerminalColor) lipgloss.Style {
		return r.NewStyle().Foreground(col)
	}
	bold := func(s lipgloss.Style) lipgloss.Style { return s.Bold(true) }
	strong := func(s lipgloss.Style) lipgloss.Style {
		if t.Bold {
			return s.Bold(true)
		}
		return s
	}
	return Styles{
		Theme: t,

		App:    bold(fg(t.Accent)),
		Text:   strong(fg(t.Text)),
		Muted:  fg(t.Muted),
		Label:  fg(t.Muted),
		Value:  bold(fg(t.Text)),
		Accent: strong(fg(t.Accent)),

		Good:  strong(fg(t.Good)),
		Warn:  strong(fg(t.Warn)),
		Alarm: bold(fg(t.Alarm)),

		Border:     fg(t.Border),
		PanelTitle: bold(fg(t.Accent)),

		ChartLine:   strong(fg(t.Line)),
		Baseline:    fg(t.Baseline), // never bold: it stays behind the line
		ChartAxis:   fg(t.Border),
		ChartLabel:  fg(t.Muted),
		Marker:      bold(fg(t.Marker)),
		MarkerLabel: fg(t.Marker),
		AlarmMarker: bold(fg(t.Alarm)),

		P50: fg(t.P50),
		P95: fg(t.P95),
		P99: fg(t.P99),

		GaugeLow:   fg(t.Good),
		GaugeMid:   fg(t.Warn),
		GaugeHigh:  fg(t.Alarm),
		GaugeEmpty: fg(t.GaugeEmpty),

		TableHeader: bold(fg(t.Muted)),
		Best:        bold(fg(t.Best)),
		Knee:        bold(fg(t.Knee)),

		Banner: bold(r.NewStyle().Foreground(t.BannerFg).Background(t.BannerBg)),
		Notice: strong(fg(t.Accent)),

		HelpKey:  strong(fg(t.Accent)),
		HelpDesc: fg(t.Muted),
		HelpSep:  fg(t.Border),

		TabActive:   bold(fg(t.Accent)).Underline(true),
		TabInactive: fg(t.Muted),
	}
}
