package rundata

// RunMeta is what a report says about the run itself: the command line
// (secrets masked by whoever built it), the build, the client host.
type RunMeta struct {
	CommandLine string       `json:"command_line"`
	Version     BuildVersion `json:"version"`
	Host        Machine      `json:"host"`
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
