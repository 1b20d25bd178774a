package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"benchtop/engine"
	"benchtop/engine/report"
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
	"benchtop/tui/format"
	"benchtop/tui/history"
	"benchtop/tui/keys"
)

// Limits of the live controls: the engine's.
const (
	MaxThreads    = engine.MaxThreads
	MaxPartitions = engine.MaxPartitions
)

// MinWidth and MinHeight are the smallest screen the TUI draws on.
const (
	MinWidth  = 80
	MinHeight = 24
)

// How long a notice stays, and how long q waits for the final snapshot.
const (
	noticeFor   = 4 * time.Second
	stopTimeout = 5 * time.Second
)

// The views `tab` cycles through.
type viewID int

const (
	viewMain viewID = iota
	viewSegments
	viewPartitions // the stream workload only
	numViews
)

func (v viewID) String() string {
	switch v {
	case viewSegments:
		return "segments"
	case viewPartitions:
		return "partitions"
	}
	return "main"
}

// nextView is the view after v; the partitions view exists only while a
// stream runs.
func (m *Model) nextView(v viewID) viewID {
	n := (v + 1) % numViews
	if n == viewPartitions && m.hist.Stream == nil {
		n = viewMain
	}
	return n
}

// Messages.
type (
	snapshotMsg struct{ s *engine.Snapshot }
	closedMsg   struct{}
	controlMsg  struct {
		what   string
		notice string // shown on success, if any
		err    error
	}
	savedMsg struct {
		where string
		err   error
	}
	noticeExpiredMsg struct{ id int }
	stopTimeoutMsg   struct{}
)

// pending is a control value asked for and not yet seen in a snapshot. It
// is given up after a few snapshots so that a refused change does not stick.
type pending[T comparable] struct {
	want T
	set  bool
	left int
}

func (p *pending[T]) ask(v T) { p.want, p.set, p.left = v, true, 3 }

// seen updates p with the value a snapshot reports.
func (p *pending[T]) seen(v T) {
	if !p.set {
		return
	}
	p.left--
	if v == p.want || p.left <= 0 {
		*p = pending[T]{}
	}
}

// Model is the root model: it owns the components, the history they draw
// from and the program context they share, reads snapshots and turns keys
// into controller calls.
type Model struct {
	ctx     *common.Context
	opts    Options
	keys    keys.KeyMap
	help    help.Model
	hist    *history.History
	themeNo int

	header     header.Model
	throughput throughput.Model
	latency    latency.Model
	ops        opstable.Model
	host       hostpanel.Model
	segments   segments.Model
	parts      partitions.Model
	errs       errpanel.Model

	view     viewID
	showHelp bool
	prompt   prompt.Model

	// demoStep counts the steps of opts.Demo reached so far.
	demoStep int

	notice   string
	noticeID int

	threads, partitions pending[int]
	target              pending[float64]
	paused              pending[bool]
	marks               int

	closed   bool // the snapshot channel is closed: the run is over
	stopping bool // q was pressed
	quitting bool

	frame string // the whole screen, rebuilt when something changes
}

func newModel(opts Options, theme themes.Theme) *Model {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	ctx := &common.Context{
		Styles:   stylesFor(opts.Renderer, theme),
		Info:     opts.Info,
		Interval: opts.Interval,
		Baseline: opts.Baseline,
	}
	m := &Model{
		ctx:        ctx,
		opts:       opts,
		keys:       keys.Keys,
		help:       help.New(),
		hist:       history.New(opts.Interval),
		header:     header.New(ctx),
		throughput: throughput.New(ctx),
		latency:    latency.New(ctx),
		ops:        opstable.New(ctx),
		host:       hostpanel.New(ctx),
		segments:   segments.New(ctx),
		parts:      partitions.New(ctx),
		errs:       errpanel.New(ctx),
	}
	for i, n := range themes.Names() {
		if n == theme.Name {
			m.themeNo = i
		}
	}
	m.prompt = prompt.New(ctx, prompt.Limits{
		MaxThreads: MaxThreads, MaxPartitions: MaxPartitions,
		CanRepartition: opts.Info.CanRepartition, Adapter: opts.Info.Adapter,
		MinWindow: 10 * time.Second, MaxWindow: history.Window,
		Themes: themes.Names(), ReadOnly: opts.ReadOnly,
	})
	for _, s := range opts.Backlog {
		m.addSnapshot(s)
	}
	if opts.Notice != "" {
		m.notice = opts.Notice
	}
	m.applyStyles()
	return m
}

