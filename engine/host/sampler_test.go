package host

import (
	"context"
	"errors"
	"io"
	stdnet "net"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/net"

	"benchtop/rundata/units"
)

func TestCPUPercent(t *testing.T) {
	base := cpu.TimesStat{User: 100, System: 50, Idle: 800, Nice: 10, Iowait: 20, Irq: 5, Softirq: 5, Steal: 10}
	add := func(d cpu.TimesStat) cpu.TimesStat {
		r := base
		addTimes(&r, d)
		return r
	}
	tests := []struct {
		name      string
		prev, cur cpu.TimesStat
		want      float64
	}{
		{"half busy", base, add(cpu.TimesStat{User: 3, System: 2, Idle: 5}), 50},
		{"all idle", base, add(cpu.TimesStat{Idle: 10}), 0},
		{"all busy", base, add(cpu.TimesStat{User: 4, Nice: 1, System: 2, Irq: 1, Softirq: 1, Steal: 1}), 100},
		{"iowait is idle", base, add(cpu.TimesStat{Iowait: 5, User: 5}), 50},
		// Linux counts guest time inside user and nice already.
		{"guest not counted twice", base, add(cpu.TimesStat{User: 5, Guest: 5, Idle: 5, GuestNice: 3}), 50},
		{"no time passed", base, base, 0},
		{"zero readings", cpu.TimesStat{}, cpu.TimesStat{}, 0},
		{"counters decreased (wrap or reset)", add(cpu.TimesStat{User: 10}), base, 0},
		{"idle decreased", base, add(cpu.TimesStat{Idle: -5, User: 10}), 0},
		{"first reading from zero", cpu.TimesStat{}, cpu.TimesStat{User: 1, Idle: 3}, 25},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := cpuPercent(tt.prev, tt.cur)
			if diff := got - tt.want; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("cpuPercent = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestProcPercent(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur float64
		elapsed   time.Duration
		want      float64
	}{
		{"one core", 1.0, 1.5, 500 * time.Millisecond, 100},
		{"quarter core", 10, 10.25, time.Second, 25},
		{"more than one core", 0, 3, time.Second, 300},
		{"idle", 2, 2, time.Second, 0},
		{"zero elapsed", 1, 2, 0, 0},
		{"negative elapsed", 1, 2, -time.Second, 0},
		{"decrease", 2, 1, time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := procPercent(tt.prev, tt.cur, tt.elapsed)
			if diff := got - tt.want; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("procPercent = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestByteRate(t *testing.T) {
	tests := []struct {
		name      string
		prev, cur uint64
		elapsed   time.Duration
		want      float64
	}{
		{"steady", 1000, 3000, time.Second, 2000},
		{"half second", 0, 1_000_000, 500 * time.Millisecond, 2_000_000},
		{"large counters", 1 << 62, 1<<62 + 125_000_000, time.Second, 125_000_000},
		{"no traffic", 42, 42, time.Second, 0},
		{"zero elapsed", 0, 1000, 0, 0},
		{"wrap or reset", 5000, 100, time.Second, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := byteRate(tt.prev, tt.cur, tt.elapsed); got != tt.want {
				t.Errorf("byteRate = %v, want %v", got, tt.want)
			}
		})
	}
}

// fakeSysNet writes a sysfs-like tree: name -> file -> content.
func fakeSysNet(t *testing.T, ifaces map[string]map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, files := range ifaces {
		if err := os.MkdirAll(filepath.Join(dir, name), 0o755); err != nil {
			t.Fatal(err)
		}
		for f, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name, f), []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir
}

func TestReadSpeed(t *testing.T) {
	dir := fakeSysNet(t, map[string]map[string]string{
		"eth0":   {"speed": "1000\n"},
		"eth1":   {"speed": "25000"},
		"veth":   {"speed": "-1\n"},
		"junk":   {"speed": "fast\n"},
		"empty":  {"speed": ""},
		"zero":   {"speed": "0\n"},
		"nofile": {},
	})
	tests := map[string]int{
		"eth0":    1000,
		"eth1":    25000,
		"veth":    0,
		"junk":    0,
		"empty":   0,
		"zero":    0,
		"nofile":  0,
		"missing": 0, // no directory at all
	}
	for iface, want := range tests {
		if got := readSpeed(dir, iface); got != want {
			t.Errorf("readSpeed(%q) = %d, want %d", iface, got, want)
		}
	}
}

func TestNICRates(t *testing.T) {
	dir := fakeSysNet(t, map[string]map[string]string{
		"lo":     {"flags": "0x9\n", "operstate": "unknown\n"},
		"eth0":   {"flags": "0x1003\n", "operstate": "up\n", "speed": "1000\n"},
		"eth1":   {"flags": "0x1003\n", "operstate": "up\n", "speed": "-1\n"},
		"docker": {"flags": "0x1003\n", "operstate": "down\n"},
		"ifb0":   {"flags": "0x82\n", "operstate": "down\n"},
		// wg0 has no sysfs entry: assumed up, speed unknown.
	})
	s := &Sampler{sysNet: dir, ifaces: map[string]ifaceInfo{}}
	prev := map[string]net.IOCountersStat{
		"lo":     {Name: "lo", BytesRecv: 1000, BytesSent: 1000},
		"eth0":   {Name: "eth0", BytesRecv: 10_000, BytesSent: 5_000},
		"eth1":   {Name: "eth1", BytesRecv: 100, BytesSent: 100},
		"docker": {Name: "docker", BytesRecv: 500, BytesSent: 500},
		"wg0":    {Name: "wg0", BytesRecv: 1_000_000, BytesSent: 0},
	}
	cur := []net.IOCountersStat{
		{Name: "lo", BytesRecv: 5_001_000, BytesSent: 5_001_000},
		{Name: "eth0", BytesRecv: 10_000 + 2_000_000, BytesSent: 5_000 + 500_000},
		{Name: "eth1", BytesRecv: 100 + 4_000_000, BytesSent: 100},
		{Name: "docker", BytesRecv: 900, BytesSent: 900}, // down: left out
		{Name: "ifb0"}, // never carried traffic: left out
		{Name: "wg0", BytesRecv: 10, BytesSent: 0},  // counter reset: rate 0
		{Name: "new0", BytesRecv: 77, BytesSent: 0}, // no baseline: rate 0
	}
	nics, lo := s.nicRates(prev, cur, 2*time.Second)

	if lo == nil {
		t.Fatal("Loopback = nil")
	}
	if want := (NIC{Name: "lo", RxBytesPerSec: 2_500_000, TxBytesPerSec: 2_500_000, Loopback: true}); *lo != want {
		t.Errorf("Loopback = %+v, want %+v", *lo, want)
	}
	want := []NIC{
		{Name: "eth1", RxBytesPerSec: 2_000_000, TxBytesPerSec: 0, SpeedMbps: 0},
		{Name: "eth0", RxBytesPerSec: 1_000_000, TxBytesPerSec: 250_000, SpeedMbps: 1000},
		{Name: "new0"},
		{Name: "wg0"},
	}
	if len(nics) != len(want) {
		t.Fatalf("NICs = %+v, want %+v", nics, want)
	}
	for i := range want {
		if nics[i] != want[i] {
			t.Errorf("NICs[%d] = %+v, want %+v", i, nics[i], want[i])
		}
	}
}

func TestIfaceInfoCached(t *testing.T) {
	dir := fakeSysNet(t, map[string]map[string]string{
		"eth0": {"flags": "0x1003", "operstate": "up", "speed": "1000"},
	})
	s := &Sampler{sysNet: dir}
	now := time.Now()
	if got := s.ifaceInfo("eth0", now).speed; got != 1000 {
		t.Fatalf("speed = %d, want 1000", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "eth0", "speed"), []byte("10000"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := s.ifaceInfo("eth0", now.Add(ifaceInfoTTL/2)).speed; got != 1000 {
		t.Errorf("speed within TTL = %d, want the cached 1000", got)
	}
	if got := s.ifaceInfo("eth0", now.Add(ifaceInfoTTL)).speed; got != 10000 {
		t.Errorf("speed after TTL = %d, want 10000", got)
	}
}

func TestLoopbackWithoutSysfs(t *testing.T) {
	s := &Sampler{sysNet: filepath.Join(t.TempDir(), "absent"), ifaces: map[string]ifaceInfo{}}
	cur := []net.IOCountersStat{{Name: "lo", BytesRecv: 1}, {Name: "eth0", BytesRecv: 1}}
	nics, lo := s.nicRates(nil, cur, time.Second)
	if lo == nil || lo.Name != "lo" {
		t.Errorf("Loopback = %+v, want lo", lo)
	}
	if len(nics) != 1 || nics[0].Name != "eth0" {
		t.Errorf("NICs = %+v, want eth0 only", nics)
	}
}

func TestSampleProcCPU(t *testing.T) {
	s := NewSampler()
	t0, cpu0 := time.Now(), selfCPU(t)
	// Burn until this process has used 300 ms of CPU (however busy the
	// machine is: the time it takes does not matter), at most 20 s.
	var wg sync.WaitGroup
	var done atomic.Bool
	for range runtime.NumCPU() {
		wg.Go(func() {
			x := 0
			for !done.Load() {
				for i := range 10000 {
					x += i
				}
			}
			_ = x
		})
	}
	for selfCPU(t)-cpu0 < 300*time.Millisecond && time.Since(t0) < 20*time.Second {
		time.Sleep(10 * time.Millisecond)
	}
	done.Store(true)
	wg.Wait()
	got := s.Sample()
	// What the kernel says this process used over the same span, in % of
	// one core: the sampler must agree (its /proc figures tick at 10 ms).
	want := 100 * float64(selfCPU(t)-cpu0) / float64(time.Since(t0))
	if got.ProcCPU < 0.7*want || got.ProcCPU > 1.3*want+5 {
		t.Errorf("ProcCPU = %.1f, getrusage says %.1f over the same span", got.ProcCPU, want)
	}
	if got.ProcRSS == 0 {
		t.Error("ProcRSS = 0")
	}
	if got.CPUTotal <= 0 || got.CPUTotal > 100 {
		t.Errorf("CPUTotal = %.1f, want in (0, 100]", got.CPUTotal)
	}
	if got.Cores != len(got.CPUPerCore) || got.Cores == 0 {
		t.Errorf("Cores = %d, len(CPUPerCore) = %d", got.Cores, len(got.CPUPerCore))
	}
	for i, c := range got.CPUPerCore {
		if c < 0 || c > 100 {
			t.Errorf("CPUPerCore[%d] = %.1f, want 0-100", i, c)
		}
	}
	if got.Time.IsZero() {
		t.Error("Time is zero")
	}
	t.Logf("ProcCPU %.1f%% CPUTotal %.1f%% per core %.0f RSS %s", got.ProcCPU, got.CPUTotal, got.CPUPerCore, units.Bytes(got.ProcRSS))
}

// selfCPU is this process's user+system CPU time so far.
func selfCPU(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestSampleLoopbackTraffic(t *testing.T) {
	const size = 4 << 20
	ln, err := stdnet.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skipf("no loopback TCP: %v", err)
	}
	defer ln.Close()

	start := time.Now()
	s := NewSampler()

	received := make(chan int64, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			received <- 0
			return
		}
		defer c.Close()
		n, _ := io.Copy(io.Discard, c)
		received <- n
	}()
	c, err := stdnet.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write(make([]byte, size)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if n := <-received; n != size {
		t.Fatalf("received %d bytes, want %d", n, size)
	}

	got := s.Sample()
	// An upper bound of the sampled interval, so rate*elapsed >= bytes moved.
	elapsed := time.Since(start).Seconds()

	if got.Loopback == nil {
		t.Fatal("Loopback = nil after loopback traffic")
	}
	if !got.Loopback.Loopback {
		t.Error("Loopback.Loopback = false")
	}
	if rx := got.Loopback.RxBytesPerSec * elapsed; rx < size {
		t.Errorf("loopback rx %.0f bytes over %.3fs (%s), want >= %d", rx, elapsed, units.BytesRate(got.Loopback.RxBytesPerSec), size)
	}
	if tx := got.Loopback.TxBytesPerSec * elapsed; tx < size {
		t.Errorf("loopback tx %.0f bytes over %.3fs (%s), want >= %d", tx, elapsed, units.BytesRate(got.Loopback.TxBytesPerSec), size)
	}
	if got.Loopback.Utilisation() != -1 {
		t.Errorf("loopback Utilisation = %v, want -1 (no link speed)", got.Loopback.Utilisation())
	}
	for _, n := range got.NICs {
		if n.Loopback || n.Name == got.Loopback.Name {
			t.Errorf("loopback %+v listed in NICs", n)
		}
	}
	for i := 1; i < len(got.NICs); i++ {
		a, b := got.NICs[i-1], got.NICs[i]
		if a.RxBytesPerSec+a.TxBytesPerSec < b.RxBytesPerSec+b.TxBytesPerSec {
			t.Errorf("NICs not busiest first: %+v before %+v", a, b)
		}
	}
	t.Logf("loopback %s rx %s tx; NICs %+v", units.BytesRate(got.Loopback.RxBytesPerSec), units.BytesRate(got.Loopback.TxBytesPerSec), got.NICs)
}

func TestLatestAndRun(t *testing.T) {
	s := NewSampler()
	if got := s.Latest(); !got.Time.IsZero() || got.CPUPerCore != nil {
		t.Fatalf("Latest before any sample = %+v, want zero", got)
	}

	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		s.Run(ctx, 5*time.Millisecond)
	}()

	// Readers and a direct caller race with Run; -race checks the sharing.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 200 {
				l := s.Latest()
				for _, n := range l.NICs {
					_ = n.Utilisation()
				}
				runtime.Gosched()
			}
		})
	}
	wg.Go(func() {
		for range 5 {
			s.Sample()
		}
	})
	wg.Wait()

	deadline := time.Now().Add(time.Second)
	first := s.Latest().Time
	for !s.Latest().Time.After(first) {
		if time.Now().After(deadline) {
			t.Fatal("Run stored no new sample within 1s")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case <-ran:
	case <-time.After(time.Second):
		t.Fatal("Run did not return after cancel")
	}
}

func TestRunNonPositiveInterval(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// Must neither panic (time.NewTicker(0) would) nor block.
	NewSampler().Run(ctx, 0)
}

func BenchmarkSample(b *testing.B) {
	s := NewSampler()
	b.ReportAllocs()
	for b.Loop() {
		s.Sample()
	}
}

func BenchmarkLatest(b *testing.B) {
	s := NewSampler()
	s.Sample()
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Latest()
	}
}

