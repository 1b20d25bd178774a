package adaptertest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"benchtop/adapters"
)

func (s *suite) testRoundTrip(t *testing.T) {
	ctx := t.Context()
	c := s.client()
	key := s.key("rt/k1")
	if err := c.insert(ctx, key, "rt", fieldNames); err != nil {
		t.Fatalf("Insert(%q): %v", key, err)
	}
	got, err := c.read(ctx, key, nil)
	if err != nil {
		t.Fatalf("Read(%q, all fields): %v", key, err)
	}
	if d := diffFields(got, want(key, "rt", fieldNames)); d != "" {
		t.Errorf("Read(%q, all fields): %s", key, d)
	}

	// Every byte value, and a value of a few kilobytes.
	key = s.key("rt/bytes")
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	big := make([]byte, 4000)
	for i := range big {
		big[i] = byte(255 - i%256)
	}
	vals := map[string][]byte{"every": all, "big": big, "ff": {0xff, 0xff, 0x00, 0x00}}
	if s.fixed {
		vals = map[string][]byte{"field0": all, "field1": big, "field2": {0xff, 0xff, 0x00, 0x00}, "field3": {}}
	}
	if err := c.insertRaw(ctx, key, vals); err != nil {
		t.Fatalf("Insert(%q): %v", key, err)
	}
	got, err = c.read(ctx, key, nil)
	if err != nil {
		t.Fatalf("Read(%q, all fields): %v", key, err)
	}
	if d := diffFields(got, vals); d != "" {
		t.Errorf("Read(%q, all fields): %s", key, d)
	}
}

func (s *suite) testReadFieldSubset(t *testing.T) {
	ctx := t.Context()
	c := s.client()
	key := s.key("fs/k1")
	if err := c.insert(ctx, key, "fs", fieldNames); err != nil {
		t.Fatalf("Insert(%q): %v", key, err)
	}
	for _, fields := range [][]string{{"field1", "field3"}, {"field2"}, {"field0", "field1", "field2"}} {
		got, err := c.read(ctx, key, fields)
		if err != nil {
			t.Errorf("Read(%q, %q): %v", key, fields, err)
			continue
		}
		if d := diffFields(got, want(key, "fs", fields)); d != "" {
			t.Errorf("Read(%q, %q): %s", key, fields, d)
		}
	}
}

func (s *suite) testUpdate(t *testing.T) {
	ctx := t.Context()
	c := s.client()
	key := s.key("up/k1")
	if err := c.insert(ctx, key, "u1", fieldNames); err != nil {
		t.Fatalf("Insert(%q): %v", key, err)
	}
	tags := map[string]string{"field0": "u1", "field1": "u1", "field2": "u1", "field3": "u1"}
	for _, step := range []struct {
		tag    string
		fields []string
	}{
		{"u2", []string{"field2"}},
		{"u3", []string{"field0", "field3"}},
	} {
		if err := c.update(ctx, key, step.tag, step.fields); err != nil {
			t.Fatalf("Update(%q, %q): %v", key, step.fields, err)
		}
		for _, f := range step.fields {
			tags[f] = step.tag
		}
		got, err := c.read(ctx, key, nil)
		if err != nil {
			t.Fatalf("Read(%q) after updating %q: %v", key, step.fields, err)
		}
		if d := diffFields(got, wantTags(key, tags)); d != "" {
			t.Errorf("Read(%q) after updating %q: %s", key, step.fields, d)
		}
	}
	got, err := c.read(ctx, key, []string{"field1", "field2"})
	if err != nil {
		t.Fatalf("Read(%q, field subset) after updates: %v", key, err)
	}
	if d := diffFields(got, map[string][]byte{
		"field1": value(key, "field1", "u1"),
		"field2": value(key, "field2", "u2"),
	}); d != "" {
		t.Errorf("Read(%q, field subset) after updates: %s", key, d)
	}
}

// wantTags is want for fields written with different tags.
func wantTags(key string, tags map[string]string) map[string][]byte {
	m := make(map[string][]byte, len(tags))
	for f, tag := range tags {
		m[f] = value(key, f, tag)
	}
	return m
}

