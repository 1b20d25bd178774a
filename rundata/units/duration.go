package units

import (
	"fmt"
	"strconv"
	"time"
)

// Duration renders a latency compactly: 850ns, 2.1µs, 11.0ms, 1.20s.
func Duration(d time.Duration) string {
	switch {
	case d <= 0:
		return "0"
	case d < time.Microsecond:
		return fmt.Sprintf("%dns", d.Nanoseconds())
	case d < time.Millisecond:
		return trimFloat(float64(d)/1e3) + "µs"
	case d < time.Second:
		return trimFloat(float64(d)/1e6) + "ms"
	}
	return trimFloat(float64(d)/1e9) + "s"
}

func trimFloat(f float64) string {
	switch {
	case f >= 100:
		return strconv.FormatFloat(f, 'f', 0, 64)
	case f >= 10:
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}
