// Package hostpanel draws the client host: total and per-core CPU, the
// network interfaces' rates against their link speed, and this process's
// CPU and memory. It answers "is the client the bottleneck?".
package hostpanel

import (
	"fmt"
	"strings"

	"benchtop/rundata"
	"benchtop/tui/common"
	"benchtop/tui/format"
	"benchtop/tui/history"
)

// Width returns the outer width the host panel wants on a screen w wide.
func Width(w int, bordered bool) int {
	if !bordered {
		return 27
	}
	return min(max(w*3/10, 36), 48)
}

// Model is the host panel.
type Model struct {
	ctx  *common.Context
	w, h int
	view string
}

var _ common.Renderer[*history.History] = (*Model)(nil)

// New returns a host panel drawing with ctx.
func New(ctx *common.Context) Model { return Model{ctx: ctx} }

// SetSize sets the outer size of the panel.
func (m *Model) SetSize(w, h int) { m.w, m.h = w, h }

// View returns the panel drawn by the last Render.
func (m Model) View() string { return m.view }

// Render draws the panel from the newest snapshot's host sample.
func (m *Model) Render(h *history.History) {
	st := m.ctx.Styles
	bordered := m.ctx.Bordered
	iw, ih := common.Inner(bordered, m.w, m.h)
	var s rundata.HostSample
	if h.Last != nil {
		s = h.Last.Host
	}
	const valW = 4 // "100%"
	// label(4) gauge value
	gaugeW := iw - 1 - 4 - 1 - valW - 2
	cpuPct := s.CPUTotal
	if s.Cores == 0 {
		cpuPct = -1 // not measured (no /proc/stat, or no baseline yet)
	}
	cpu := []string{m.gaugeLine("CPU", max(cpuPct, 0), gaugeW, format.KnownPercent(cpuPct))}

	nic := m.nicLines(s, iw)
	var lo []string
	if s.Loopback != nil && len(s.NICs) > 0 {
		lo = []string{m.loLine(*s.Loopback)}
	}
	proc := []string{" " + st.Label.Render("proc") + " " + st.Label.Render("cpu ") + st.Value.Render(format.Percent(s.ProcCPU)) +
		"  " + st.Label.Render("rss ") + st.Value.Render(format.Bytes(float64(s.ProcRSS)))}

	fixed := len(cpu) + len(nic) + len(lo) + len(proc)
	if fixed > ih {
		lo = nil
		fixed = len(cpu) + len(nic) + len(proc)
	}
	spare := ih - fixed
	cores := m.coreLines(s, iw, gaugeW, spare)
	others := m.otherNICs(s, min(2, spare-len(cores)))
	nic = append(nic, others...)
	spare -= len(others)

	var lines []string
	lines = append(lines, cpu...)
	lines = append(lines, cores...)
	if spare-len(cores) >= 2 {
		lines = append(lines, "")
	}
	lines = append(lines, nic...)
	lines = append(lines, lo...)
	lines = append(lines, proc...)
	if len(lines) > ih {
		lines = lines[:ih]
	}
	m.view = common.Panel(st, bordered, "Client host", lines, m.w, m.h)
}

func (m *Model) gaugeLine(label string, p float64, gaugeW int, value string) string {
	st := m.ctx.Styles
	return " " + st.Label.Render(common.Fit(label, 4)) + " " + common.Gauge(st, gaugeW, p) + " " +
		common.LevelStyle(st, p)(fmt.Sprintf("%4s", value))
}

// coreLines shows every core as a bar when there are rows for all of them,
// else as a strip of one level cell per core.
func (m *Model) coreLines(s rundata.HostSample, iw, gaugeW, rows int) []string {
	st := m.ctx.Styles
	n := len(s.CPUPerCore)
	if n == 0 || rows <= 0 {
		return nil
	}
	if n <= rows-1 || (n <= rows && n <= 2) {
		out := make([]string, n)
		for i, p := range s.CPUPerCore {
			out[i] = m.gaugeLine(fmt.Sprintf(" c%d", i), p, gaugeW, format.Percent(p))
		}
		return out
	}
	stripW := iw - 6
	if stripW < 4 {
		return nil
	}
	var out []string
	for i := 0; i < n && len(out) < rows-1; i += stripW {
		var b strings.Builder
		if i == 0 {
			b.WriteString(" " + st.Label.Render("cores") + " ")
		} else {
			b.WriteString("       ")
		}
		for j := i; j < min(n, i+stripW); j++ {
			b.WriteString(common.Level(st, s.CPUPerCore[j]))
		}
		out = append(out, b.String())
	}
	return out
}

func (m *Model) nicLines(s rundata.HostSample, iw int) []string {
	st := m.ctx.Styles
	if len(s.NICs) == 0 {
		if s.Loopback != nil {
			return []string{" " + st.Label.Render("NIC") + " " + st.Text.Render("lo") + " " + m.rates(*s.Loopback)}
		}
		return []string{" " + st.Label.Render("NIC") + " " + st.Muted.Render("none")}
	}
	n := s.NICs[0]
	head := " " + st.Label.Render("NIC") + " " + st.Text.Render(n.Name)
	if n.SpeedMbps > 0 {
		head += st.Muted.Render(" · " + format.LinkSpeed(n.SpeedMbps))
	}
	out := []string{head}
	if n.SpeedMbps > 0 {
		link := float64(n.SpeedMbps) * 1e6 / 8 // bytes/s
		valW := 10
		gw := iw - 1 - 4 - 1 - valW - 2
		for _, d := range []struct {
			name string
			v    float64
		}{{"rx", n.RxBytesPerSec}, {"tx", n.TxBytesPerSec}} {
			p := d.v / link * 100
			out = append(out, " "+st.Label.Render(common.Fit("  "+d.name, 4))+" "+common.Gauge(st, gw, p)+" "+
				st.Value.Render(fmt.Sprintf("%*s", valW, format.BytesRate(d.v))))
		}
	} else {
		out = append(out, "   "+m.rates(n))
	}
	return out
}

// otherNICs lists the other busy interfaces, one line each, at most n.
func (m *Model) otherNICs(s rundata.HostSample, n int) []string {
	st := m.ctx.Styles
	var out []string
	for i := 1; i < len(s.NICs) && len(out) < n; i++ {
		o := s.NICs[i]
		if o.RxBytesPerSec+o.TxBytesPerSec == 0 {
			continue
		}
		out = append(out, " "+st.Text.Render(common.FitTail(o.Name, 4))+" "+m.rates(o))
	}
	return out
}

func (m *Model) loLine(n rundata.NIC) string {
	st := m.ctx.Styles
	label := "lo  "
	if !m.ctx.Bordered {
		label = "lo"
	}
	return " " + st.Text.Render(label) + " " + m.rates(n)
}

func (m *Model) rates(n rundata.NIC) string {
	st := m.ctx.Styles
	sep := "  "
	if !m.ctx.Bordered {
		sep = " "
	}
	return st.Label.Render("rx ") + st.Value.Render(format.BytesRate(n.RxBytesPerSec)) + sep +
		st.Label.Render("tx ") + st.Value.Render(format.BytesRate(n.TxBytesPerSec))
}
