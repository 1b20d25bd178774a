package output

import "fmt"

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

// Check refuses paths that cannot be written, before anything touches
// the database (CheckWritable); the error names the flag and the path.
// It leaves nothing behind.
func (p Paths) Check() error {
	for _, e := range p.flags() {
		if e.path == "" {
			continue
		}
		if err := CheckWritable(e.path); err != nil {
			return fmt.Errorf("%s %s: %v", e.flag, e.path, err)
		}
	}
	return nil
}
