package adaptertest

import (
	"context"
	"fmt"
	"time"

	"benchtop/adapters"
)

// OpenBoundDriver is a driver that never opens: its Open fails with
// "given D", D the time its context left it (rounded to the second). Its
// OpenTimeout asks for 2 hours when the property slowKey is "true", and
// for the default otherwise. It lets a caller's test see that it opens
// within adapters.OpenTimeout.
func OpenBoundDriver(name, slowKey string) adapters.Driver {
	return adapters.Driver{Name: name, Description: "test: tells its open bound", Prefixes: []string{slowKey},
		OpenTimeout: func(p adapters.Properties) time.Duration {
			if p[slowKey] == "true" {
				return 2 * time.Hour
			}
			return 0
		},
		Open: func(ctx context.Context, _ adapters.Properties) (adapters.DB, error) {
			d, _ := ctx.Deadline()
			return nil, fmt.Errorf("given %v", time.Until(d).Round(time.Second))
		}}
}
