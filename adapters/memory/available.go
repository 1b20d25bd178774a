package memory

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/shirou/gopsutil/v4/mem"
)

// Available is the memory the process may still take, and where the
// figure comes from.
type Available struct {
	Bytes int64
	From  string // "MemAvailable", "cgroup memory.max 4.0 GB, 1.2 GB in use", ...
}

// AvailableMemory is the smaller of the machine's MemAvailable (gopsutil's
// mem.VirtualMemory, /proc/meminfo on Linux) and what the process's
// memory cgroup still allows (its limit, or its closest ancestor's, less
// what the cgroup uses that the kernel cannot reclaim: usage less inactive
// page cache, as the kubelet counts a container's working set).
func AvailableMemory() (Available, error) {
	var out Available
	if vm, err := mem.VirtualMemory(); err == nil && vm.Available > 0 {
		out = Available{Bytes: int64(vm.Available), From: "MemAvailable " + sizeOf(float64(vm.Available)) + ", no cgroup limit"}
	}
	if cg, ok := cgroupHeadroom("/"); ok && (out.Bytes == 0 || cg.Bytes < out.Bytes) {
		out = cg
	} else if ok {
		out.From = strings.Replace(out.From, "no cgroup limit", "cgroup limit higher", 1)
	}
	if out.Bytes == 0 {
		return out, errors.New("memory: the available memory is not known")
	}
	return out, nil
}

// cgroupHeadroom reads the memory cgroup of this process under root (a
// file system root: "/" in use, a test's folder in tests), v2 or v1; ok
// is false when there is none or it has no limit.
func cgroupHeadroom(root string) (Available, bool) {
	v2, v1 := cgroupMounts(root)
	paths := cgroupPaths(root)
	if v2 != "" {
		if p, ok := paths[""]; ok {
			if a, ok := headroomV2(root, v2, p); ok {
				return a, true
			}
		}
	}
	if v1 != "" {
		if p, ok := paths["memory"]; ok {
			return headroomV1(root, v1, p)
		}
	}
	return Available{}, false
}

// cgroupMounts finds the cgroup2 mount and the v1 memory controller's in
// /proc/self/mountinfo.
func cgroupMounts(root string) (v2, v1 string) {
	f, err := os.Open(filepath.Join(root, "proc/self/mountinfo"))
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// ID parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		fields, tail := strings.Fields(pre), strings.Fields(post)
		if !ok || len(fields) < 5 || len(tail) < 3 {
			continue
		}
		switch {
		case tail[0] == "cgroup2" && v2 == "":
			v2 = fields[4]
		case tail[0] == "cgroup" && v1 == "" && hasOption(tail[2], "memory"):
			v1 = fields[4]
		}
	}
	return v2, v1
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

// cgroupPaths reads /proc/self/cgroup: the path of each controller ("" is
// v2's unified hierarchy).
func cgroupPaths(root string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(filepath.Join(root, "proc/self/cgroup"))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[1] == "" {
			out[""] = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			out[c] = parts[2]
		}
	}
	return out
}

// cgroupDirs are the folders to look in, nearest first: the process's
// cgroup and its ancestors up to the mount (inside a cgroup namespace the
// path may not exist under the mount: the mount itself is the cgroup).
func cgroupDirs(root, mount, path string) []string {
	var dirs []string
	for p := filepath.Clean("/" + path); ; p = filepath.Dir(p) {
		d := filepath.Join(root, mount, p)
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			dirs = append(dirs, d)
		}
		if p == "/" {
			return dirs
		}
	}
}

// headroomV2: memory.max (the smallest along the path), less memory.current
// and plus inactive_file of the cgroup that sets it.
func headroomV2(root, mount, path string) (Available, bool) {
	best, found := int64(math64), false
	var at string
	for _, d := range cgroupDirs(root, mount, path) {
		if lim, ok := readBytes(filepath.Join(d, "memory.max")); ok && lim < best {
			best, at, found = lim, d, true
		}
	}
	if !found {
		return Available{}, false
	}
	used, _ := readBytes(filepath.Join(at, "memory.current"))
	used -= statValue(filepath.Join(at, "memory.stat"), "inactive_file")
	return Available{Bytes: max(best-max(used, 0), 0),
		From: fmt.Sprintf("cgroup memory.max %s, %s in use", sizeOf(float64(best)), sizeOf(float64(max(used, 0))))}, true
}

// headroomV1: memory.limit_in_bytes, less usage_in_bytes plus
// total_inactive_file.
func headroomV1(root, mount, path string) (Available, bool) {
	best, found := int64(math64), false
	var at string
	for _, d := range cgroupDirs(root, mount, path) {
		if lim, ok := readBytes(filepath.Join(d, "memory.limit_in_bytes")); ok && lim < best {
			best, at, found = lim, d, true
		}
	}
	if !found {
		return Available{}, false
	}
	used, _ := readBytes(filepath.Join(at, "memory.usage_in_bytes"))
	used -= statValue(filepath.Join(at, "memory.stat"), "total_inactive_file")
	return Available{Bytes: max(best-max(used, 0), 0),
		From: fmt.Sprintf("cgroup memory.limit_in_bytes %s, %s in use", sizeOf(float64(best)), sizeOf(float64(max(used, 0))))}, true
}

// math64 is the limit that means none: v1 writes 2^63 rounded down to a
// page, v2 writes "max".
const math64 = 1 << 62

// readBytes reads a cgroup file holding a byte count; "max" and v1's
// near-2^63 figures are no limit (false).
func readBytes(path string) (int64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v >= math64 {
		return 0, false
	}
	return v, true
}

// statValue is one "name value" line of a memory.stat file (0 if none).
func statValue(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), " "); ok && k == name {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}