// stylesFor builds the styles of t for renderer r (nil: standard output).
func stylesFor(r *lipgloss.Renderer, t themes.Theme) themes.Styles {
	if r == nil {
		return themes.NewStyles(t)
	}
	return themes.NewStylesWithRenderer(r, t)
}

// Init starts reading snapshots, and clears the opening notice later.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{waitForSnapshot(m.opts.Snapshots)}
	if m.notice != "" {
		m.noticeID++
		id := m.noticeID
		cmds = append(cmds, tea.Tick(3*noticeFor, func(time.Time) tea.Msg { return noticeExpiredMsg{id} }))
	}
	return tea.Batch(cmds...)
}

// addSnapshot records a snapshot: history, pending values, demo steps.
func (m *Model) addSnapshot(s *engine.Snapshot) {
	m.hist.Add(s)
	m.threads.seen(s.Threads)
	m.partitions.seen(s.Partitions)
	m.target.seen(s.Target)
	m.paused.seen(s.Paused)
	m.advanceDemo(s.Events)
}

// waitForSnapshot blocks, in its own goroutine, for the next snapshot; it is
// issued again after each one.
func waitForSnapshot(ch <-chan *engine.Snapshot) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		s, ok := <-ch
		if !ok {
			return closedMsg{}
		}
		return snapshotMsg{s}
	}
}

// View returns the screen built by the last change.
func (m *Model) View() string {
	if m.quitting {
		return ""
	}
	return m.frame
}

// Update handles a message.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.ctx.Width, m.ctx.Height = msg.Width, msg.Height
		m.rebuild()
		return m, nil

	case snapshotMsg:
		s := msg.s
		if s == nil {
			return m, waitForSnapshot(m.opts.Snapshots)
		}
		m.addSnapshot(s)
		if len(m.opts.Snapshots) == 0 {
			// Draw only the newest of a backlog (e.g. at start).
			m.rebuild()
		}
		return m, waitForSnapshot(m.opts.Snapshots)

	case closedMsg:
		m.closed = true
		if m.stopping {
			return m.quit()
		}
		m.rebuild()
		return m, nil

	case stopTimeoutMsg:
		return m.quit()

	case controlMsg:
		if msg.err != nil {
			switch msg.what {
			case "threads":
				m.threads = pending[int]{}
			case "partitions":
				m.partitions = pending[int]{}
			case "target":
				m.target = pending[float64]{}
			}
			return m, m.setNotice(msg.what + ": " + msg.err.Error())
		}
		if msg.notice != "" {
			return m, m.setNotice(msg.notice)
		}
		return m, nil

	case savedMsg:
		if msg.err != nil {
			return m, m.setNotice("save failed: " + msg.err.Error())
		}
		return m, m.setNotice("report saved to " + msg.where)

	case noticeExpiredMsg:
		if msg.id == m.noticeID && m.notice != "" {
			m.notice = ""
			m.rebuild()
		}
		return m, nil

	case tea.KeyMsg:
		return m.handleKeys(msg)
	}
	return m, nil
}

func (m *Model) quit() (tea.Model, tea.Cmd) {
	m.quitting = true
	return m, tea.Quit
}

// setNotice shows text on the notice line for a few seconds.
func (m *Model) setNotice(text string) tea.Cmd {
	m.notice = text
	m.noticeID++
	id := m.noticeID
	m.rebuild()
	return tea.Tick(noticeFor, func(time.Time) tea.Msg { return noticeExpiredMsg{id} })
}

// control runs a controller call in its own goroutine, so that Update never
// waits for the engine.
func control(what, notice string, f func() error) tea.Cmd {
	return func() tea.Msg {
		return controlMsg{what: what, notice: notice, err: f()}
	}
}

