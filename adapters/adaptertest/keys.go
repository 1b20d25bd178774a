package adaptertest

import (
	"slices"
	"testing"

	"benchtop/adapters"
)

// CheckKeys checks that a list of property names (a Driver's or a
// workload Factory's Keys) is what a configuration reader reads: read is
// called on a Reader over props (which should set whatever makes the
// reader read its conditional keys); every key read must be listed, and
// every listed key must have been read. A key read under claimed but not
// listed would draw a false "unknown property" warning; a key listed but
// never read would be accepted and dropped.
func CheckKeys(t testing.TB, claimed, keys []string, props adapters.Properties, read func(*adapters.Reader)) {
	t.Helper()
	r := adapters.NewReader(props)
	read(r)
	asked := r.Keys()
	for _, k := range asked {
		if !slices.Contains(keys, k) {
			under := ""
			if adapters.Claims(claimed, k) {
				under = ": it would draw an unknown-property warning"
			}
			t.Errorf("%s is read but not in Keys%s", k, under)
		}
	}
	for _, k := range keys {
		if !slices.Contains(asked, k) {
			t.Errorf("%s is in Keys but was not read: it would be accepted and ignored", k)
		}
	}
}
