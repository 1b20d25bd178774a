package ycsb

import (
	"fmt"
	"strconv"
	"strings"

	"benchtop/adapters"
)

// Fields is which fields an operation reads or writes: YCSB's
// readallfields/writeallfields (all of them, or one at random), or
// benchtop's readfields/writefields for wide rows: a fixed set (the
// published HBase scenarios read and write f0 ... f19 of 100 columns on
// every operation) or N distinct fields at random.
type Fields struct {
	All    bool  // every field
	Fixed  []int // these fields (indexes), every operation
	Random int   // this many distinct fields at random (YCSB's "one": 1)
}

// parseFields reads readfields or writefields: "all", "first:N" (fields
// 0 to N-1), "random:N", or a comma-separated list of field names. Absent,
// the YCSB property allKey decides: all, or one field at random.
func parseFields(r *adapters.Reader, key, allKey string, allDef bool, names []string) Fields {
	v := strings.TrimSpace(r.String(key, ""))
	if v == "" {
		if r.Bool(allKey, allDef) {
			return Fields{All: true}
		}
		return Fields{Random: 1}
	}
	allowed := fmt.Sprintf("all, first:N, random:N (N from 1 to fieldcount=%d) or a list of field names such as %s,%s", len(names), names[0], names[len(names)-1])
	kind, arg, hasArg := strings.Cut(v, ":")
	switch {
	case v == "all":
		return Fields{All: true}
	case hasArg && (kind == "first" || kind == "random"):
		n, err := strconv.Atoi(strings.TrimSpace(arg))
		if err != nil || n < 1 || n > len(names) {
			r.Bad(key, allowed)
			return Fields{All: true}
		}
		if kind == "random" {
			return Fields{Random: n}
		}
		f := Fields{}
		for i := range n {
			f.Fixed = append(f.Fixed, i)
		}
		return f
	}
	index := make(map[string]int, len(names))
	for i, n := range names {
		index[n] = i
	}
	f := Fields{}
	seen := map[int]bool{}
	for _, name := range strings.Split(v, ",") {
		i, ok := index[strings.TrimSpace(name)]
		if !ok || seen[i] {
			r.Bad(key, allowed+" (each once)")
			return Fields{All: true}
		}
		seen[i] = true
		f.Fixed = append(f.Fixed, i)
	}
	return f
}

// fieldNames are the record's field names: fieldnameprefix + index, as
// YCSB's CoreWorkload names them.
func fieldNames(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// pick returns the field indexes of one operation: fixed ones as they
// are, random ones drawn without repetition by a partial Fisher-Yates
// shuffle of the worker's own permutation (no allocation).
func (cw *coreWorker) pick(f Fields) []int {
	if f.Fixed != nil {
		return f.Fixed
	}
	n := len(cw.perm)
	for i := 0; i < f.Random; i++ {
		j := i + cw.r.IntN(n-i)
		cw.perm[i], cw.perm[j] = cw.perm[j], cw.perm[i]
	}
	return cw.perm[:f.Random]
}

// randomNames draws the field names of one read: f.Random distinct ones.
func (cw *coreWorker) randomNames(f Fields) []string {
	cw.names = cw.names[:0]
	for _, i := range cw.pick(f) {
		cw.names = append(cw.names, cw.w.fieldNames[i])
	}
	return cw.names
}

// buildValues fills cw.values for key with the fields f chooses.
func (cw *coreWorker) buildValues(key string, f Fields) []adapters.Field {
	w := cw.w
	cw.values = cw.values[:0]
	if f.All {
		for i, name := range w.fieldNames {
			cw.values = append(cw.values, adapters.Field{Name: name, Value: cw.value(i, key, name)})
		}
		return cw.values
	}
	for _, i := range cw.pick(f) {
		name := w.fieldNames[i]
		cw.values = append(cw.values, adapters.Field{Name: name, Value: cw.value(i, key, name)})
	}
	return cw.values
}
