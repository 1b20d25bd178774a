package sim

import (
	"fmt"
	"testing"

	"benchtop/adapters"
)

func TestStoreHoldsEveryKey(t *testing.T) {
	st := newStore()
	for i := range 1000 {
		st.insert("t", fmt.Sprintf("user%d", i*7919%100003), []adapters.Field{{Name: "f", Value: []byte{byte(i)}}})
	}
	for i := range 1000 {
		if _, ok := st.read("t", fmt.Sprintf("user%d", i*7919%100003), nil, nil); !ok {
			t.Fatalf("key %d missing", i)
		}
	}
}
