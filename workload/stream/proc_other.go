//go:build !unix

package stream

import "time"

// procCPU is unknown on this system.
func procCPU() time.Duration { return 0 }

// procRSS is unknown on this system.
func procRSS() uint64 { return 0 }