func clamp(n, lo, hi int) int { return min(max(n, lo), hi) }

func (m *Model) last() *engine.Snapshot { return m.hist.Last }

func (m *Model) curThreads() int {
	if m.threads.set {
		return m.threads.want
	}
	if s := m.last(); s != nil {
		return s.Threads
	}
	return 1
}

func (m *Model) curPartitions() int {
	if m.partitions.set {
		return m.partitions.want
	}
	if s := m.last(); s != nil {
		return s.Partitions
	}
	return 1
}

func (m *Model) curTarget() float64 {
	if m.target.set {
		return m.target.want
	}
	if s := m.last(); s != nil {
		return s.Target
	}
	return 0
}

func (m *Model) curPaused() bool {
	if m.paused.set {
		return m.paused.want
	}
	if s := m.last(); s != nil {
		return s.Paused
	}
	return false
}

func (m *Model) setThreads(n int) tea.Cmd {
	cur := m.curThreads()
	n = clamp(n, 1, MaxThreads)
	if n == cur {
		return m.setNotice(fmt.Sprintf("threads already at %d (limits 1..%d)", cur, MaxThreads))
	}
	m.threads.ask(n)
	m.rebuild()
	ctl := m.opts.Control
	return control("threads", "", func() error { return ctl.SetThreads(n) })
}

func (m *Model) setPartitions(n int) tea.Cmd {
	if !m.opts.Info.CanRepartition {
		return m.setNotice("partitions: this adapter cannot repartition (" + m.opts.Info.Adapter + ")")
	}
	cur := m.curPartitions()
	n = clamp(n, 1, MaxPartitions)
	if n == cur {
		return m.setNotice(fmt.Sprintf("partitions already at %d (limits 1..%d)", cur, MaxPartitions))
	}
	m.partitions.ask(n)
	m.rebuild()
	ctl := m.opts.Control
	return control("partitions", "", func() error { return ctl.SetPartitions(n) })
}

// stepTarget multiplies the target by f. From unlimited, t starts at the
// rate achieved in the last interval (what the run does now, held), and T
// at f times that rate.
func (m *Model) stepTarget(f float64) tea.Cmd {
	base := m.curTarget()
	if base <= 0 {
		if s := m.last(); s != nil {
			base = s.Total.Interval.Rate
		}
		if base <= 0 {
			return m.setNotice("target: no rate measured yet to start from")
		}
		if f > 1 {
			f = 1
		}
	}
	return m.setTarget(math.Max(1, math.Round(base*f)))
}

func (m *Model) setTarget(t float64) tea.Cmd {
	if m.last() != nil && t == m.curTarget() {
		return m.setNotice("target already " + format.Target(t))
	}
	m.target.ask(t)
	m.rebuild()
	ctl := m.opts.Control
	return control("target", "target → "+format.Target(t), func() error { return ctl.SetTarget(t) })
}

// applyStyles pushes the current styles into the help bubble and redraws.
func (m *Model) applyStyles() {
	st := m.ctx.Styles
	m.help.Styles = help.Styles{
		Ellipsis:       st.HelpSep,
		ShortKey:       st.HelpKey,
		ShortDesc:      st.HelpDesc,
		ShortSeparator: st.HelpSep,
		FullKey:        st.HelpKey,
		FullDesc:       st.HelpDesc,
		FullSeparator:  st.HelpSep,
	}
	m.help.ShortSeparator = "  "
	m.rebuild()
}