func TestDescribe(t *testing.T) {
	m := Describe()
	if m.Cores < 1 || m.OS == "" || m.Arch == "" || m.GOMAXPROCS < 1 {
		t.Fatalf("Describe() = %+v: want cores >= 1, GOMAXPROCS, OS and arch", m)
	}
	w := m.WithLinks(Sample{Cores: 3, NICs: []NIC{{Name: "eth0", SpeedMbps: 100}}})
	if w.Cores != 3 || len(w.NICs) != 1 || w.NICs[0] != (Link{Name: "eth0", SpeedMbps: 100}) || w.Hostname != m.Hostname {
		t.Fatalf("WithLinks = %+v", w)
	}
}

// Two readings a few milliseconds apart do not turn one 10 ms tick of
// /proc into thousands of percent (the HTML report saw 3767 % at a run's
// first interval).
func TestProcCPUOverAShortSpanIsNotInflated(t *testing.T) {
	s := NewSampler()
	for i := 0; i < 50; i++ {
		x := 0
		for j := range 200000 {
			x += j
		}
		_ = x
		if got := s.Sample(); got.ProcCPU > 100*float64(runtime.NumCPU())+5 {
			t.Fatalf("reading %d: ProcCPU %.0f %% on %d cores", i, got.ProcCPU, runtime.NumCPU())
		}
	}
}

