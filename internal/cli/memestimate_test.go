package cli

import (
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"

	"benchtop/adapters"
	"benchtop/adapters/memory"
)

// Issue 25: the memory store's estimate holds within 25 % of the peak
// resident memory (getrusage's ru_maxrss of the child) of a real load at
// three sizes, and of wide and long records.
func TestMemoryEstimateMatchesRSS(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("ru_maxrss in kilobytes is Linux's")
	}
	if testing.Short() {
		t.Skip("loads up to 300,000 records (-short skips it)")
	}
	bin := buildBenchtop(t)
	cases := []map[string]string{
		{"recordcount": "10000"},
		{"recordcount": "100000"},
		{"recordcount": "300000"},
		{"recordcount": "20000", "fieldcount": "100", "fieldlength": "20"},
		{"recordcount": "100000", "fieldcount": "1", "fieldlength": "1000"},
	}
	for _, props := range cases {
		args := []string{"load", "memory", "--headless"}
		for k, v := range props {
			args = append(args, "-p", k+"="+v)
		}
		cmd := exec.Command(bin, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Fatal("no rusage")
		}
		rss := float64(ru.Maxrss) * 1024
		est, ok := memory.EstimateLoad(adapters.Properties(props))
		if !ok {
			t.Fatalf("%v: no estimate", props)
		}
		ratio := est.Bytes / rss
		t.Logf("%s: estimate %.1f MB, peak RSS %.1f MB, ratio %.2f", est, est.Bytes/1e6, rss/1e6, ratio)
		if ratio < 0.75 || ratio > 1.25 {
			t.Errorf("%v: estimate %.1f MB against a peak RSS of %.1f MB (ratio %s): not within 25 %%", props, est.Bytes/1e6, rss/1e6, strconv.FormatFloat(ratio, 'f', 2, 64))
		}
	}
}