// statusLines are the warnings in force, then the notice or the errors of
// the last interval or the last event.
func (m *Model) statusLines(w int) []string {
	st := m.ctx.Styles
	var out []string
	s := m.last()
	if s != nil && len(s.Warnings) > 0 {
		// One line each, two at most: they matter while they last.
		ws := s.Warnings
		if len(ws) > 2 {
			ws = append(append([]string(nil), ws[:1]...), strings.Join(ws[1:], " · "))
		}
		for _, wn := range ws {
			out = append(out, st.Banner.Render(common.FitTail(" ⚠ "+wn+" ", w)))
		}
	}
	if c := m.demoCaption(w); c != "" {
		out = append(out, c)
	}
	var parts []string
	if m.notice != "" {
		parts = append(parts, st.Notice.Render("› "+m.notice))
	}
	if e := errorBurst(s); e != "" {
		// The latest cause of the most frequent kind, cut in its middle
		// to fit: its end is the root cause.
		if k := topKind(s); k != "" {
			if c := intervalCause(s, k); c != "" {
				used := common.Width(strings.Join(parts, "   ")) + common.Width(e) + 12 + len(k)
				e += " · last " + k + ": " + errpanel.Elide(c, w-used)
			}
		}
		parts = append(parts, st.Alarm.Render("✗ "+e))
	} else if e := m.stallNote(); e != "" {
		parts = append(parts, st.Alarm.Render("✗ "+e))
	}
	if len(parts) == 0 {
		if evs := m.hist.Events(); evs.Len() > 0 {
			e, _ := evs.Last()
			parts = append(parts, st.Muted.Render("last: "+eventText(e)+" at "+format.Short(e.At)))
		}
	}
	out = append(out, common.FitTail(" "+strings.Join(parts, "   "), w))
	return out
}

// errorBurst describes the errors of the last interval by kind.
func errorBurst(s *engine.Snapshot) string {
	if s == nil {
		return ""
	}
	var text string
	n := s.Total.Interval.Errors
	kinds := s.Total.Interval.ErrorsByKind
	if len(kinds) == 0 {
		kinds = map[string]int64{}
		n = 0
		for _, op := range s.Ops {
			n += op.Interval.Errors
			for k, v := range op.Interval.ErrorsByKind {
				kinds[k] += v
			}
		}
	}
	if n > 0 {
		type kv struct {
			k string
			v int64
		}
		var list []kv
		for k, v := range kinds {
			list = append(list, kv{k, v})
		}
		// Most frequent first, then by name for a stable line.
		for i := 1; i < len(list); i++ {
			for j := i; j > 0 && (list[j].v > list[j-1].v || list[j].v == list[j-1].v && list[j].k < list[j-1].k); j-- {
				list[j], list[j-1] = list[j-1], list[j]
			}
		}
		var ks []string
		for _, e := range list {
			ks = append(ks, e.k+" "+format.Int(e.v))
		}
		text = format.Int(n) + " errors in the last interval"
		if len(ks) > 0 {
			text += ": " + strings.Join(ks, ", ")
		}

	}
	if s.IntegrityErrors > 0 {
		if text != "" {
			text += " · "
		}
		text += format.Int(s.IntegrityErrors) + " data integrity mismatches"
	}
	return text
}

// topKind is the most frequent error kind of the last interval.
func topKind(s *engine.Snapshot) string {
	kinds := map[string]int64{}
	for _, op := range s.Ops {
		for k, v := range op.Interval.ErrorsByKind {
			kinds[k] += v
		}
	}
	best := ""
	for k, v := range kinds {
		if best == "" || v > kinds[best] || v == kinds[best] && k < best {
			best = k
		}
	}
	return best
}

// intervalCause is the latest message of errors of kind in the last
// interval, masked, "" when there is none.
func intervalCause(s *engine.Snapshot, kind string) string {
	if c := s.Total.Interval.Causes[kind]; c != "" {
		return report.MaskCause(c)
	}
	for _, op := range s.Ops {
		if c := op.Interval.Causes[kind]; c != "" {
			return report.MaskCause(c)
		}
	}
	return ""
}

