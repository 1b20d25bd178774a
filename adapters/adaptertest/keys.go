package adaptertest

import (
	"slices"
	"testing"

	"benchtop/adapters"
)

// CheckKeys checks that a list of property names (a Driver's or a
// workload Factory's Keys) is what a configuration reader reads: read is
// called on a Reader over props (which should set whatever makes the
// reader read its conditional keys); every key read under claimed must be
// listed, and every listed key must have been read. A key read but not
// listed would draw a false "unknown property" warning; a key listed but
// never read would be accepted and dropped.
func CheckKeys(t testing.TB, claimed, keys []string, props adapters.Properties, read func(*adapters.Reader)) {
	t.Helper()
	r := adapters.NewReader(props)
	read(r)
	asked := r.Keys()
	for _, k := range asked {
		if adapters.Claims(claimed, k) && !slices.Contains(keys, k) {
			t.Errorf("%s is read but not in Keys: it would draw an unknown-property warning", k)
		}
	}
	for _, k := range keys {
		if !slices.Contains(asked, k) {
			t.Errorf("%s is in Keys but was not read: it would be accepted and ignored", k)
		}
		if !adapters.Claims(claimed, k) {
			t.Errorf("%s is in Keys but under none of %q", k, claimed)
		}
	}
}
