package main

// [screen] The flags of the live screen's viewers and of library logging,
// kept in one file so that the command-line code around them can change
// without touching them: cli.go hands every flag it does not know to
// screenFlags.parse.

import (
	"net"
	"os"
	"strconv"
	"strings"
)

// screenFlags are --log, --serve-ssh, --ssh-authorized-keys and
// --ssh-viewer-keys.
type screenFlags struct {
	Log            string // library logging goes here ("" = discarded)
	ServeSSH       string // address of the SSH viewer server, "" = none
	AuthorizedKeys string // keys allowed to control the run
	ViewerKeys     string // keys allowed to watch ("" = anyone)
	Demo           bool   // benchtop demo: captions and an end card
}

// parse takes one flag; it reports false for a flag that is not its own.
func (f *screenFlags) parse(name string, need func() (string, error)) (bool, error) {
	switch name {
	case "log", "serve-ssh", "ssh-authorized-keys", "ssh-viewer-keys":
	default:
		return false, nil
	}
	v, err := need()
	if err != nil {
		return true, err
	}
	switch name {
	case "log":
		if err := checkWritable(v); err != nil {
			return true, usagef("--log %s: %v", v, err)
		}
		f.Log = v
	case "serve-ssh":
		host, port, err := net.SplitHostPort(v)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
			return true, usagef("--serve-ssh %q: expected HOST:PORT, e.g. 127.0.0.1:2222", v)
		}
		if host != "" && net.ParseIP(host) == nil && host != "localhost" {
			if _, err := net.LookupHost(host); err != nil {
				return true, usagef("--serve-ssh %q: unknown host %q (allowed: an IP address, localhost or a resolvable name)", v, host)
			}
		}
		f.ServeSSH = v
	case "ssh-authorized-keys", "ssh-viewer-keys":
		if _, err := os.Stat(v); err != nil {
			return true, usagef("--%s %s: %v", name, v, unwrapPathErr(err))
		}
		if name == "ssh-authorized-keys" {
			f.AuthorizedKeys = v
		} else {
			f.ViewerKeys = v
		}
	}
	return true, nil
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

// screenUsage is the help text of these flags.
var screenUsage = strings.TrimLeft(`
  --log FILE         library logging (drivers' own messages) goes to FILE, never to the screen
  --serve-ssh ADDR   SSH viewers watch the live screen, e.g. 127.0.0.1:2222 (run, demo)
  --ssh-authorized-keys FILE   public keys whose viewers may also control the run
  --ssh-viewer-keys FILE       only these public keys may watch (default: anyone who reaches ADDR)
`, "\n")
