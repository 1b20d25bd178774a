package adapters

import (
	"sync"
	"sync/atomic"
)

// NameCache turns field names read off the wire into strings without an
// allocation per field per operation: the same few names (field0 ...
// field9) come back in every reply, and a string is immutable, so one
// copy can be handed to every caller. It is safe for concurrent use; the
// zero value is ready. Lookups read an immutable map (no lock); a new
// name copies the map, up to MaxCachedNames names, after which new names
// are plain allocations again.
type NameCache struct {
	m  atomic.Pointer[map[string]string]
	mu sync.Mutex
}

// MaxCachedNames bounds a NameCache, so that a workload with ever new
// field names cannot grow it without limit.
const MaxCachedNames = 1024

// String returns b as a string, the cached copy when b was seen before.
func (c *NameCache) String(b []byte) string {
	if m := c.m.Load(); m != nil {
		if s, ok := (*m)[string(b)]; ok { // no allocation: the compiler's map-index form
			return s
		}
	}
	return c.add(b)
}

func (c *NameCache) add(b []byte) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old != nil {
		if s, ok := (*old)[string(b)]; ok {
			return s
		}
		if len(*old) >= MaxCachedNames {
			return string(b)
		}
	}
	s := string(b)
	m := make(map[string]string, 1+lenOf(old))
	if old != nil {
		for k, v := range *old {
			m[k] = v
		}
	}
	m[s] = s
	c.m.Store(&m)
	return s
}

func lenOf(m *map[string]string) int {
	if m == nil {
		return 0
	}
	return len(*m)
}