// checkNotFound checks that err reports a missing key as the contract
// says: wrapping adapters.ErrNotFound, of kind "not_found".
func checkNotFound(t *testing.T, op string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one wrapping adapters.ErrNotFound", op)
		return
	}
	if !errors.Is(err, adapters.ErrNotFound) {
		t.Errorf("%s: error %q does not wrap adapters.ErrNotFound", op, err)
	}
	if k := adapters.Kind(err); k != adapters.KindNotFound {
		t.Errorf("%s: adapters.Kind(%q) = %q, want %q", op, err, k, adapters.KindNotFound)
	}
}

func (s *suite) testNotFound(t *testing.T) {
	ctx := t.Context()
	c := s.client()
	key := s.key("nf/never-written")
	_, err := c.read(ctx, key, nil)
	checkNotFound(t, fmt.Sprintf("Read(%q)", key), err)
	_, err = c.read(ctx, key, []string{"field1"})
	checkNotFound(t, fmt.Sprintf("Read(%q, [field1])", key), err)
}

// testMissingColumns: a read of chosen columns of an existing record
// that holds none of them is NOT_FOUND, as YCSB's hbase2 binding returns
// for an empty result (benchtop's rule for every column store; in a
// store of fixed columns they always exist: Options.FixedColumns). A
// record holding some of them returns those.
func (s *suite) testMissingColumns(t *testing.T) {
	if s.fixed {
		t.Skip("fixed columns: every record has every column")
	}
	ctx := t.Context()
	c := s.client()
	key := s.key("mc/k1")
	if err := c.insert(ctx, key, "mc", fieldNames[:2]); err != nil {
		t.Fatalf("Insert(%q, %q): %v", key, fieldNames[:2], err)
	}
	for _, fields := range [][]string{{"field2", "field3"}, {"field9"}} {
		got, err := c.read(ctx, key, fields)
		checkNotFound(t, fmt.Sprintf("Read(%q, %q) of a record holding %q: got %d fields,", key, fields, fieldNames[:2], len(got)), err)
	}
	got, err := c.read(ctx, key, []string{"field1", "field3"})
	if err != nil {
		t.Fatalf("Read(%q, [field1 field3]) of a record holding field1: %v", key, err)
	}
	if d := diffFields(got, want(key, "mc", []string{"field1"})); d != "" {
		t.Errorf("Read(%q, [field1 field3]): %s", key, d)
	}
}

func (s *suite) testDelete(t *testing.T) {
	ctx := t.Context()
	c := s.client()
	key := s.key("del/k1")
	if err := c.insert(ctx, key, "d", fieldNames); err != nil {
		t.Fatalf("Insert(%q): %v", key, err)
	}
	if _, err := c.read(ctx, key, nil); err != nil {
		t.Fatalf("Read(%q) before Delete: %v", key, err)
	}
	if err := c.delete(ctx, key); err != nil {
		t.Fatalf("Delete(%q): %v", key, err)
	}
	_, err := c.read(ctx, key, nil)
	checkNotFound(t, fmt.Sprintf("Read(%q) after Delete", key), err)
}

// scanKeys are the keys of the scan test. Their prefix sorts after those
// of the other tests ('~' is the largest printable ASCII byte), so that on
// a server holding only this run's data nothing follows them.
func (s *suite) scanKeys() []string {
	keys := make([]string, 50)
	for i := range keys {
		keys[i] = s.key("~scan/k%03d", i)
	}
	return keys
}

