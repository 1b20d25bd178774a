package ycsb

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"benchtop/adapters"

	"benchtop/workload/gen"
)

// Keys as YCSB's CoreWorkload.buildKeyName makes them (hashed insert
// order, zeropadding 1): key number 0 is the well-known first YCSB key.
func TestKeyNameMatchesYCSB(t *testing.T) {
	t.Parallel()
	cfg := &Config{ZeroPadding: 1}
	if got, want := cfg.KeyName(0), "user6284781860667377211"; got != want {
		t.Errorf("KeyName(0) = %q, want %q", got, want)
	}
	ordered := &Config{ZeroPadding: 5, OrderedInserts: true}
	if got, want := ordered.KeyName(42), "user00042"; got != want {
		t.Errorf("ordered KeyName(42) = %q, want %q", got, want)
	}
}

// appendDigits is strconv's decimal with leading zeros to the width, for
// every digit count, the edges of each 4-digit group and random values.
func TestAppendDigitsMatchesStrconv(t *testing.T) {
	t.Parallel()
	var vals []uint64
	for p := uint64(1); p != 0 && p <= math.MaxUint64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, 2*p-1, 9*p)
	}
	vals = append(vals, 0, 1e19, math.MaxUint64, math.MaxInt64, math.MaxInt64-1)
	r := rand.New(rand.NewPCG(7, 11))
	for range 100000 {
		vals = append(vals, r.Uint64()>>r.IntN(64))
	}
	for _, u := range vals {
		for _, width := range []int{0, 1, 5, 19, 20, 21, 64} {
			want := strconv.FormatUint(u, 10)
			for len(want) < width {
				want = "0" + want
			}
			if got := string(appendDigits([]byte("user"), u, width)); got != "user"+want {
				t.Fatalf("appendDigits(%d, %d) = %q, want %q", u, width, got, "user"+want)
			}
		}
	}
}

// Negative ordered key numbers keep strconv's sign.
func TestKeyNameNegativeOrdered(t *testing.T) {
	t.Parallel()
	c := &Config{ZeroPadding: 4, OrderedInserts: true}
	if got, want := c.KeyName(-7), "user00-7"; got != want {
		t.Errorf("KeyName(-7) = %q, want %q", got, want)
	}
}

var keySink int

// BenchmarkKeyName is one hashed YCSB key (FNV of the number, 19 digits)
// built into the worker's array; BenchmarkKeyNameStrconv is the same with
// strconv's digits, for comparison.
func BenchmarkKeyName(b *testing.B) {
	w := &coreWorkload{cfg: &Config{ZeroPadding: 1}}
	var a [keyArrLen]byte
	n := 0
	for i := 0; b.Loop(); i++ {
		n += len(w.keyInto(&a, int64(i)))
	}
	keySink = n
}

func BenchmarkKeyNameStrconv(b *testing.B) {
	buf := make([]byte, 0, 64)
	n := 0
	for i := 0; b.Loop(); i++ {
		buf = strconv.AppendInt(append(buf[:0], "user"...), gen.FNVHash64(int64(i)), 10)
		n += len(buf)
	}
	keySink = n
}

// The popular keys' table changes no key: a worker drawing with it and
// one drawing without it, from the same seed, choose the same keys, and
// the table's hits are about the share its ranks have.
func TestHotKeysDrawTheSameKeys(t *testing.T) {
	t.Parallel()
	for _, order := range []string{"hashed", "ordered"} {
		cfg, err := ParseConfig("run", adapters.Properties{"recordcount": "100000", "requestdistribution": "zipfian", "insertorder": order})
		if err != nil {
			t.Fatal(err)
		}
		w, err := newCoreWorkload(cfg, nil)
		if err != nil {
			t.Fatal(err)
		}
		if w.hot == nil {
			t.Fatalf("%s: no popular keys' table for a scrambled zipfian", order)
		}
		with := w.newWorker(5)
		var keys []string
		hits := 0
		for range 50000 {
			k := with.nextKey()
			if len(k) > 0 && unsafe.StringData(k) != &with.keyArr[keyArrLen-len(k)] {
				hits++
			}
			keys = append(keys, strings.Clone(k))
		}
		hot := w.hot
		w.hot = nil
		without := w.newWorker(5)
		for i, want := range keys {
			if got := without.nextKey(); got != want {
				t.Fatalf("%s: key %d: %q with the table, %q without", order, i, want, got)
			}
		}
		w.hot = hot
		// Ranks below hotRanks (8192) are about 38 % of the draws.
		if hits < 50000*31/100 || hits > 50000*45/100 {
			t.Errorf("%s: %d of 50000 keys from the table, want about 38 %%", order, hits)
		}
	}
}
