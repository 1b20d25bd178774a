package output

// Paths are the export files a run was asked for, "" for none.
type Paths struct {
	JSON       string // --json: the JSON summary (Summary)
	TimeSeries string // --timeseries: CSV, one row per interval
	HDRLog     string // --hdr-log: the HdrHistogram interval log
	HTML       string // --html: the report page
}

// flags pairs each path with the flag that named it, for messages.
func (p Paths) flags() []struct{ flag, path string } {
	return []struct{ flag, path string }{{"--json", p.JSON}, {"--timeseries", p.TimeSeries}, {"--hdr-log", p.HDRLog}, {"--html", p.HTML}}
}

// Check refuses paths that cannot be written or break the Guard's rules,
// before anything touches the database, and records them in g; the error
// names the flag and the path. It leaves nothing behind.
func (p Paths) Check(g *Guard) error {
	for _, e := range p.flags() {
		if err := g.Output(e.flag, e.path); err != nil {
			return err
		}
	}
	return nil
}

// Streaming names the first export written as the run goes (--timeseries,
// --hdr-log) whose path is standard output, "" for none.
func (p Paths) Streaming() string {
	for _, e := range p.flags()[1:3] {
		if IsStdout(e.path) {
			return e.flag
		}
	}
	return ""
}