func (s *suite) testScan(t *testing.T) {
	ctx := t.Context()
	c := s.client()
	keys := s.scanKeys()
	// Insert out of order, so that insertion order cannot pass for key
	// order.
	for _, i := range rand.Perm(len(keys)) {
		if err := c.insert(ctx, keys[i], "s", fieldNames); err != nil {
			t.Fatalf("Insert(%q): %v", keys[i], err)
		}
	}
	if s.unordered {
		s.testScanUnordered(t, c, keys)
		return
	}
	for _, tc := range []struct {
		name   string
		start  string
		count  int
		fields []string
		want   []string
	}{
		{"first ten", keys[0], 10, nil, keys[0:10]},
		{"from before the first key", s.key("~scan/"), 3, nil, keys[0:3]},
		{"middle", keys[17], 5, nil, keys[17:22]},
		{"start between two keys", keys[9] + "~", 6, nil, keys[10:16]},
		{"one", keys[49], 1, nil, keys[49:50]},
		{"field subset", keys[30], 5, []string{"field1", "field3"}, keys[30:35]},
		{"all fifty", keys[0], 50, []string{"field2"}, keys},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := c.scan(ctx, tc.start, tc.count, tc.fields)
			if err != nil {
				t.Fatalf("Scan(%q, %d): %v", tc.start, tc.count, err)
			}
			fields := tc.fields
			if fields == nil {
				fields = fieldNames
			}
			if !slices.Equal(recordKeys(got), tc.want) {
				t.Fatalf("Scan(%q, %d) returned keys %s, want %s", tc.start, tc.count, short(recordKeys(got)), short(tc.want))
			}
			for _, r := range got {
				if d := diffFields(r.Fields, want(r.Key, "s", fields)); d != "" {
					t.Errorf("Scan(%q, %d, %q): record %q: %s", tc.start, tc.count, tc.fields, r.Key, d)
				}
			}
		})
	}
	t.Run("past the end", func(t *testing.T) {
		// Ten asked, five of ours left. On a shared server other data may
		// follow our keys; it may be returned but must come after them.
		got, err := c.scan(ctx, keys[45], 10, nil)
		if err != nil {
			t.Fatalf("Scan(%q, 10): %v", keys[45], err)
		}
		gotKeys := recordKeys(got)
		if len(got) < 5 || !slices.Equal(gotKeys[:5], keys[45:]) {
			t.Fatalf("Scan(%q, 10) returned keys %s, want %s first", keys[45], short(gotKeys), short(keys[45:]))
		}
		if len(got) > 10 {
			t.Errorf("Scan(%q, 10) returned %d records", keys[45], len(got))
		}
		for i, r := range got[5:] {
			if strings.HasPrefix(r.Key, s.key("~scan/")) || r.Key <= gotKeys[4+i] {
				t.Errorf("Scan(%q, 10): record %d is %q, after %q; want fewer records, or only other data in key order", keys[45], 5+i, r.Key, gotKeys[4+i])
			}
		}
		for _, r := range got[:5] {
			if d := diffFields(r.Fields, want(r.Key, "s", fieldNames)); d != "" {
				t.Errorf("Scan(%q, 10): record %q: %s", keys[45], r.Key, d)
			}
		}
	})
}

