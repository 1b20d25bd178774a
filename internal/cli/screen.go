package cli

// [screen] The live screen and what it needs: the snapshot fan-out, the
// SSH viewer server, library logging routed away from the terminal, the
// demo's captions and the baseline as the screen draws it.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"benchtop/engine"
	"benchtop/fleet"
	"benchtop/htmlreport"
	"benchtop/internal/output"
	"benchtop/liblog"
	"benchtop/results/steps"
	"benchtop/tui"
	"benchtop/tui/attach"
	"benchtop/tui/common"
	"benchtop/tui/fanout"
	"benchtop/tui/serve"
)

// runScreen runs the engine under the live screen and returns the
// results once the user quit and the terminal is restored or, when the
// terminal was lost (hangup.go), once the run is over.
func runScreen(ctx context.Context, p *plan, o *options) ([]*engine.PhaseResult, error) {
	r, ex, vw, sink := p.runner, p.exports, p.viewers, p.sink
	type out struct {
		res []*engine.PhaseResult
		err error
	}
	done := make(chan out, 1)
	sub, backlog := vw.b.Subscribe(64) // before the run starts
	defer sub.Close()
	go func() {
		res, err := r.Run(ctx)
		done <- out{res, err}
	}()
	// While the screen is up, nothing but it writes to the terminal:
	// standard error goes to --log FILE (or nowhere).
	restore, err := sink.CaptureStderr()
	if err != nil {
		restore = func() {}
	}
	demo, demoEnd := demoCaptions(o)
	uiErr := tui.Run(ctx, tui.Options{
		Info:       r.Info(),
		Snapshots:  sub.C(),
		Backlog:    backlog,
		Control:    r,
		Theme:      o.Theme,
		SaveReport: func() (string, error) { return output.SaveRun(r, ex) },
		Interval:   r.Interval(),
		Viewers:    vw.count(),
		Notice:     p.note,
		Demo:       demo,
		DemoEnd:    demoEnd,
		Baseline:   screenBaseline(o.Baseline),
		Hangup:     p.hangup.screen,
	})
	restore()
	if errors.Is(uiErr, tui.ErrHangup) {
		// The terminal is gone: the run goes on until its end, an
		// attached terminal's q, or SIGTERM; standard error goes away
		// from the terminal (hangup.go).
		p.hangup.lose() // if the terminal failed before SIGHUP came
		p.hangup.afterScreen()
		sub.Close()
		res := <-done
		return res.res, res.err
	}
	r.Stop()
	res := <-done
	if uiErr != nil && res.err == nil {
		res.err = uiErr
	}
	return res.res, res.err
}

// coordinatorScreen runs a fleet under the live screen; when the
// terminal is lost (lt), until the fleet's run is over.
func coordinatorScreen(ctx context.Context, c *fleet.Coordinator, o *options, ex *output.Exports, lt *hangup) ([]*engine.PhaseResult, error) {
	type out struct {
		res []*engine.PhaseResult
		err error
	}
	done := make(chan out, 1)
	b := fanout.New(c.Snapshots()) // the screen and the attached ones
	sub, backlog := b.Subscribe(64)
	defer sub.Close()
	save := func() (string, error) { return output.SaveFleet(c, ex) }
	srv, note := startAttach(o, attach.Options{Info: c.Info(), Control: c, Snapshots: b, SaveReport: save}, "")
	if lt.endless {
		note = joinNotes(note, "runs until stopped: "+noEndReason) // after the attach hint, which must not be cut
	}
	lt.listen(srv)
	go func() {
		res, err := c.Run(ctx)
		done <- out{res, err}
	}()
	uiErr := tui.Run(ctx, tui.Options{Info: c.Info(), Snapshots: sub.C(), Backlog: backlog, Control: c, Theme: o.Theme,
		Baseline: screenBaseline(o.Baseline), SaveReport: save, Notice: note, Hangup: lt.screen})
	if errors.Is(uiErr, tui.ErrHangup) {
		lt.lose() // if the terminal failed before SIGHUP came
		lt.afterScreen()
		sub.Close()
		r := <-done
		return r.res, r.err
	}
	c.Stop()
	r := <-done
	if uiErr != nil && r.err == nil {
		r.err = uiErr
	}
	return r.res, r.err
}

