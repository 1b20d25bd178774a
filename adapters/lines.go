package adapters

import (
	"context"
	"time"
)

// LineWriter is implemented by adapters that take batches of InfluxDB line
// protocol (adapters/influx); the time-series workload (workload/timeseries)
// finds it by type assertion. body holds complete lines, each ending in
// '\n'; lines is how many, for messages. A nil error means the server
// acknowledged every line.
type LineWriter interface {
	WriteLines(ctx context.Context, body []byte, lines int) error
	// Precision is the unit of the timestamps WriteLines expects.
	Precision() time.Duration
}

// PointCounter is implemented by line-protocol adapters that can count
// stored points back; without it the time-series workload's final check is
// skipped.
type PointCounter interface {
	// CountPoints returns how many points of measurement, restricted to
	// those whose tags have the given values (none: all), are stored.
	CountPoints(ctx context.Context, measurement string, tags map[string]string) (int64, error)
}