// rebuild lays the screen out and redraws it into m.frame. It runs when a
// snapshot arrives or something on screen changes, never from View.
func (m *Model) rebuild() {
	w, h := m.ctx.Width, m.ctx.Height
	if w <= 0 || h <= 0 {
		m.frame = ""
		return
	}
	if w < MinWidth || h < MinHeight {
		msg := fmt.Sprintf("benchtop needs at least %dx%d to draw;\nthis terminal is %dx%d.\n\nEnlarge it, or press q to quit.",
			MinWidth, MinHeight, w, h)
		m.frame = lipgloss.Place(w, h, lipgloss.Center, lipgloss.Center, msg)
		return
	}
	m.ctx.Bordered = w >= 100 && h >= 30

	status := m.statusLines(w)
	m.help.Width = w - 2
	tabHelp := m.nextView(m.view).String()
	km := m.keys
	km.NextView.SetHelp("tab", tabHelp)
	bindings := km.ShortHelp()
	switch {
	case m.opts.ReadOnly:
		bindings = km.ViewerHelp()
	case w < 100:
		bindings = km.CompactHelp()
	}
	if m.opts.Remote && !m.opts.ReadOnly {
		bindings[len(bindings)-1].SetHelp("q", "leave")
	}
	helpLine := common.Fit(" "+m.help.ShortHelpView(bindings), w)
	if m.prompt.IsOpen() {
		m.prompt.SetSize(w, 1)
		helpLine = m.prompt.View()
	}

	m.header.SetSize(w, header.Height)
	m.header.Render(m.hist, header.State{
		Finished:       m.closed,
		Stopping:       m.stopping && !m.closed,
		WantThreads:    wantInt(m.threads),
		WantPartitions: wantInt(m.partitions),
		WantTarget:     m.target.want,
		TargetPending:  m.target.set,
		Paused:         m.curPaused(),
		Viewers:        m.viewers(),
		ReadOnly:       m.opts.ReadOnly,
	})

	bodyH := h - header.Height - len(status) - 1
	var body string
	switch {
	case m.showHelp:
		body = m.fullHelp(w, bodyH)
	case m.demoEnd():
		body = m.endCard(w, bodyH)
	case m.view == viewSegments:
		body = m.segmentsBody(w, bodyH)
	case m.view == viewPartitions && m.hist.Stream != nil:
		m.parts.SetSize(w, bodyH)
		m.parts.Render(m.hist.Stream)
		body = m.parts.View()
	default:
		body = m.mainBody(w, bodyH)
	}
	parts := []string{m.header.View(), body}
	parts = append(parts, status...)
	parts = append(parts, helpLine)
	m.frame = strings.Join(parts, "\n")
}

func wantInt(p pending[int]) int {
	if p.set {
		return p.want
	}
	return 0
}

// mainBody lays out throughput and host on top, latency and operations
// under them, giving the chart what the others leave.
func (m *Model) mainBody(w, bodyH int) string {
	bordered := m.ctx.Bordered
	frame := 1
	if bordered {
		frame = 2
	}
	s := m.last()
	// The chart keeps 6 rows, its axis and its marker labels.
	minTop := frame + 8
	// fleet: the Agents panel above the merged panels, or one summary line.
	var fleetBlock string
	if s != nil && len(s.Agents) > 0 {
		if ph := agents.PanelHeight(len(s.Agents), bordered, bodyH); ph > 1 {
			am := agents.New(m.ctx)
			am.SetSize(w, ph)
			am.Render(s.Agents)
			fleetBlock, bodyH = am.View(), bodyH-ph
		} else {
			fleetBlock, bodyH = agents.SummaryLine(m.ctx.Styles, s.Agents, w), bodyH-1
		}
	}

	mode := m.latency.Mode
	latRows := max(1, latency.RowCount(s, mode))
	tabRows := opstable.Rows(s, true)
	m.ops.ShowIntended = true
	// The intended rows of the table repeat what the latency panel shows:
	// only where the chart keeps a good share of the screen.
	if bodyH-(frame+latRows)-(frame+tabRows) < max(minTop, bodyH*45/100) {
		tabRows = opstable.Rows(s, false)
		m.ops.ShowIntended = false
	}
	if bodyH-(frame+latRows)-(frame+tabRows) < minTop && mode == latency.Both && latency.HasIntended(s) {
		// Short of room: the corrected latency is the truthful one.
		mode = latency.Intended
		latRows = max(1, latency.RowCount(s, mode))
	}
	latH := frame + latRows
	tabH := frame + tabRows
	if top := bodyH - latH - tabH; top < minTop {
		tabH = max(0, tabH-(minTop-top))
		if tabH < frame+2 {
			tabH = 0
		}
	}
	if top := bodyH - latH - tabH; top < minTop {
		latH = max(frame+1, bodyH-tabH-minTop)
	}
	// The errors panel (causes) where the chart keeps a good share.
	errH := errpanel.Height(s, bordered)
	if bodyH-latH-tabH-errH < max(minTop, bodyH*40/100) {
		errH = 0
	}
	top := bodyH - latH - tabH - errH
	// Room to spare: taller sparklines, as long as the chart keeps half.
	for sparkH := 1; sparkH < 2 && top-latRows >= bodyH/2; sparkH++ {
		latH += latRows
		top -= latRows
	}

	hostW := hostpanel.Width(w, bordered)
	gap := 0
	if !bordered {
		gap = 1
	}
	tpW := w - hostW - gap
	m.throughput.SetSize(tpW, top)
	m.throughput.Render(m.hist)
	m.host.SetSize(hostW, top)
	m.host.Render(m.hist)

	saved := m.latency.Mode
	m.latency.Mode = mode
	m.latency.SetSize(w, latH)
	m.latency.Render(m.hist)
	m.latency.Mode = saved

	parts := []string{joinColumns(m.throughput.View(), m.host.View(), gap), m.latency.View()}
	if errH > 0 {
		m.errs.SetSize(w, errH)
		m.errs.Render(m.hist)
		parts = append(parts, m.errs.View())
	}
	if fleetBlock != "" {
		parts = append([]string{fleetBlock}, parts...)
	}
	if tabH > 0 {
		m.ops.SetSize(w, tabH)
		m.ops.Render(m.hist)
		parts = append(parts, m.ops.View())
	}
	return strings.Join(parts, "\n")
}

