package adapters

import (
	"strconv"
	"sync"
	"testing"
)

func TestNameCacheReturnsEqualStrings(t *testing.T) {
	var c NameCache
	buf := []byte("field0")
	first := c.String(buf)
	buf[5] = '1' // the caller's bytes change; the cached string must not
	if first != "field0" {
		t.Fatalf("cached string changed with the caller's buffer: %q", first)
	}
	if got := c.String(buf); got != "field1" {
		t.Fatalf("String(field1) = %q", got)
	}
	if got := c.String([]byte("field0")); got != "field0" {
		t.Fatalf("String(field0) again = %q", got)
	}
}

func TestNameCacheHitDoesNotAllocate(t *testing.T) {
	var c NameCache
	b := []byte("field7")
	c.String(b)
	if n := testing.AllocsPerRun(100, func() { _ = c.String(b) }); n != 0 {
		t.Errorf("a cached name costs %v allocations, want 0", n)
	}
}

func TestNameCacheIsBounded(t *testing.T) {
	var c NameCache
	for i := range MaxCachedNames + 100 {
		name := "f" + strconv.Itoa(i)
		if got := c.String([]byte(name)); got != name {
			t.Fatalf("String(%q) = %q", name, got)
		}
	}
	if n := len(*c.m.Load()); n != MaxCachedNames {
		t.Errorf("cache holds %d names, want at most %d", n, MaxCachedNames)
	}
}

func TestNameCacheConcurrent(t *testing.T) {
	var c NameCache
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				name := "field" + strconv.Itoa((i+g)%50)
				if got := c.String([]byte(name)); got != name {
					t.Errorf("String(%q) = %q", name, got)
					return
				}
			}
		}()
	}
	wg.Wait()
}