// startAttach opens the run's socket for benchtop attach (tui/attach):
// ao is the run (Info, Control, Snapshots, SaveReport, Interval), o adds
// the screen's options. It returns the socket with the note the screen
// opens with (after note); when the socket cannot be made the run goes
// on without, and the note says why.
func startAttach(o *options, ao attach.Options, note string) (*attach.Server, string) {
	add := func(s string) string {
		if note == "" {
			return s
		}
		return note + " · " + s
	}
	ao.Demo, ao.DemoEnd = demoCaptions(o)
	ao.Theme, ao.Baseline = o.Theme, screenBaseline(o.Baseline)
	ao.CommandLine = strings.Join(maskArgs(o.Args), " ")
	srv, err := attach.Listen(ao)
	if err != nil {
		return nil, add("benchtop attach unavailable: " + output.OneLine(err))
	}
	return srv, add(fmt.Sprintf("run %d: if this terminal is lost, the run goes on: benchtop attach %d", srv.ID(), srv.ID()))
}

// viewers is the snapshot fan-out of a run and its SSH viewer server, if
// one was asked for.
type viewers struct {
	b   *fanout.Broadcaster
	srv *serve.Server
}

// startViewers fans the runner's snapshots out and, with --serve-ssh,
// starts the SSH server; note is the one line to show about who may
// watch ("" for none).
func startViewers(o *options, r *engine.Runner, save func() (string, error)) (v *viewers, note string, err error) {
	v = &viewers{b: fanout.New(r.Snapshots())}
	if o.Screen.ServeSSH == "" {
		return v, "", nil
	}
	demo, demoEnd := demoCaptions(o)
	srv, err := serve.Start(serve.Options{
		Addr:           o.Screen.ServeSSH,
		AuthorizedKeys: o.Screen.AuthorizedKeys,
		ViewerKeys:     o.Screen.ViewerKeys,
		Info:           r.Info(),
		Control:        r,
		Snapshots:      v.b,
		Theme:          o.Theme,
		SaveReport:     save,
		Demo:           demo,
		DemoEnd:        demoEnd,
		Baseline:       screenBaseline(o.Baseline),
	})
	if err != nil {
		return v, "", err
	}
	v.srv = srv
	host, port, _ := net.SplitHostPort(srv.Addr())
	note = "SSH viewers: ssh -p " + port + " " + host
	if n := serve.Note(srv.Addr(), o.Screen.ViewerKeys != ""); n != "" {
		note = n
	}
	return v, note, nil
}

// count is the number of SSH viewers, for the header; nil without a
// server.
func (v *viewers) count() func() int {
	if v == nil || v.srv == nil {
		return nil
	}
	return v.srv.Viewers
}

// done is closed once every snapshot was read.
func (v *viewers) done() chan struct{} {
	ch := make(chan struct{})
	go func() { <-v.b.Done(); close(ch) }()
	return ch
}

func (v *viewers) close() {
	if v != nil && v.srv != nil {
		_ = v.srv.Close()
	}
}

// demoCaptions are the demo's steps as the screen captions them, and the
// end card's line; nil outside the demo. The last step (stop) is the end
// card, not a caption.
func demoCaptions(o *options) (captions []tui.DemoStep, end string) {
	if o.Demo == nil {
		return nil, ""
	}
	for i, d := range o.Demo.Steps {
		ds := tui.DemoStep{Kind: d.Action.String(), Caption: d.Caption}
		switch {
		case i == 0:
			ds.Kind = "start"
		case d.Action == steps.Threads || d.Action == steps.Partitions:
			ds.To = strconv.Itoa(d.N)
		case d.Action == steps.Target:
			ds.To = engine.FormatTarget(d.Rate)
		case d.Action == steps.Stop:
			continue
		}
		captions = append(captions, ds)
	}
	return captions, o.Demo.End
}

// libLogNote says where library output went, once the screen is down.
func libLogNote(sink *liblog.Sink, stderr io.Writer) {
	if sink == nil {
		return
	}
	if n := sink.Lines(); n > 0 && sink.Path() != "" {
		fmt.Fprintf(stderr, "benchtop: %d lines of library logging in %s\n", n, sink.Path())
	}
}

// screenBaseline is the --baseline run as the live screen draws it; nil
// without one.
func screenBaseline(b *output.Baseline) *common.Baseline {
	if b == nil {
		return nil
	}
	sb := &common.Baseline{Name: b.Name(), PerInterval: b.Run.PerInterval(), OpsPerSec: b.Run.Summary.Throughput, SegmentLike: tui.BaselineSegments(&b.Run.Summary),
		PhaseRates: map[string]float64{}}
	for _, ph := range b.Run.Summary.Phases {
		sb.PhaseRates[ph.Phase] = ph.Throughput
	}
	secs := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	for _, sp := range htmlreport.ThroughputSpans(b.Run) {
		sb.Spans = append(sb.Spans, common.BaselineSpan{From: secs(sp.FromS), To: secs(sp.ToS), Rate: sp.Rate})
	}
	return sb
}