// testScanUnordered checks what can be checked of an adapter whose
// Capabilities say scans are unordered. On a hash-partitioned store (a
// DynamoDB table keyed by a hash key) a scan runs in hash order and its
// start key is a position in that order, not a lower bound on keys; so
// neither the order nor which record follows which can be checked. What
// can: a scan from an existing key returns that key; it returns as many
// records as asked, unless the store's own order holds fewer from there
// (what a long scan from the same key returns: the count the store can
// give), and only records of that long scan, none twice, each real and
// complete (or with exactly the requested fields); and from the first of
// our keys in the store's order a scan reaches all of them. Records of
// other data on a shared server are ignored, but counted.
func (s *suite) testScanUnordered(t *testing.T, c *client, keys []string) {
	ctx := t.Context()
	ours := make(map[string]bool, len(keys))
	for _, k := range keys {
		ours[k] = true
	}
	const long = 1000
	rest := func(start string) (map[string]bool, int, bool) {
		got, err := c.scan(ctx, start, long, nil)
		if err != nil {
			t.Errorf("Scan(%q, %d): %v", start, long, err)
			return nil, 0, false
		}
		m := make(map[string]bool, len(got))
		n := 0
		for _, r := range got {
			m[r.Key] = true
			if ours[r.Key] {
				n++
			}
		}
		if !m[start] {
			t.Errorf("Scan(%q, %d) does not return its start key, which exists (%d records)", start, long, len(got))
		}
		return m, len(got), true
	}
	for _, tc := range []struct {
		start  string
		count  int
		fields []string
	}{
		{keys[0], 10, nil},
		{keys[20], 7, []string{"field1", "field3"}},
		{keys[45], 10, nil},
		{keys[33], 1, nil},
	} {
		can, canN, ok := rest(tc.start)
		if !ok {
			continue
		}
		got, err := c.scan(ctx, tc.start, tc.count, tc.fields)
		if err != nil {
			t.Errorf("Scan(%q, %d): %v", tc.start, tc.count, err)
			continue
		}
		if want := min(tc.count, canN); len(got) != want {
			t.Errorf("Scan(%q, %d) returned %d records; the store holds %d from there, want %d", tc.start, tc.count, len(got), canN, want)
		}
		fields := tc.fields
		if fields == nil {
			fields = fieldNames
		}
		seen := map[string]bool{}
		for _, r := range got {
			if seen[r.Key] {
				t.Errorf("Scan(%q, %d) returned %q twice", tc.start, tc.count, r.Key)
			}
			seen[r.Key] = true
			if !can[r.Key] {
				t.Errorf("Scan(%q, %d) returned %q, which a longer scan from there does not", tc.start, tc.count, r.Key)
			}
			if strings.HasPrefix(r.Key, s.key("~scan/")) && !ours[r.Key] {
				t.Errorf("Scan(%q, %d) returned %q, which was never written", tc.start, tc.count, r.Key)
				continue
			}
			if !ours[r.Key] {
				continue
			}
			if d := diffFields(r.Fields, want(r.Key, "s", fields)); d != "" {
				t.Errorf("Scan(%q, %d, %q): record %q: %s", tc.start, tc.count, tc.fields, r.Key, d)
			}
		}
	}
	// From the first of our keys in the store's order, a scan reaches
	// every one of them.
	most := 0
	for _, k := range keys {
		can, _, ok := rest(k)
		if !ok {
			return
		}
		n := 0
		for o := range ours {
			if can[o] {
				n++
			}
		}
		most = max(most, n)
	}
	if most != len(keys) {
		t.Errorf("no scan from one of our %d keys reaches them all (at most %d): the store holds them all", len(keys), most)
	}
}

func recordKeys(recs []adapters.Record) []string {
	keys := make([]string, len(recs))
	for i, r := range recs {
		keys[i] = r.Key
	}
	return keys
}

// short formats a list of keys for a failure message.
func short(keys []string) string {
	if len(keys) <= 6 {
		return fmt.Sprintf("%q", keys)
	}
	return fmt.Sprintf("%q ... %q (%d keys)", keys[:3], keys[len(keys)-2:], len(keys))
}

