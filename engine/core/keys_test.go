package core

import "testing"

// Keys as YCSB's CoreWorkload.buildKeyName makes them (hashed insert
// order, zeropadding 1): key number 0 is the well-known first YCSB key.
func TestKeyNameMatchesYCSB(t *testing.T) {
	cfg := &Config{ZeroPadding: 1}
	if got, want := cfg.KeyName(0), "user6284781860667377211"; got != want {
		t.Errorf("KeyName(0) = %q, want %q", got, want)
	}
	ordered := &Config{ZeroPadding: 5, OrderedInserts: true}
	if got, want := ordered.KeyName(42), "user00042"; got != want {
		t.Errorf("ordered KeyName(42) = %q, want %q", got, want)
	}
}
