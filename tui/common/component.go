package common

// Component is the contract every part of the live screen under
// tui/components keeps, written down once (as soft-serve's
// pkg/ui/common/component.go does):
//
//   - New: each component package has a constructor New(ctx *Context, ...)
//     returning its Model by value. The Model keeps ctx, the program
//     context the root model shares with every component and re-syncs on
//     resize and theme change, and draws with ctx.Styles and ctx.Bordered
//     of the moment it draws. Arguments after ctx are what the component
//     needs beyond it (the prompt's limits).
//   - SetSize(w, h): the outer size the component must fill, set by the
//     root's layout before each drawing; a component never picks its own
//     size (helpers such as segments.Height or agents.PanelHeight say what
//     it would like).
//   - View: the drawing, exactly h lines of exactly w cells each, so that
//     a resize never leaves garbage on screen. A component drawn from data
//     (a Renderer) returns what its last Render drew and does no work;
//     the prompt draws its one line of text when asked.
//
// The methods are on *Model (SetSize and Render change it).
type Component interface {
	SetSize(w, h int)
	View() string
}

// Renderer is a Component drawn from data of type T, most of them from
// the run's *history.History: Render draws data at the size last set,
// once per change, and View returns that drawing until the next Render.
// The header's Render takes the UI state as well, (h, header.State), and
// so is a Component only.
type Renderer[T any] interface {
	Component
	Render(data T)
}