// testConcurrentWriters runs 8 writers of 200 operations each: every
// writer inserts and updates keys of its own and updates 10 keys that all
// share. Afterwards each own key must hold exactly its writer's last
// write, and each shared key a value that one of the writers wrote, whole:
// both updated fields from the same write.
func (s *suite) testConcurrentWriters(t *testing.T) {
	const (
		writers = 8
		ops     = 200
		own     = 20
		shared  = 10
	)
	ctx := t.Context()
	c := s.client()
	sharedKeys := make([]string, shared)
	for i := range sharedKeys {
		sharedKeys[i] = s.key("cw/shared%02d", i)
		if err := c.insert(ctx, sharedKeys[i], "init", fieldNames); err != nil {
			t.Fatalf("Insert(%q): %v", sharedKeys[i], err)
		}
	}
	updated := fieldNames[1:3]

	type result struct {
		last    map[string]map[string]string // own key → field → tag
		written map[string]map[string]bool   // shared key → tags written
	}
	results := make([]result, writers)
	var lim limit
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			c := s.client()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			res := result{last: map[string]map[string]string{}, written: map[string]map[string]bool{}}
			defer func() { results[g] = res }()
			ownKeys := make([]string, own)
			for i := range ownKeys {
				ownKeys[i] = s.key("cw/w%d/k%02d", g, i)
			}
			for i := range ops {
				tag := fmt.Sprintf("w%d.%d", g, i)
				var err error
				var key, op string
				switch {
				case i < own:
					key, op = ownKeys[i], "Insert"
					err = c.insert(ctx, key, tag, fieldNames)
					res.last[key] = map[string]string{}
					for _, f := range fieldNames {
						res.last[key][f] = tag
					}
				case i%2 == 0:
					key, op = ownKeys[rng.IntN(own)], "Update"
					err = c.update(ctx, key, tag, updated)
					for _, f := range updated {
						res.last[key][f] = tag
					}
				default:
					key, op = sharedKeys[rng.IntN(shared)], "Update"
					err = c.update(ctx, key, tag, updated)
					if res.written[key] == nil {
						res.written[key] = map[string]bool{}
					}
					res.written[key][tag] = true
				}
				if err != nil && !lim.errorf(t, "writer %d: %s(%q): %v", g, op, key, err) {
					return
				}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return // a write failed, so what the keys hold is not known
	}

	for _, res := range results {
		for key, tags := range res.last {
			got, err := c.read(ctx, key, nil)
			if err != nil {
				if !lim.errorf(t, "Read(%q): %v", key, err) {
					return
				}
				continue
			}
			if d := diffFields(got, wantTags(key, tags)); d != "" && !lim.errorf(t, "Read(%q), written by one writer: %s", key, d) {
				return
			}
		}
	}
	for _, key := range sharedKeys {
		got, err := c.read(ctx, key, nil)
		if err != nil {
			if !lim.errorf(t, "Read(%q): %v", key, err) {
				return
			}
			continue
		}
		// The tag of the surviving write, taken from field1; the expected
		// record is then fully determined.
		tag := "init"
		for _, f := range got {
			if f.Name == "field1" {
				tag = tagOf(f.Value)
			}
		}
		ok := tag == "init"
		for _, res := range results {
			ok = ok || res.written[key][tag]
		}
		if !ok {
			lim.errorf(t, "Read(%q): field1 has tag %q, which no writer wrote to this key", key, tag)
			continue
		}
		w := map[string]string{"field0": "init", "field1": tag, "field2": tag, "field3": "init"}
		if d := diffFields(got, wantTags(key, w)); d != "" && !lim.errorf(t, "Read(%q), written by all writers (want field1 and field2 from write %q, the others untouched): %s", key, tag, d) {
			return
		}
	}
}

// testIntegrity writes 60 records, reads them back in another order,
// updates half of them and reads everything again.
func (s *suite) testIntegrity(t *testing.T) {
	const n = 60
	ctx := t.Context()
	c := s.client()
	keys := make([]string, n)
	tags := make([]map[string]string, n)
	for i := range keys {
		keys[i] = s.key("int/k%03d", i)
		if err := c.insert(ctx, keys[i], "a", fieldNames); err != nil {
			t.Fatalf("Insert(%q): %v", keys[i], err)
		}
		tags[i] = map[string]string{"field0": "a", "field1": "a", "field2": "a", "field3": "a"}
	}
	var lim limit
	check := func(when string) bool {
		for _, i := range rand.Perm(n) {
			got, err := c.read(ctx, keys[i], nil)
			if err != nil {
				if !lim.errorf(t, "Read(%q) %s: %v", keys[i], when, err) {
					return false
				}
				continue
			}
			if d := diffFields(got, wantTags(keys[i], tags[i])); d != "" && !lim.errorf(t, "Read(%q) %s: %s", keys[i], when, d) {
				return false
			}
		}
		return true
	}
	if !check("after insert") {
		return
	}
	for i := 0; i < n; i += 2 {
		if err := c.update(ctx, keys[i], "b", []string{"field0", "field3"}); err != nil {
			t.Fatalf("Update(%q): %v", keys[i], err)
		}
		tags[i]["field0"], tags[i]["field3"] = "b", "b"
	}
	if !check("after update") {
		return
	}
	for i := 1; i < n; i += 2 {
		got, err := c.read(ctx, keys[i], []string{"field2"})
		if err != nil {
			if !lim.errorf(t, "Read(%q, [field2]): %v", keys[i], err) {
				return
			}
			continue
		}
		if d := diffFields(got, want(keys[i], "a", []string{"field2"})); d != "" && !lim.errorf(t, "Read(%q, [field2]): %s", keys[i], d) {
			return
		}
	}
}

