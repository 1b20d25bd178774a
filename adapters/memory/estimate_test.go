package memory

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"benchtop/adapters"
)

// writeTree writes files under root: path -> contents.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// The cgroup's limit and use are read as the kernel writes them, v2 and
// v1; the nearest limit along the path counts, page cache the kernel can
// reclaim does not count as use, and "no limit" is none.
func TestCgroupHeadroom(t *testing.T) {
	t.Parallel()
	v2 := t.TempDir()
	writeTree(t, v2, map[string]string{
		"proc/self/mountinfo":                             "30 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n",
		"proc/self/cgroup":                                "0::/user.slice/run-1.scope\n",
		"sys/fs/cgroup/user.slice/memory.max":             "4294967296\n",
		"sys/fs/cgroup/user.slice/memory.current":         "1073741824\n",
		"sys/fs/cgroup/user.slice/memory.stat":            "anon 700000000\ninactive_file 73741824\nactive_file 5\n",
		"sys/fs/cgroup/user.slice/run-1.scope/memory.max": "max\n",
	})
	a, ok := cgroupHeadroom(v2)
	if want := int64(4294967296 - (1073741824 - 73741824)); !ok || a.Bytes != want || !strings.Contains(a.From, "memory.max 4.3 GB") {
		t.Errorf("v2: %+v %v, want %d bytes from memory.max", a, ok, want)
	}
	v1 := t.TempDir()
	writeTree(t, v1, map[string]string{
		"proc/self/mountinfo": "25 24 0:22 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n" +
			"28 24 0:25 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n",
		"proc/self/cgroup":                                           "4:memory:/process_api/abc\n1:cpu:/\n0::/\n",
		"sys/fs/cgroup/memory/memory.limit_in_bytes":                 "9223372036854771712\n",
		"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "536870912\n",
		"sys/fs/cgroup/memory/process_api/abc/memory.usage_in_bytes": "100000000\n",
		"sys/fs/cgroup/memory/process_api/abc/memory.stat":           "cache 1\ntotal_inactive_file 40000000\n",
	})
	a, ok = cgroupHeadroom(v1)
	if want := int64(536870912 - 60000000); !ok || a.Bytes != want || !strings.Contains(a.From, "limit_in_bytes") {
		t.Errorf("v1: %+v %v, want %d bytes", a, ok, want)
	}
	// No limit anywhere: none.
	writeTree(t, v1, map[string]string{"sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "9223372036854771712\n"})
	if a, ok := cgroupHeadroom(v1); ok {
		t.Errorf("unlimited v1 cgroup: %+v", a)
	}
	if a, ok := cgroupHeadroom(t.TempDir()); ok {
		t.Errorf("no cgroup at all: %+v", a)
	}
}

// The case: 1,000,000 records of 100 fields needs ~15 GB; where
// 4 GB is available it is refused as bad input naming recordcount, the
// estimate and the memory available; memory.estimate=false loads anyway;
// a load that fits, a workload that keeps no records and an unknown
// availability pass.
func TestCheckFits(t *testing.T) {
	t.Parallel()
	four := func() (Available, error) {
		return Available{Bytes: 4e9, From: "cgroup memory.max 4.0 GB, 0 B in use"}, nil
	}
	big := adapters.Properties{"recordcount": "1000000", "fieldcount": "100"}
	err := checkFits(big, four)
	var ce *adapters.ConfigError
	if !errors.As(err, &ce) || ce.Key != "recordcount" || ce.Value != "1000000" {
		t.Fatalf("1M records x 100 fields in 4 GB: %v, want a ConfigError on recordcount", err)
	}
	for _, want := range []string{"1,000,000 records of 100 fields of 100 B need about 15.", "4.0 GB is available", "cgroup memory.max", "records fit", "memory.estimate=false"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal %q does not say %q", err, want)
		}
	}
	off := adapters.Properties{"recordcount": "1000000", "fieldcount": "100", PropEstimate: "false"}
	if err := checkFits(off, four); err != nil {
		t.Errorf("memory.estimate=false: %v", err)
	}
	for _, p := range []adapters.Properties{
		{"recordcount": "100000"},
		{"recordcount": "1000000", "fieldcount": "100", "workload": "stream"},
	} {
		if err := checkFits(p, four); err != nil {
			t.Errorf("%v: %v", p, err)
		}
	}
	if err := checkFits(big, func() (Available, error) { return Available{}, errors.New("unknown") }); err != nil {
		t.Errorf("availability unknown: %v", err)
	}
	if err := checkFits(adapters.Properties{"recordcount": "1000000", "insertcount": "10"}, four); err != nil {
		t.Errorf("insertcount 10 of 1M: %v", err)
	}
	if err := checkFits(adapters.Properties{"recordcount": "10", "insertcount": "100000000"}, four); err == nil || !strings.Contains(err.Error(), "insertcount") {
		t.Errorf("insertcount 100M: %v, want refused on insertcount", err)
	}
}

// The estimate follows what the model says of lengths: a uniform or
// zipfian length is smaller than its maximum, wider records cost more.
func TestEstimateShapes(t *testing.T) {
	t.Parallel()
	est := func(p adapters.Properties) float64 {
		e, ok := EstimateLoad(p)
		if !ok {
			t.Fatalf("%v: no estimate", p)
		}
		return e.Bytes
	}
	base := est(adapters.Properties{"recordcount": "100000"})
	uni := est(adapters.Properties{"recordcount": "100000", "fieldlengthdistribution": "uniform"})
	zipf := est(adapters.Properties{"recordcount": "100000", "fieldlengthdistribution": "zipfian"})
	wide := est(adapters.Properties{"recordcount": "100000", "fieldcount": "100"})
	if !(zipf < uni && uni < base && base < wide) {
		t.Errorf("zipfian %.0f, uniform %.0f, constant %.0f, 100 fields %.0f: want that order", zipf, uni, base, wide)
	}
	if sizeClass(100) != 112 || sizeClass(4000) != 4096 || sizeClass(40000) != 40960 {
		t.Errorf("size classes: %d %d %d", sizeClass(100), sizeClass(4000), sizeClass(40000))
	}
}
