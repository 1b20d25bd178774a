package units

import (
	"math"
	"strconv"
)

// decimalUnits are the SI byte units; network rates and link speeds are
// decimal (1 Gbit/s = 125 MB/s), so sizes are too, for one consistent scale.
var decimalUnits = [...]string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}

// BytesRate formats a rate in bytes/s with decimal units, for
// example "0 B/s", "512 B/s", "2.1 MB/s", "125 MB/s". Negative and NaN
// rates format as "0 B/s".
func BytesRate(bps float64) string {
	if !(bps > 0) { // also NaN
		bps = 0
	}
	return formatDecimal(bps) + "/s"
}

// Bytes formats a byte count with decimal units, for example
// "0 B", "812 kB", "61 MB", "1.2 GB".
func Bytes(n uint64) string {
	return formatDecimal(float64(n))
}

// formatDecimal keeps two or three significant digits: whole bytes, one
// decimal below 10 of a larger unit, none from 10 up.
func formatDecimal(v float64) string {
	if math.IsInf(v, 1) {
		return "+Inf B"
	}
	u := 0
	for u < len(decimalUnits)-1 && roundFor(u, v) >= 1000 {
		v /= 1000
		u++
	}
	prec := 0
	if u > 0 && roundFor(u, v) < 10 {
		prec = 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " " + decimalUnits[u]
}

// roundFor rounds v as it would be printed in unit u, so that 999.7 kB
// becomes 1.0 MB rather than "1000 kB".
func roundFor(u int, v float64) float64 {
	if u > 0 && v < 10 {
		return math.Round(v*10) / 10
	}
	return math.Round(v)
}