// testOwnership checks the ownership rule of package adapters in both
// directions: the adapter must copy what it keeps of the caller's buffers
// (which the client scribbles over after every call), and what it hands
// out must not change afterwards.
func (s *suite) testOwnership(t *testing.T) {
	const n = 20
	ctx := t.Context()
	c := s.client()
	keys := make([]string, n)
	for i := range keys {
		keys[i] = s.key("own/k%02d", i)
		if err := c.insert(ctx, keys[i], "o1", fieldNames); err != nil {
			t.Fatalf("Insert(%q): %v", keys[i], err)
		}
	}
	// Read back with ordinary strings, not through the scribbled buffers.
	var lim limit
	readBack := func(when string, tags map[string]string) {
		for _, k := range keys {
			got, err := s.db.Read(ctx, s.table, k, nil, nil)
			if err != nil {
				lim.errorf(t, "Read(%q) %s: %v (was the key kept instead of copied?)", k, when, err)
				continue
			}
			if d := diffFields(got, wantTags(k, tags)); d != "" {
				lim.errorf(t, "Read(%q) %s: %s (was a buffer kept instead of copied?)", k, when, d)
			}
		}
	}
	tags := map[string]string{"field0": "o1", "field1": "o1", "field2": "o1", "field3": "o1"}
	readBack("after inserts from reused buffers", tags)
	for _, k := range keys {
		if err := c.update(ctx, k, "o2", []string{"field1"}); err != nil {
			t.Fatalf("Update(%q): %v", k, err)
		}
	}
	tags["field1"] = "o2"
	readBack("after updates from reused buffers", tags)
	if t.Failed() {
		return
	}

	// Read appends to dst and leaves what is there.
	sentinel := adapters.Field{Name: "sentinel", Value: []byte("keep")}
	dst := make([]adapters.Field, 1, 16)
	dst[0] = sentinel
	got, err := s.db.Read(ctx, s.table, keys[0], nil, dst)
	if err != nil {
		t.Fatalf("Read(%q): %v", keys[0], err)
	}
	if len(got) == 0 || got[0].Name != "sentinel" || string(got[0].Value) != "keep" {
		t.Fatalf("Read(%q, dst) did not append to dst: got %d fields, first %q", keys[0], len(got), fieldName(got))
	}
	if d := diffFields(got[1:], wantTags(keys[0], tags)); d != "" {
		t.Errorf("Read(%q, dst): %s", keys[0], d)
	}
	// Values handed out stay as they were when the record changes later.
	held := cloneFields(got[1:])
	if err := c.update(ctx, keys[0], "o3", fieldNames); err != nil {
		t.Fatalf("Update(%q): %v", keys[0], err)
	}
	if d := diffFields(got[1:], held); d != "" {
		t.Errorf("values returned by Read(%q) changed after a later Update: %s", keys[0], d)
	}
	// ... and after reads of other records, whose replies would land on
	// them if the adapter or its driver reused reply buffers.
	for _, k := range keys[1:] {
		if _, err := s.db.Read(ctx, s.table, k, nil, nil); err != nil {
			t.Fatalf("Read(%q): %v", k, err)
		}
	}
	if d := diffFields(got[1:], held); d != "" {
		t.Errorf("values returned by Read(%q) changed after reads of other records: %s", keys[0], d)
	}

	if s.unordered {
		return
	}
	// Scan results, checked after the start key's buffer was scribbled.
	recs, err := c.scan(ctx, keys[1], n-1, nil)
	if err != nil {
		t.Fatalf("Scan(%q, %d): %v", keys[1], n-1, err)
	}
	if !slices.Equal(recordKeys(recs), keys[1:]) {
		t.Fatalf("Scan(%q, %d) returned keys %s, want %s (was the start key handed back?)", keys[1], n-1, short(recordKeys(recs)), short(keys[1:]))
	}
	for _, r := range recs {
		if d := diffFields(r.Fields, wantTags(r.Key, tags)); d != "" {
			lim.errorf(t, "Scan(%q, %d): record %q: %s", keys[1], n-1, r.Key, d)
		}
	}
	// Scan appends to dst.
	rdst := make([]adapters.Record, 1, 8)
	rdst[0] = adapters.Record{Key: "sentinel"}
	recs, err = s.db.Scan(ctx, s.table, keys[0], 2, nil, rdst)
	if err != nil {
		t.Fatalf("Scan(%q, 2): %v", keys[0], err)
	}
	if len(recs) != 3 || recs[0].Key != "sentinel" || recs[1].Key != keys[0] || recs[2].Key != keys[1] {
		t.Errorf("Scan(%q, 2, dst holding one record) returned keys %q, want [sentinel %q %q]", keys[0], recordKeys(recs), keys[0], keys[1])
	}
}

