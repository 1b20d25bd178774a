// Package themes holds benchtop's colour palettes and builds every lipgloss
// style the TUI uses from one of them, so that no component hard-codes a
// colour. It knows nothing else about the TUI.
package themes

import (
	"sort"

	"github.com/charmbracelet/lipgloss"
)

// Default is the name of the theme used when none is asked for.
const Default = "dark"

// Theme is a palette. Colours are lipgloss.CompleteColor (or NoColor for
// "the terminal's own") so that each one degrades to 256 and 16 colours by
// an explicit choice rather than by nearest-colour guessing.
type Theme struct {
	Name string

	Text   lipgloss.TerminalColor // ordinary text; NoColor keeps the terminal's own
	Muted  lipgloss.TerminalColor // labels, units, secondary text
	Border lipgloss.TerminalColor // panel borders and rules
	Accent lipgloss.TerminalColor // the app name, panel titles, live values

	Good  lipgloss.TerminalColor // running, healthy gauges
	Warn  lipgloss.TerminalColor // paused, busy gauges, warnings
	Alarm lipgloss.TerminalColor // errors, saturated gauges

	Line   lipgloss.TerminalColor // the throughput line
	Marker lipgloss.TerminalColor // event markers on the time axis
	// Baseline is the faint line of an earlier run (--baseline) behind the
	// throughput line: dimmer than Line, still visible on the background.
	Baseline lipgloss.TerminalColor

	P50 lipgloss.TerminalColor // sparkline colours per percentile
	P95 lipgloss.TerminalColor
	P99 lipgloss.TerminalColor

	GaugeEmpty lipgloss.TerminalColor // the unfilled part of gauges

	Best lipgloss.TerminalColor // ★ best segment
	Knee lipgloss.TerminalColor // ← knee segment

	// BannerFg on BannerBg renders warnings that must not be missed.
	BannerFg lipgloss.TerminalColor
	BannerBg lipgloss.TerminalColor

	// Bold makes values and titles bold (high-contrast leans on it).
	Bold bool
}

// c builds a CompleteColor from a true colour, a 256-colour and a 16-colour
// value.
func c(hex, ansi256, ansi string) lipgloss.CompleteColor {
	return lipgloss.CompleteColor{TrueColor: hex, ANSI256: ansi256, ANSI: ansi}
}

var none = lipgloss.NoColor{}

// dark suits dark terminal backgrounds: the default.
var dark = Theme{
	Name:       "dark",
	Text:       none,
	Muted:      c("#8089b3", "103", "8"),
	Border:     c("#3b4261", "238", "8"),
	Accent:     c("#7aa2f7", "111", "12"),
	Good:       c("#9ece6a", "149", "10"),
	Warn:       c("#e0af68", "179", "11"),
	Alarm:      c("#f7768e", "204", "9"),
	Line:       c("#7dcfff", "117", "14"),
	Marker:     c("#e0af68", "179", "11"),
	Baseline:   c("#565f89", "60", "8"),
	P50:        c("#7dcfff", "117", "14"),
	P95:        c("#bb9af7", "141", "13"),
	P99:        c("#ff9e64", "215", "11"),
	GaugeEmpty: c("#3b4261", "238", "8"),
	Best:       c("#9ece6a", "149", "10"),
	Knee:       c("#e0af68", "179", "11"),
	BannerFg:   c("#1a1b26", "234", "0"),
	BannerBg:   c("#e0af68", "179", "11"),
}

// light suits light terminal backgrounds.
var light = Theme{
	Name:       "light",
	Text:       none,
	Muted:      c("#57606a", "241", "8"),
	Border:     c("#afb8c1", "250", "7"),
	Accent:     c("#0550ae", "25", "4"),
	Good:       c("#116329", "22", "2"),
	Warn:       c("#9a6700", "136", "3"),
	Alarm:      c("#cf222e", "160", "1"),
	Line:       c("#0969da", "26", "4"),
	Marker:     c("#bc4c00", "130", "3"),
	Baseline:   c("#8c959f", "245", "7"),
	P50:        c("#0969da", "26", "4"),
	P95:        c("#8250df", "98", "5"),
	P99:        c("#bc4c00", "130", "1"),
	GaugeEmpty: c("#d0d7de", "252", "7"),
	Best:       c("#116329", "22", "2"),
	Knee:       c("#9a6700", "136", "3"),
	BannerFg:   c("#ffffff", "231", "15"),
	BannerBg:   c("#9a6700", "136", "3"),
}

// highContrast uses only bold, bright, fully saturated colours and the
// terminal's own foreground, for projectors and tired eyes.
var highContrast = Theme{
	Name:       "high-contrast",
	Text:       none,
	Muted:      none,
	Border:     none,
	Accent:     c("#00ffff", "51", "14"),
	Good:       c("#00ff00", "46", "10"),
	Warn:       c("#ffff00", "226", "11"),
	Alarm:      c("#ff0000", "196", "9"),
	Line:       c("#00ffff", "51", "14"),
	Marker:     c("#ffff00", "226", "11"),
	Baseline:   c("#a8a8a8", "248", "7"),
	P50:        c("#00ffff", "51", "14"),
	P95:        c("#ffff00", "226", "11"),
	P99:        c("#ff00ff", "201", "13"),
	GaugeEmpty: none,
	Best:       c("#00ff00", "46", "10"),
	Knee:       c("#ffff00", "226", "11"),
	BannerFg:   c("#000000", "16", "0"),
	BannerBg:   c("#ffff00", "226", "11"),
	Bold:       true,
}

// colorblind uses the Okabe-Ito palette, which stays distinguishable for
// the common forms of colour blindness: good/bad is blue/vermillion, never
// green/red.
var colorblind = Theme{
	Name:       "colorblind",
	Text:       none,
	Muted:      c("#999999", "246", "8"),
	Border:     c("#666666", "241", "8"),
	Accent:     c("#56b4e9", "74", "12"),
	Good:       c("#0072b2", "25", "4"),
	Warn:       c("#e69f00", "178", "3"),
	Alarm:      c("#d55e00", "166", "1"),
	Line:       c("#56b4e9", "74", "12"),
	Marker:     c("#f0e442", "227", "11"),
	Baseline:   c("#7f7f7f", "244", "8"),
	P50:        c("#56b4e9", "74", "12"),
	P95:        c("#e69f00", "178", "3"),
	P99:        c("#cc79a7", "175", "5"),
	GaugeEmpty: c("#555555", "240", "8"),
	Best:       c("#009e73", "36", "6"),
	Knee:       c("#e69f00", "178", "3"),
	BannerFg:   c("#000000", "16", "0"),
	BannerBg:   c("#e69f00", "178", "3"),
}

var all = map[string]Theme{
	dark.Name:         dark,
	light.Name:        light,
	highContrast.Name: highContrast,
	colorblind.Name:   colorblind,
}

// Get returns the theme called name; "" means Default.
func Get(name string) (Theme, bool) {
	if name == "" {
		name = Default
	}
	t, ok := all[name]
	return t, ok
}

// Names lists the theme names, Default first, the others sorted.
func Names() []string {
	names := make([]string, 0, len(all))
	for n := range all {
		if n != Default {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return append([]string{Default}, names...)
}
