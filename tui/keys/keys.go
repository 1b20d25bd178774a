// Package keys is the TUI's key map: every binding with its help text, in
// the shape bubbles/help renders (ShortHelp and FullHelp).
package keys

import "github.com/charmbracelet/bubbles/key"

// KeyMap holds every key binding of the TUI.
type KeyMap struct {
	ThreadsUp, ThreadsDown, ThreadsDouble, ThreadsHalve key.Binding
	PartsUp, PartsDown, PartsDouble, PartsHalve         key.Binding
	TargetUp, TargetDown, TargetUnlimited               key.Binding
	Pause, Mark, NewSegment                             key.Binding
	NextView, NextTheme, Window, Latency                key.Binding
	ScrollUp, ScrollDown                                key.Binding
	Save, Help, Quit                                    key.Binding
	Prompt                                              key.Binding
	// Detach leaves an attached terminal (benchtop attach); the run goes
	// on.
	Detach key.Binding
}

// Keys is the default key map.
var Keys = KeyMap{
	ThreadsUp:       key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+/-", "threads ±1")),
	ThreadsDown:     key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "threads -1")),
	ThreadsDouble:   key.NewBinding(key.WithKeys(">"), key.WithHelp(">/<", "threads ×2 ÷2")),
	ThreadsHalve:    key.NewBinding(key.WithKeys("<"), key.WithHelp("<", "threads ÷2")),
	PartsUp:         key.NewBinding(key.WithKeys("]"), key.WithHelp("]/[", "partitions ±1")),
	PartsDown:       key.NewBinding(key.WithKeys("["), key.WithHelp("[", "partitions -1")),
	PartsDouble:     key.NewBinding(key.WithKeys("}"), key.WithHelp("}/{", "partitions ×2 ÷2")),
	PartsHalve:      key.NewBinding(key.WithKeys("{"), key.WithHelp("{", "partitions ÷2")),
	TargetUp:        key.NewBinding(key.WithKeys("t"), key.WithHelp("t/T", "target +25% / -25%")),
	TargetDown:      key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "target -25%")),
	TargetUnlimited: key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "target unlimited")),
	Pause:           key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause/resume")),
	Mark:            key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "mark")),
	NewSegment:      key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "new segment")),
	NextView:        key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "segments")),
	NextTheme:       key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "next theme")),
	Window:          key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "chart window")),
	Latency:         key.NewBinding(key.WithKeys("i"), key.WithHelp("i", "latency; segments ±")),
	ScrollUp:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "scroll segments")),
	ScrollDown:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "scroll segments")),
	Save:            key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save report")),
	Help:            key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
	Quit:            key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	Prompt:          key.NewBinding(key.WithKeys(":"), key.WithHelp(":", "type a value")),
	Detach:          key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "detach")),
}

// ViewOnly are the keys a read-only viewer may use: view, theme, window,
// help (and q, which leaves the session).
func (k KeyMap) ViewOnly() []key.Binding {
	return []key.Binding{k.NextView, k.NextTheme, k.Window, k.Latency, k.ScrollUp, k.ScrollDown, k.Help, k.Prompt, k.Quit}
}

// ViewerHelp is the one-line help of a read-only viewer.
func (k KeyMap) ViewerHelp() []key.Binding {
	return []key.Binding{k.NextView, short(k.NextTheme, "c", "theme"), short(k.Window, "w", "window"),
		short(k.Latency, "i", "latency"), k.Help, short(k.Quit, "q", "leave")}
}

// ShortHelp is the help at the bottom of the screen, most useful first:
// every key a user needs at a glance (the full help has the rest).
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{
		short(k.ThreadsUp, "+/-", "threads"), short(k.PartsUp, "]/[", "partitions"),
		short(k.TargetUp, "t/T", "target"), short(k.Prompt, ":", "type a value"), short(k.Pause, "space", "pause"),
		k.Mark, k.NewSegment, k.NextView, short(k.Save, "s", "save"), short(k.NextTheme, "c", "theme"),
		short(k.Window, "w", "window"), k.Help, k.Quit,
	}
}

// CompactHelp is ShortHelp in shorter words, for narrow screens: the same
// keys.
func (k KeyMap) CompactHelp() []key.Binding {
	return []key.Binding{
		short(k.ThreadsUp, "+/-", "thr"), short(k.PartsUp, "]/[", "part"),
		short(k.TargetUp, "t/T", "target"), short(k.Prompt, ":", "value"), short(k.Pause, "space", "pause"),
		k.Mark, short(k.NewSegment, "r", "segment"), short(k.NextView, "tab", "view"), short(k.Save, "s", "save"),
		short(k.NextTheme, "c", "theme"), short(k.Window, "w", "window"), k.Help, k.Quit,
	}
}

// short is b with a shorter help text for the one-line help.
func short(b key.Binding, k, desc string) key.Binding {
	b.SetHelp(k, desc)
	return b
}

// FullHelp is the help `?` shows, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.ThreadsUp, k.ThreadsDouble, k.PartsUp, k.PartsDouble, k.TargetUp, k.TargetUnlimited},
		{k.Prompt, k.Pause, k.Mark, k.NewSegment, k.Save},
		{k.NextView, k.Window, k.Latency, k.NextTheme, k.ScrollUp, k.Help, k.Quit},
	}
}