func fieldName(fs []adapters.Field) string {
	if len(fs) == 0 {
		return ""
	}
	return fs[0].Name
}

func cloneFields(fs []adapters.Field) map[string][]byte {
	m := make(map[string][]byte, len(fs))
	for _, f := range fs {
		m[f.Name] = slices.Clone(f.Value)
	}
	return m
}

// testBatchInsert inserts 3×BatchSize()+1 records in chunks of BatchSize,
// as the load phase does, and reads them all back.
func (s *suite) testBatchInsert(t *testing.T) {
	bi, ok := s.db.(adapters.BatchInserter)
	if !ok {
		t.Skip("adapter does not implement adapters.BatchInserter")
	}
	bs := bi.BatchSize()
	if bs < 1 {
		t.Fatalf("BatchSize() = %d, want at least 1", bs)
	}
	ctx := t.Context()
	c := s.client()
	n := 3*bs + 1
	if n > 1000 {
		t.Logf("BatchSize() = %d: inserting %d records", bs, n)
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = s.key("batch/k%05d", i)
	}
	for i := 0; i < n; i += bs {
		chunk := keys[i:min(i+bs, n)]
		if err := c.insertBatch(ctx, bi, chunk, "b", fieldNames); err != nil {
			t.Fatalf("InsertBatch of %d records from %q: %v", len(chunk), chunk[0], err)
		}
	}
	s.readAll(t, keys, func(string) map[string]string {
		return map[string]string{"field0": "b", "field1": "b", "field2": "b", "field3": "b"}
	})
}

// readAll reads keys with 4 goroutines and compares each with the tags
// expect gives for it.
func (s *suite) readAll(t *testing.T, keys []string, expect func(key string) map[string]string) {
	ctx := t.Context()
	var lim limit
	var next atomic.Int64
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			c := s.client()
			for !lim.exceeded() {
				i := int(next.Add(1) - 1)
				if i >= len(keys) {
					return
				}
				got, err := c.read(ctx, keys[i], nil)
				if err != nil {
					lim.errorf(t, "Read(%q): %v", keys[i], err)
					continue
				}
				if d := diffFields(got, wantTags(keys[i], expect(keys[i]))); d != "" {
					lim.errorf(t, "Read(%q): %s", keys[i], d)
				}
			}
		})
	}
	wg.Wait()
}

// selfConsistent checks a record read while writers run: all four fields,
// each a valid value for its key, all from the same write.
func selfConsistent(key string, got []adapters.Field) string {
	if len(got) != len(fieldNames) {
		return fmt.Sprintf("%d fields, want %d", len(got), len(fieldNames))
	}
	tag := tagOf(got[0].Value)
	return diffFields(got, want(key, tag, fieldNames))
}

// setDiff returns the elements of a that are not in b.
func setDiff(a, b []string) []string {
	in := make(map[string]bool, len(b))
	for _, x := range b {
		in[x] = true
	}
	var out []string
	for _, x := range a {
		if !in[x] {
			out = append(out, x)
		}
	}
	return out
}
