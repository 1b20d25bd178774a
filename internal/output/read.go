package output

import (
	"fmt"
	"io"

	"benchtop/htmlreport"
	"benchtop/internal/infile"
)

// ReadRun reads one run's exports for `benchtop report`: its JSON summary
// and, when given ("" for none), its HDR log and CSV time series. Errors
// name the file.
func ReadRun(jsonPath, hlogPath, csvPath string) (*htmlreport.Run, error) {
	f, err := infile.Open(jsonPath)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", jsonPath, PathCause(err))
	}
	run, err := htmlreport.ReadJSON(f)
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", jsonPath, err)
	}
	read := func(path string, into func(io.Reader) error) error {
		if path == "" {
			return nil
		}
		f, err := infile.Open(path)
		if err != nil {
			return fmt.Errorf("%s: %v", path, PathCause(err))
		}
		defer f.Close()
		if err := into(f); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
	if err := read(hlogPath, run.ReadHDRLog); err != nil {
		return nil, err
	}
	if err := read(csvPath, run.ReadCSV); err != nil {
		return nil, err
	}
	return run, nil
}
