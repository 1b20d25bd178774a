package cli

// The files a run reads and writes, checked together before anything
// touches the database (internal/output's Guard): every output is a
// regular file that is no input and no other output, or standard output
// ("-") for one of them.

import (
	"io"

	"benchtop/engine"
	"benchtop/internal/output"
)

// checkRunFiles applies the Guard's rules to o's inputs and outputs; cfg
// (nil: none) adds YCSB's exportfile and HDR files, for which it returns
// their writer. Its errors are bad input (exit status 2), and it leaves
// nothing behind.
func checkRunFiles(st *State, o *options, cfg *engine.Config) (*output.Guard, *output.YCSB, error) {
	g := output.NewGuard()
	for _, f := range o.PropertyFiles {
		g.Input("-P", f)
	}
	for _, f := range o.BaselineFiles {
		g.Input("--baseline", f)
	}
	for flag, f := range map[string]string{"--ssh-authorized-keys": o.Screen.AuthorizedKeys, "--ssh-viewer-keys": o.Screen.ViewerKeys,
		"--agents-file": o.Fleet.AgentsFile, "--token-file": o.Fleet.TokenFile, "--tls-ca": o.Fleet.TLSCA, "--ssh-config": o.Fleet.SSHConfig,
		"-p dynamodb.awsCredentialsFile": o.Props["dynamodb.awsCredentialsFile"]} {
		g.Input(flag, f)
	}
	if err := o.Exports.Check(g); err != nil {
		return nil, nil, err
	}
	if flag := o.Exports.Streaming(); flag != "" && st.Interactive {
		return nil, nil, usagef("%s -: standard output is the live screen's terminal, and this file is written as the run goes; give a file, or --headless to pipe it", flag)
	}
	if log := o.Screen.Log; output.IsStdout(log) {
		return nil, nil, usagef("--log %s: library logging never goes to standard output (the screen and the report do); give a file", log)
	} else if err := g.Output("--log", log); err != nil {
		return nil, nil, err
	}
	if cfg == nil {
		return g, nil, nil
	}
	y, err := output.NewYCSB(cfg, g) // exportfile, HDR files
	if err != nil {
		return nil, nil, err
	}
	return g, y, nil
}

// reportWriter is where the text report goes: standard output, or
// standard error when an export holds standard output (--json - | jq).
func reportWriter(st *State, g *output.Guard) io.Writer {
	if g != nil && g.Stdout() != "" {
		return st.Stderr
	}
	return st.Stdout
}
