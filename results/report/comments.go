package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"benchtop/engine"
)

// measurementLine is a line in YCSB's shape, "[SECTION], name, value":
// what scripts written for YCSB parse. Everything else benchtop writes
// is a comment line starting with '#'.
var measurementLine = regexp.MustCompile(`^\[[^\]]+\], [^,]+, [^,\s]+$`)

// IsMeasurementLine reports whether line is in YCSB's "[SECTION], name,
// value" shape.
func IsMeasurementLine(line string) bool { return measurementLine.MatchString(line) }

// commented writes b with every line that is neither a comment nor a
// measurement line made a comment: "# " before it, "#" for a blank line.
// The tables benchtop adds after the YCSB part (segments, stream,
// time series, verdicts) go through it, so that a parser reading
// "[SECTION], name, value" lines never meets one of their rows.
func commented(w io.Writer, b []byte) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "#") || IsMeasurementLine(l):
			fmt.Fprintln(w, l)
		case strings.TrimSpace(l) == "":
			fmt.Fprintln(w, "#")
		default:
			fmt.Fprintln(w, "# "+l)
		}
	}
}

// writeMetaComment writes the run's metadata as comment lines before the
// YCSB part: the build, the command line (secrets masked), the client
// host and the start time in UTC.
func writeMetaComment(w io.Writer, info engine.Info) {
	m := info.Meta
	if m.CommandLine == "" {
		return
	}
	h := m.Host
	fmt.Fprintf(w, "# %s\n", m.Version)
	fmt.Fprintf(w, "# command line: %s\n", m.CommandLine)
	cpu := h.CPUModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(w, "# host: %s, %s, %d cores, GOMAXPROCS %d, %s %s (%s)\n", h.Hostname, cpu, h.Cores, h.GOMAXPROCS, h.OS, h.Kernel, h.Arch)
	if info.Agents > 0 {
		th, err := strconv.Atoi(info.Properties["threadcount"])
		if err != nil || th < 1 {
			th = 1
		}
		fmt.Fprintf(w, "# fleet: %d agents, Threads %d/agent (%d total)\n", info.Agents, th, th*info.Agents)
	}
	if !info.Start.IsZero() {
		fmt.Fprintf(w, "# start: %s\n", info.Start.UTC().Format(time.RFC3339))
	}
}
