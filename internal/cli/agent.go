package cli

// benchtop agent: a client machine of a fleet run. It runs nothing until
// an authenticated coordinator (fleet.go) sends it a run.

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"benchtop/fleet"
	"benchtop/internal/keyfile"
)

// agentOptions are `benchtop agent`'s flags.
type agentOptions struct {
	Listen    string
	Stdio     bool
	TokenFile string
	TLSCert   string
	TLSKey    string
	Once      bool
	// IdleTimeout ends an agent with --once that no coordinator held for
	// that long (exit 1); IdleSet: given on the command line.
	IdleTimeout time.Duration
	IdleSet     bool
	// AuthTimeout and MaxUnauthenticated guard the listener against
	// connections that never authenticate (fleet.ServeListener).
	AuthTimeout        time.Duration
	MaxUnauthenticated int
}

const agentUsage = `Usage:
  benchtop agent --listen ADDR [--token-file FILE] [--tls-cert FILE --tls-key FILE]
                 [--once [--idle-timeout 1h]] [--auth-timeout 5s] [--max-unauthenticated 64]
  benchtop agent --stdio          (run by a coordinator's --ssh through OpenSSH)

An agent runs nothing until an authenticated coordinator (benchtop run ...
--agents HOST:PORT) sends it a run. The shared token comes from --token-file
or BENCHTOP_TOKEN, never from the command line; without one the agent
listens on loopback only. --once exits after one run (a Kubernetes Job);
such an agent that no coordinator held within --idle-timeout (default 1h,
0: wait for ever) exits 1, saying so.
A connection that has not authenticated within --auth-timeout is closed;
at most --max-unauthenticated wait at once (the oldest is closed to make
room), and none keeps a coordinator out.`

// defaultIdleTimeout is --idle-timeout when --once is given without it:
// an agent of a Job that no coordinator reaches frees its CPUs within the
// hour. maxIdleTimeout is the longest allowed (a week).
const (
	defaultIdleTimeout = time.Hour
	maxIdleTimeout     = 7 * 24 * time.Hour
)

// errAgentHelp is --help: the usage on stdout, exit status 0.
var errAgentHelp = errors.New("help")

// parseAgentArgs reads `benchtop agent`'s flags.
func parseAgentArgs(args []string) (*agentOptions, error) {
	o := &agentOptions{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		val, hasVal := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, val, hasVal = k, v, true
		}
		need := func() (string, error) {
			if hasVal {
				return val, nil
			}
			if i+1 >= len(args) {
				return "", usagef("agent: flag --%s needs a value", name)
			}
			i++
			return args[i], nil
		}
		var err error
		switch name {
		case "listen":
			o.Listen, err = need()
		case "stdio":
			o.Stdio = true
		case "once":
			o.Once = true
		case "token-file":
			o.TokenFile, err = need()
		case "tls-cert":
			o.TLSCert, err = need()
		case "tls-key":
			o.TLSKey, err = need()
		case "idle-timeout":
			var v string
			if v, err = need(); err == nil {
				o.IdleTimeout, err = time.ParseDuration(strings.TrimSpace(v))
				if err != nil || o.IdleTimeout < 0 || (o.IdleTimeout > 0 && o.IdleTimeout < 100*time.Millisecond) || o.IdleTimeout > maxIdleTimeout {
					return nil, usagef("agent: --idle-timeout %q: expected 0 (wait for ever) or a duration from 100ms to 168h, e.g. 15m", v)
				}
				o.IdleSet = true
			}
		case "auth-timeout":
			var v string
			if v, err = need(); err == nil {
				o.AuthTimeout, err = time.ParseDuration(strings.TrimSpace(v))
				if err != nil || o.AuthTimeout < 100*time.Millisecond || o.AuthTimeout > 10*time.Minute {
					return nil, usagef("agent: --auth-timeout %q: expected a duration from 100ms to 10m, e.g. 5s", v)
				}
			}
		case "max-unauthenticated":
			var v string
			if v, err = need(); err == nil {
				o.MaxUnauthenticated, err = strconv.Atoi(strings.TrimSpace(v))
				if err != nil || o.MaxUnauthenticated < 1 || o.MaxUnauthenticated > 100000 {
					return nil, usagef("agent: --max-unauthenticated %q: expected a whole number from 1 to 100000", v)
				}
			}
		case "token":
			return nil, usagef("agent: --token: a token on the command line is visible to every user of the machine; use --token-file FILE or %s", fleet.TokenEnv)
		case "h", "help":
			return nil, errAgentHelp
		default:
			return nil, subFlagError("agent", a, name, agentFlags) // help.go
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case o.Stdio && o.Listen != "":
		return nil, usagef("agent: --listen and --stdio exclude each other")
	case !o.Stdio && o.Listen == "":
		return nil, usagef("agent: --listen ADDR (e.g. 0.0.0.0:7070 with a token) or --stdio is needed")
	case (o.TLSCert == "") != (o.TLSKey == ""):
		return nil, usagef("agent: --tls-cert and --tls-key go together")
	case o.Stdio && o.TLSCert != "":
		return nil, usagef("agent: --tls-cert: not with --stdio (ssh encrypts the channel)")
	case o.Stdio && (o.AuthTimeout != 0 || o.MaxUnauthenticated != 0):
		return nil, usagef("agent: --auth-timeout and --max-unauthenticated go with --listen (over --stdio ssh authenticates)")
	case o.IdleSet && (o.Stdio || !o.Once):
		return nil, usagef("agent: --idle-timeout goes with --listen and --once (an agent without --once serves coordinators until stopped)")
	}
	if o.Once && !o.IdleSet {
		o.IdleTimeout = defaultIdleTimeout
	}
	return o, nil
}

