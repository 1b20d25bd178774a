package engine

import (
	"runtime"
	"runtime/debug"
	"strings"

	"benchtop/engine/host"
)

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
