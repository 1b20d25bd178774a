package main

// [screen] What the live screen needs of main: library logging routed
// away from the terminal, the snapshot fan-out, the SSH viewer server and
// the demo's captions. main.go and interactive.go call these in one
// place each.

import (
	"fmt"
	"io"
	"net"
	"runtime"
	"strconv"

	"benchtop/engine"
	"benchtop/engine/steps"
	"benchtop/liblog"
	"benchtop/tui"
	"benchtop/tui/fanout"
	"benchtop/tui/serve"
)

// viewers is the SSH viewer server of a run, if one was asked for.
type viewers struct {
	b   *fanout.Broadcaster
	srv *serve.Server
}

// startViewers fans the runner's snapshots out and, with --serve-ssh,
// starts the SSH server; note is the one line to show about who may
// watch ("" for none).
func startViewers(o *cliOptions, r *engine.Runner, save func() (string, error)) (v *viewers, note string, err error) {
	v = &viewers{b: fanout.New(r.Snapshots())}
	if o.Screen.ServeSSH == "" {
		return v, "", nil
	}
	srv, err := serve.Start(serve.Options{
		Addr:           o.Screen.ServeSSH,
		AuthorizedKeys: o.Screen.AuthorizedKeys,
		ViewerKeys:     o.Screen.ViewerKeys,
		Info:           r.Info(),
		Control:        r,
		Snapshots:      v.b,
		Theme:          o.Theme,
		SaveReport:     save,
		Demo:           demoCaptions(o),
		Baseline:       o.Baseline.screen(), // --baseline (baseline.go)
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

// demoCaptions are the demo's steps as the screen captions them; nil
// outside the demo. The last step (stop) is the end card, not a caption.
func demoCaptions(o *cliOptions) []tui.DemoStep {
	if !o.Screen.Demo {
		return nil
	}
	var out []tui.DemoStep
	for i, d := range steps.DemoScenario(runtime.NumCPU()) {
		ds := tui.DemoStep{Kind: d.Action.String(), Caption: d.Caption}
		switch {
		case i == 0:
			ds.Kind = "start"
		case d.Action == steps.Threads || d.Action == steps.Partitions:
			ds.To = strconv.Itoa(d.N)
		case d.Action == steps.Stop:
			continue
		}
		out = append(out, ds)
	}
	return out
}

// openLibLog routes the libraries' logging to --log FILE (or nowhere).
func openLibLog(o *cliOptions, _ io.Writer) (*liblog.Sink, error) {
	sink, err := liblog.Open(o.Screen.Log)
	if err != nil {
		return nil, fmt.Errorf("%v", err)
	}
	return sink, nil
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
