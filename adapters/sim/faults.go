package sim

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"benchtop/adapters"
)

// Window is a stretch of the sim's own clock: from At for For. The clock
// starts at the first operation the model serves (see Faults).
type Window struct {
	At, For time.Duration
}

// End is when the window closes.
func (w Window) End() time.Duration { return w.At + w.For }

func (w Window) String() string { return fmtDur(w.At) + ":" + fmtDur(w.For) }

// Share is a share of operations (0 to 1) that fail, in a window or, when
// Window is nil, all the time.
type Share struct {
	P      float64
	Window *Window
}

func (s Share) String() string {
	p := strconv.FormatFloat(s.P, 'g', -1, 64)
	if s.Window == nil {
		return p
	}
	return p + "@" + s.Window.String()
}

// Faults are the scripted faults, on the sim's own clock, which starts at
// the first operation the model serves (with the default sim.load=instant
// that is the run phase's first operation; with sim.load=modelled, the
// load phase's first insert).
type Faults struct {
	// Stalls: no server does any work (sim.stall). An operation in
	// service when a stall begins is frozen and resumes when it ends; one
	// that arrives during it waits for its end, then for its turn.
	Stalls []Window
	// Outages: the server is down (sim.outage). An operation that arrives
	// during one fails at once with kind "unavailable"; one queued or in
	// service when it begins fails then, and its work is lost.
	Outages []Window
	// Errors: shares of operations that fail with kind "error" after
	// their service time (sim.errors). Where shares overlap, the largest
	// applies.
	Errors []Share
	// NotFound: shares of reads that return NOT_FOUND after their service
	// time (sim.notfound), the key there or not.
	NotFound []Share
}

// String is the faults in the properties' syntax, for Describe.
func (f Faults) String() string {
	var parts []string
	add := func(name string, n int, item func(int) string) {
		if n == 0 {
			return
		}
		s := make([]string, n)
		for i := range s {
			s[i] = item(i)
		}
		parts = append(parts, name+" "+strings.Join(s, ","))
	}
	add("stall", len(f.Stalls), func(i int) string { return f.Stalls[i].String() })
	add("outage", len(f.Outages), func(i int) string { return f.Outages[i].String() })
	add("errors", len(f.Errors), func(i int) string { return f.Errors[i].String() })
	add("notfound", len(f.NotFound), func(i int) string { return f.NotFound[i].String() })
	return strings.Join(parts, "; ")
}

// share is the largest share in force at t (ns on the sim's clock).
func share(shares []Share, t int64) float64 {
	p := 0.0
	for _, s := range shares {
		if s.Window == nil || (t >= int64(s.Window.At) && t < int64(s.Window.End())) {
			p = math.Max(p, s.P)
		}
	}
	return p
}

const windowAllowed = "OFFSET:DURATION[,OFFSET:DURATION...] on the sim's clock, each a duration such as 10s or 1m30s (a bare number is seconds), DURATION > 0, such as 10s:2s"

// parseWindows reads sim.stall or sim.outage: comma-separated windows.
// They come back sorted, overlapping ones merged.
func parseWindows(r *adapters.Reader, key string) []Window {
	v := strings.TrimSpace(r.String(key, ""))
	if v == "" {
		return nil
	}
	var out []Window
	for _, item := range strings.Split(v, ",") {
		w, ok := parseWindow(strings.TrimSpace(item))
		if !ok {
			r.Bad(key, windowAllowed)
			return nil
		}
		out = append(out, w)
	}
	return mergeWindows(out)
}

func parseWindow(s string) (Window, bool) {
	at, dur, ok := strings.Cut(s, ":")
	if !ok {
		return Window{}, false
	}
	a, ok1 := parseOffset(at)
	d, ok2 := parseOffset(dur)
	if !ok1 || !ok2 || d <= 0 {
		return Window{}, false
	}
	return Window{At: a, For: d}, true
}

// parseOffset reads a duration >= 0: a Go duration or a bare number of
// seconds.
func parseOffset(s string) (time.Duration, bool) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f < 0 || math.IsNaN(f) || f*1e9 >= math.MaxInt64/2 {
			return 0, false
		}
		return time.Duration(f * 1e9), true
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 || d >= math.MaxInt64/2 {
		return 0, false
	}
	return d, true
}

// mergeWindows sorts windows by start and merges those that overlap or
// touch.
func mergeWindows(ws []Window) []Window {
	sort.Slice(ws, func(i, j int) bool { return ws[i].At < ws[j].At })
	var out []Window
	for _, w := range ws {
		if n := len(out); n > 0 && w.At <= out[n-1].End() {
			if w.End() > out[n-1].End() {
				out[n-1].For = w.End() - out[n-1].At
			}
			continue
		}
		out = append(out, w)
	}
	return out
}

const shareAllowed = "SHARE[@OFFSET:DURATION][,...]: a share from 0 to 1 of operations, all the time or in a window of the sim's clock, such as 0.01 or 0.5@30s:10s"

// parseShares reads sim.errors or sim.notfound.
func parseShares(r *adapters.Reader, key string) []Share {
	v := strings.TrimSpace(r.String(key, ""))
	if v == "" {
		return nil
	}
	var out []Share
	for _, item := range strings.Split(v, ",") {
		p, win, hasWin := strings.Cut(strings.TrimSpace(item), "@")
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			r.Bad(key, shareAllowed)
			return nil
		}
		s := Share{P: f}
		if hasWin {
			w, ok := parseWindow(strings.TrimSpace(win))
			if !ok {
				r.Bad(key, shareAllowed)
				return nil
			}
			s.Window = &w
		}
		out = append(out, s)
	}
	return out
}

// fmtDur writes a duration as the properties take it, shortly: 10s, 1.5s,
// 250ms, 1m30s.
func fmtDur(d time.Duration) string {
	s := d.String()
	s = strings.Replace(s, "m0s", "m", 1)
	s = strings.Replace(s, "h0m", "h", 1)
	return s
}

// errOutage and errFault are what the scripted failures return: an
// outage's kind is unavailable, a scripted error's the plain "error".
var (
	errOutage = adapters.WithKind(adapters.KindUnavailable, fmt.Errorf("sim: server unavailable (scripted outage, sim.outage)"))
	errFault  = fmt.Errorf("sim: operation failed (scripted error, sim.errors)")
)
