//go:build !unix

package adaptertest

import "time"

// CPUTime is not measured here: cpu-us/op reads 0.
func CPUTime() time.Duration { return 0 }
