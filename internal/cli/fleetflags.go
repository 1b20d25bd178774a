package cli

// The coordinator's flags of `benchtop run|load`: with --agents,
// --agents-file or --ssh the run is a fleet's (fleet.go).

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"

	"benchtop/fleet"
	"benchtop/internal/infile"
	"benchtop/internal/output"
)

// defaultAgentPort is the port of an agent address given without one.
const defaultAgentPort = "7070"

// fleetFlagNames are the coordinator's flags, and whether each takes a
// value. --token is refused: a token on the command line is visible to
// every user of the machine.
var fleetFlagNames = map[string]bool{"agents": true, "agents-file": true, "token-file": true, "tls-ca": true,
	"ssh": true, "ssh-copy": false, "ssh-config": true, "ssh-remote": true, "token": false}

// fleetFlags are the coordinator's flags as given.
type fleetFlags struct {
	Agents     []string // [name=]host[:port]
	AgentsFile string
	TokenFile  string
	TLSCA      string
	SSH        []string // [user@]host
	SSHCopy    bool
	SSHConfig  string
	SSHRemote  string
}

// set takes one flag's value.
func (f *fleetFlags) set(name, v string) error {
	switch name {
	case "token":
		return usagef("--token: a token on the command line is visible to every user of the machine; use --token-file FILE or %s", fleet.TokenEnv)
	case "agents":
		list := splitList(v)
		if len(list) == 0 {
			return usagef("--agents %q: no agent in it (expected HOST:PORT or NAME=HOST:PORT, several separated by commas)", v)
		}
		f.Agents = append(f.Agents, list...)
	case "agents-file":
		f.AgentsFile = v
	case "token-file":
		f.TokenFile = v
	case "tls-ca":
		f.TLSCA = v
	case "ssh":
		list := splitList(v)
		if len(list) == 0 {
			return usagef("--ssh %q: no host in it (expected [user@]host or NAME=[user@]host, several separated by commas)", v)
		}
		f.SSH = append(f.SSH, list...)
	case "ssh-copy":
		f.SSHCopy = true
	case "ssh-config":
		f.SSHConfig = v
	case "ssh-remote":
		f.SSHRemote = v
	}
	return nil
}

// enabled: the run is a fleet's.
func (f *fleetFlags) enabled() bool {
	return len(f.Agents) > 0 || f.AgentsFile != "" || len(f.SSH) > 0
}

// check is what only holds for the whole command line.
func (f *fleetFlags) check() error {
	if !f.enabled() && (f.TokenFile != "" || f.TLSCA != "" || f.SSHCopy || f.SSHConfig != "" || f.SSHRemote != "") {
		return usagef("--token-file, --tls-ca and --ssh-* go with --agents, --agents-file or --ssh")
	}
	return nil
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// endpoints turns the flags into the agents to reach; log takes the ssh
// launcher's lines.
func (f *fleetFlags) endpoints(log io.Writer) ([]fleet.Endpoint, error) {
	specs := append([]string(nil), f.Agents...)
	if f.AgentsFile != "" {
		lines, err := readAgentsFile(f.AgentsFile)
		if err != nil {
			return nil, err
		}
		specs = append(specs, lines...)
	}
	var tlsCfg *tls.Config
	if f.TLSCA != "" {
		pem, err := infile.ReadFile(f.TLSCA)
		if err != nil {
			return nil, usagef("--tls-ca %s: %v", f.TLSCA, output.PathCause(err))
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, usagef("--tls-ca %s: no PEM certificate in it", f.TLSCA)
		}
		tlsCfg = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	var names, addrs []string
	for _, s := range specs {
		name, addr, named := strings.Cut(s, "=")
		if !named {
			addr, name = s, ""
		}
		if _, _, err := net.SplitHostPort(addr); err != nil {
			addr = net.JoinHostPort(addr, defaultAgentPort)
		}
		if err := checkAgentAddr(addr); err != nil {
			return nil, usagef("--agents %q: %v (expected HOST:PORT or NAME=HOST:PORT)", s, err)
		}
		names, addrs = append(names, name), append(addrs, addr)
	}
	auto := fleet.Names(addrs)
	var eps []fleet.Endpoint
	seen := map[string]bool{}
	for i, addr := range addrs {
		name := names[i]
		if name == "" {
			name = auto[i]
		}
		if seen[name] {
			return nil, usagef("--agents: agent name %q given twice", name)
		}
		seen[name] = true
		eps = append(eps, fleet.TCPEndpoint(name, addr, tlsCfg))
	}
	so := fleet.SSHOptions{Config: f.SSHConfig, Remote: f.SSHRemote, Log: log}
	if f.SSHCopy {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("--ssh-copy: cannot find this binary: %w", err)
		}
		so.Copy = exe
	}
	for _, target := range f.SSH {
		name, dest, named := strings.Cut(target, "=")
		if !named {
			dest = target
			name = target
			if _, h, ok := strings.Cut(target, "@"); ok {
				name = h
			}
		}
		if dest == "" || strings.ContainsAny(dest, " \t'\"") || strings.HasPrefix(dest, "-") {
			return nil, usagef("--ssh %q: expected [user@]host or NAME=[user@]host", target)
		}
		if seen[name] {
			name = dest
		}
		if seen[name] {
			return nil, usagef("--ssh: agent name %q given twice", name)
		}
		seen[name] = true
		eps = append(eps, fleet.SSHEndpoint(name, dest, so))
	}
	return eps, nil
}

// checkAgentAddr checks an agent's HOST:PORT before anything is dialled:
// a host name or an IP address, and a port from 1 to 65535.
func checkAgentAddr(addr string) error {
	h, p, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if h == "" {
		return fmt.Errorf("no host")
	}
	if net.ParseIP(h) == nil && !isHostName(h) {
		return fmt.Errorf("host %q is neither an IP address nor a host name", h)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 1 || port > 65535 {
		return fmt.Errorf("port %q is not a number from 1 to 65535", p)
	}
	return nil
}

// isHostName: DNS labels of letters, digits, '-' and '_', separated by
// dots (RFC 1123, and the underscores some internal names carry).
func isHostName(h string) bool {
	if len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// readAgentsFile reads one agent a line; # starts a comment.
func readAgentsFile(path string) ([]string, error) {
	f, err := infile.Open(path)
	if err != nil {
		return nil, usagef("--agents-file %s: %v", path, output.PathCause(err))
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, usagef("--agents-file %s: %v", path, err)
	}
	if len(out) == 0 {
		return nil, usagef("--agents-file %s: no agents in it (one HOST:PORT a line)", path)
	}
	return out, nil
}