// segmentsBody is the segments table, with the throughput chart under it
// when the table leaves room, so that rows and markers can be compared.
func (m *Model) segmentsBody(w, bodyH int) string {
	need := segments.Height(m.last(), m.ctx.Bordered)
	if bodyH-need < throughput.MinHeight+3 {
		m.segments.SetSize(w, bodyH)
		m.segments.Render(m.hist)
		return m.segments.View()
	}
	m.segments.SetSize(w, need)
	m.segments.Render(m.hist)
	m.throughput.SetSize(w, bodyH-need)
	m.throughput.Render(m.hist)
	return m.segments.View() + "\n" + m.throughput.View()
}

// joinColumns puts two blocks of equal height side by side.
func joinColumns(a, b string, gap int) string {
	al := strings.Split(a, "\n")
	bl := strings.Split(b, "\n")
	sp := strings.Repeat(" ", gap)
	out := make([]string, max(len(al), len(bl)))
	for i := range out {
		var l, r string
		if i < len(al) {
			l = al[i]
		}
		if i < len(bl) {
			r = bl[i]
		}
		out[i] = l + sp + r
	}
	return strings.Join(out, "\n")
}

func (m *Model) fullHelp(w, h int) string {
	st := m.ctx.Styles
	iw, _ := common.Inner(m.ctx.Bordered, w, h)
	hm := m.help
	hm.Width = iw - 2
	hm.FullSeparator = "    "
	var lines []string
	lines = append(lines, "")
	for _, l := range strings.Split(hm.FullHelpView(m.keys.FullHelp()), "\n") {
		lines = append(lines, " "+l)
	}
	notes := []string{
		fmt.Sprintf("Threads 1..%d, partitions 1..%d. From unlimited, t holds the rate achieved in the last interval (T: 75 %% of it). : types an exact value (threads 64, target 120k, partitions 16, mark TEXT, window 15m).", MaxThreads, MaxPartitions),
		"Every change and mark is a ▲ on the time axis and starts a segment (tab); ! marks errors.",
		"With a target, latency is also shown from the intended start time (coordinated omission corrected).",
		"Themes: " + strings.Join(themes.Names(), ", ") + ".",
	}
	wrap := lipgloss.NewStyle().Width(iw - 2)
	lines = append(lines, "")
	for _, n := range notes {
		for _, l := range strings.Split(wrap.Render(n), "\n") {
			lines = append(lines, " "+st.Muted.Render(l))
		}
	}
	return common.Panel(st, m.ctx.Bordered, "Keys · ? or esc to close", lines, w, h)
}
