package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine"
	"benchtop/engine/measure"
)

// HDRFiles writes YCSB's own HDR output (hdrhistogram.fileoutput=true):
// one HdrHistogram interval log per measurement, named PREFIX + NAME +
// ".hdr" (PREFIX is hdrhistogram.output.path, READ.hdr in the current
// directory by default), values in microseconds, the header YCSB writes
// ("#[Logging for: READ]", format version, start time, legend). A file is
// created when its measurement first has data. Only the phase the command
// names is logged (run for `run`, load for `load`), as one YCSB process
// runs one.
type HDRFiles struct {
	prefix   string
	phase    engine.Phase
	start    time.Time
	op       bool // raw (service time) measurements
	intended bool // Intended- measurements

	// Create opens a file by its final name; nil is os.Create. The
	// writer's Close puts the file in place (internal/output writes it
	// beside the name and renames it); on a write error a writer with a
	// Discard method is discarded instead.
	Create func(path string) (io.WriteCloser, error)

	mu    sync.Mutex
	files map[string]*hdrFile
	order []*hdrFile
	err   error
}

type hdrFile struct {
	path string
	f    io.WriteCloser
	bw   *bufio.Writer
	lw   *hdr.HistogramLogWriter
}

// NewHDRFiles prepares the files for phase; measurement is
// measurement.interval (op, intended, both), which says which
// measurements YCSB keeps.
func NewHDRFiles(prefix string, phase engine.Phase, measurement string, start time.Time) *HDRFiles {
	return &HDRFiles{prefix: prefix, phase: phase, start: start, files: map[string]*hdrFile{},
		op: measurement != "intended", intended: measurement != "op"}
}

// Interval logs one interval. It matches engine.Options.OnInterval.
func (l *HDRFiles) Interval(phase engine.Phase, names []string, start, end time.Time, set *measure.Set) {
	if phase != l.phase {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	for op := 0; op < len(names) && op < measure.NumOps; op++ {
		for _, v := range []struct {
			variant int
			name    string
			on      bool
		}{
			{measure.OK, names[op], l.op},
			{measure.Failed, names[op] + "-FAILED", l.op},
			{measure.OKIntended, "Intended-" + names[op], l.intended},
			{measure.FailedIntended, "Intended-" + names[op] + "-FAILED", l.intended},
		} {
			h := set.H[measure.Slot(op, v.variant)]
			if !v.on || h == nil || h.TotalCount() == 0 {
				continue
			}
			if err := l.write(v.name, start, end, h); err != nil {
				l.err = err
				return
			}
		}
	}
}

func (l *HDRFiles) write(name string, start, end time.Time, h *hdr.Histogram) error {
	f, err := l.file(name)
	if err != nil {
		return err
	}
	us := microseconds(h)
	us.SetStartTimeMs(start.UnixMilli())
	us.SetEndTimeMs(end.UnixMilli())
	return f.lw.OutputIntervalHistogram(us)
}

// file returns the log of name, creating it with YCSB's header.
func (l *HDRFiles) file(name string) (*hdrFile, error) {
	if f := l.files[name]; f != nil {
		return f, nil
	}
	path := l.prefix + name + ".hdr"
	create := l.Create
	if create == nil {
		create = func(p string) (io.WriteCloser, error) { return os.Create(p) }
	}
	fh, err := create(path)
	if err != nil {
		return nil, fmt.Errorf("hdrhistogram.output.path: %w", err)
	}
	bw := bufio.NewWriter(fh)
	lw := hdr.NewHistogramLogWriter(bw)
	ms := l.start.UnixMilli()
	_ = lw.OutputComment("[Logging for: " + name + "]")
	_ = lw.OutputLogFormatVersion()
	_ = lw.OutputStartTime(ms)
	lw.SetBaseTime(ms)
	if err := lw.OutputLegend(); err != nil {
		if d, ok := fh.(interface{ Discard() }); ok {
			d.Discard()
		} else {
			fh.Close()
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f := &hdrFile{path: path, f: fh, bw: bw, lw: lw}
	l.files[name] = f
	l.order = append(l.order, f)
	return f, nil
}

// microseconds re-records a histogram of nanoseconds in whole
// microseconds, YCSB's unit (each bar as its middle value, truncated as
// YCSB's latency/1000).
func microseconds(h *hdr.Histogram) *hdr.Histogram {
	out := hdr.New(1, measure.Highest/1000, measure.Digits)
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			_ = out.RecordValues(max(1, (b.From+b.To)/2/1000), b.Count)
		}
	}
	return out
}

// Close flushes and closes every file and returns the paths of those
// written whole, and the errors seen.
func (l *HDRFiles) Close() ([]string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	errs := []error{l.err}
	var written []string
	for _, f := range l.order {
		err := f.bw.Flush()
		if d, ok := f.f.(interface{ Discard() }); ok && (err != nil || l.err != nil) {
			d.Discard()
		} else if cerr := f.f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.path, err))
		} else if l.err == nil {
			written = append(written, f.path)
		}
	}
	l.files, l.order = map[string]*hdrFile{}, nil
	return written, errors.Join(errs...)
}
