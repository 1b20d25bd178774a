package engine

import (
	"runtime"
	"runtime/debug"
	"strings"

	"benchtop/engine/host"
)

// RunMeta is what a report says about the run itself: the command line
// (secrets masked by whoever built it), the build, the client host.
type RunMeta struct {
	CommandLine string       `json:"command_line"`
	Version     BuildVersion `json:"version"`
	Host        host.Machine `json:"host"`
}

// BuildVersion is benchtop's build: the module version, the VCS revision
// it was built from, and the Go toolchain.
type BuildVersion struct {
	Module    string `json:"module"`             // e.g. "v1.2.0", "(devel)"
	Revision  string `json:"revision,omitempty"` // VCS revision, "" when not stamped
	Time      string `json:"vcs_time,omitempty"`
	Modified  bool   `json:"modified,omitempty"` // built from a tree with uncommitted changes
	GoVersion string `json:"go"`
}

// String is the one-line form `benchtop --version` prints.
func (v BuildVersion) String() string {
	s := "benchtop " + v.Module
	if v.Revision != "" {
		s += " (" + v.Revision
		if v.Modified {
			s += ", modified"
		}
		if v.Time != "" {
			s += ", " + v.Time
		}
		s += ")"
	}
	return s + " " + v.GoVersion
}

// Version reads benchtop's build information (runtime/debug.ReadBuildInfo).
func Version() BuildVersion {
	v := BuildVersion{Module: "(devel)", GoVersion: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	if bi.Main.Version != "" {
		v.Module = bi.Main.Version
	}
	if bi.GoVersion != "" {
		v.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Revision = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// CollectMeta describes this run: args is the command line as given after
// the program name, with its secrets already masked.
func CollectMeta(args []string) RunMeta {
	return RunMeta{
		CommandLine: strings.Join(append([]string{"benchtop"}, quoteArgs(args)...), " "),
		Version:     Version(),
		Host:        host.Describe(),
	}
}

// quoteArgs quotes the arguments a shell would split, so that the command
// line reads back as it was typed.
func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		out[i] = a
	}
	return out
}
