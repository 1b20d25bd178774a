package cli

// The flags of the live screen's viewers and of library logging, kept
// apart so that the command-line code around them can change without
// touching them: flags.go hands these names to screenFlags.set.

import (
	"net"
	"os"
	"strconv"

	"benchtop/internal/output"
)

// screenFlagNames are the live screen's flags; screenFlagValues say what
// their values are.
var (
	screenFlagNames  = []string{"log", "serve-ssh", "ssh-authorized-keys", "ssh-viewer-keys"}
	screenFlagValues = map[string]string{"log": "a file name", "serve-ssh": "HOST:PORT",
		"ssh-authorized-keys": "a file name", "ssh-viewer-keys": "a file name"}
)

// screenFlags are --log, --serve-ssh, --ssh-authorized-keys and
// --ssh-viewer-keys.
type screenFlags struct {
	Log            string // library logging goes here ("" = discarded)
	ServeSSH       string // address of the SSH viewer server, "" = none
	AuthorizedKeys string // keys allowed to control the run
	ViewerKeys     string // keys allowed to watch ("" = anyone)
}

// set takes one flag's value.
func (f *screenFlags) set(name, v string) error {
	switch name {
	case "log":
		if err := output.CheckWritable(v); err != nil {
			return usagef("--log %s: %v", v, err)
		}
		f.Log = v
	case "serve-ssh":
		host, port, err := net.SplitHostPort(v)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
			return usagef("--serve-ssh %q: expected HOST:PORT, e.g. 127.0.0.1:2222", v)
		}
		if host != "" && net.ParseIP(host) == nil && host != "localhost" {
			if _, err := net.LookupHost(host); err != nil {
				return usagef("--serve-ssh %q: unknown host %q (allowed: an IP address, localhost or a resolvable name)", v, host)
			}
		}
		f.ServeSSH = v
	case "ssh-authorized-keys", "ssh-viewer-keys":
		if _, err := os.Stat(v); err != nil {
			return usagef("--%s %s: %v", name, v, output.PathCause(err))
		}
		if name == "ssh-authorized-keys" {
			f.AuthorizedKeys = v
		} else {
			f.ViewerKeys = v
		}
	}
	return nil
}

// check is what only holds for the whole command line.
func (f *screenFlags) check() error {
	if f.ServeSSH == "" && (f.AuthorizedKeys != "" || f.ViewerKeys != "") {
		which := "--ssh-authorized-keys"
		if f.AuthorizedKeys == "" {
			which = "--ssh-viewer-keys"
		}
		return usagef("%s given without --serve-ssh ADDR", which)
	}
	return nil
}