// When /proc/stat cannot be read the CPU figures are unknown (Cores 0, no
// per-core figures), never a measured 0; the first reading after one that
// failed has no baseline and is unknown too; then figures come back.
func TestCPUUnknownWithoutProc(t *testing.T) {
	s := NewSampler()
	if first := s.Sample(); first.Cores == 0 || len(first.CPUPerCore) != first.Cores {
		t.Fatalf("a readable /proc/stat gave Cores %d, %d per-core figures", first.Cores, len(first.CPUPerCore))
	}
	real := s.cpuTimes
	s.cpuTimes = func(bool) ([]cpu.TimesStat, error) { return nil, errors.New("no /proc") }
	if got := s.Sample(); got.Cores != 0 || got.CPUPerCore != nil || got.CPUTotal != 0 {
		t.Errorf("unreadable /proc/stat: Cores %d, per-core %v, total %v; want unknown (0, nil, 0)", got.Cores, got.CPUPerCore, got.CPUTotal)
	}
	s.cpuTimes = real
	if got := s.Sample(); got.Cores != 0 {
		t.Errorf("first reading after a failure (no baseline): Cores %d, want 0 (unknown)", got.Cores)
	}
	if got := s.Sample(); got.Cores == 0 {
		t.Errorf("second reading after a failure: Cores 0, want the figures back")
	}
	fresh := &Sampler{cpuTimes: real}
	if total, per := fresh.sampleCPU(); per != nil || total != 0 {
		t.Errorf("a sampler without a baseline reports %v, %v; want unknown", total, per)
	}
}