// agentCommand is `benchtop agent`: it serves coordinators until a
// signal (TCP) or for one session (stdio). Its log goes to stderr; with
// --stdio, stdin and stdout are the protocol's.
func agentCommand(st *State, args []string) int {
	o, err := parseAgentArgs(args)
	if errors.Is(err, errAgentHelp) {
		fmt.Fprintln(st.Stdout, agentUsage)
		return exitOK
	}
	if err != nil {
		return st.fail(exitUsage, err)
	}
	token, err := fleet.LoadToken(o.TokenFile)
	if err != nil {
		st.tell("agent: %v", err)
		return exitUsage
	}
	cfg := fleet.AgentConfig{Token: token, Log: st.Stderr, Version: "benchtop (development build)", Once: o.Once,
		IdleTimeout: o.IdleTimeout, AuthTimeout: o.AuthTimeout, MaxUnauthenticated: o.MaxUnauthenticated}
	if o.Stdio {
		if err := fleet.ServeStdio(st.ctx(), st.Stdin, st.Stdout, cfg); err != nil {
			return exitFailure
		}
		return exitOK
	}
	var tlsCfg *tls.Config
	if o.TLSCert != "" {
		if err := keyfile.Secret("agent: --tls-key", o.TLSKey); err != nil {
			return st.fail(exitUsage, err)
		}
		cert, err := tls.LoadX509KeyPair(o.TLSCert, o.TLSKey)
		if err != nil {
			st.tell("agent: --tls-cert %s / --tls-key %s: %v", o.TLSCert, o.TLSKey, err)
			return exitUsage
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := fleet.Listen(o.Listen, token, tlsCfg)
	if err != nil {
		st.tell("agent: %v", err)
		return exitUsage
	}
	mode := "no token: loopback only"
	if token != "" {
		mode = "token required"
	}
	if tlsCfg != nil {
		mode += ", TLS"
	}
	if o.Once && o.IdleTimeout > 0 {
		mode += fmt.Sprintf(", --once, exits 1 if no coordinator comes within %s", o.IdleTimeout)
	}
	fmt.Fprintf(st.Stderr, "benchtop agent: listening on %s (%s)\n", ln.Addr(), mode)
	if err := fleet.ServeListener(st.ctx(), ln, cfg); err != nil {
		var idle *fleet.IdleError
		if !errors.As(err, &idle) { // that one the agent's log told
			st.tell("agent: %v", err)
		}
		return exitFailure
	}
	return exitOK
}
