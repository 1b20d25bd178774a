package host

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
)

// defaultSysClassNet is where Linux describes network interfaces.
const defaultSysClassNet = "/sys/class/net"

// Sampler reads the client host. It keeps its own previous readings, so
// that its rates do not depend on anyone else calling gopsutil (unlike
// cpu.Percent(0), whose previous sample is package-global).
//
// Sample is safe for concurrent use; Latest is lock-free and is what the
// workload and UI goroutines should call.
type Sampler struct {
	latest atomic.Pointer[Sample]
	// asks carries requests for a reading now to a Run goroutine; runs
	// counts the Run goroutines serving it.
	asks chan chan Sample
	runs atomic.Int32

	mu sync.Mutex // guards everything below
	// sysNet is the sysfs directory for interfaces (a field so tests can
	// point it elsewhere).
	sysNet string
	proc   *process.Process // nil if this process could not be opened
	// cpuTimes reads /proc/stat per core (a field so tests can make it
	// fail).
	cpuTimes func(percpu bool) ([]cpu.TimesStat, error)

	cpuOK   bool
	cpuPrev []cpu.TimesStat // per core, as read

	procOK   bool
	procPct  float64 // the last figure computed
	procPrev float64 // user+system seconds
	procAt   time.Time

	netOK   bool
	netPrev map[string]net.IOCountersStat
	netAt   time.Time

	// linkSpeed, when positive, is the link speed stated for every
	// non-loopback interface (SetLinkSpeed), in Mbit/s.
	linkSpeed int

	// ifaces caches what sysfs says about each interface: reading three
	// files per interface on every sample was a sixth of its cost.
	ifaces map[string]ifaceInfo
}

// ifaceInfoTTL is how long sysfs facts about an interface are trusted: a
// link going down or renegotiating its speed shows within this time.
const ifaceInfoTTL = 5 * time.Second

// ifaceInfo is what sysfs says about one interface.
type ifaceInfo struct {
	loopback bool
	down     bool
	speed    int // Mbit/s, 0 when unknown
	readAt   time.Time
}

// NewSampler returns a Sampler that has taken its first baseline reading,
// so that the first Sample has rates to report.
func NewSampler() *Sampler {
	s := &Sampler{
		asks:     make(chan chan Sample),
		sysNet:   defaultSysClassNet,
		ifaces:   make(map[string]ifaceInfo),
		cpuTimes: cpu.Times,
	}
	// A process that cannot read /proc/self (unusual sandboxes) simply
	// reports no process figures.
	if p, err := process.NewProcess(int32(os.Getpid())); err == nil {
		s.proc = p
	}
	s.mu.Lock()
	s.readCPU()
	s.readProc(time.Now())
	s.readNet(time.Now())
	s.mu.Unlock()
	return s
}

// Sample takes one reading now. Rates and percentages cover the time since
// the previous call to Sample (or since NewSampler). The result is also
// stored for Latest, so its slices must not be modified. gopsutil errors
// degrade to zero values.
func (s *Sampler) Sample() Sample {
	s.mu.Lock()
	defer s.mu.Unlock()

	out := Sample{Time: time.Now()}
	out.CPUTotal, out.CPUPerCore = s.sampleCPU()
	out.Cores = len(out.CPUPerCore)
	out.ProcCPU, out.ProcRSS = s.sampleProc()
	out.NICs, out.Loopback = s.sampleNet()

	stored := out
	s.latest.Store(&stored)
	return out
}

// Run calls Sample every `every` until ctx is done, storing each result for
// Latest. It is meant to run in its own goroutine. A non-positive `every`
// means one second.
func (s *Sampler) Run(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = time.Second
	}
	s.runs.Add(1)
	defer s.runs.Add(-1)
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.Sample()
		case reply := <-s.asks:
			reply <- s.Sample()
		}
	}
}

// Fresh returns a reading at most maxAge old: the latest one when it is
// recent enough, otherwise one that a Run goroutine takes now (waiting at
// most a second for it). Only the Run goroutines read /proc and move the
// CPU baseline; without one running, Fresh returns Latest.
func (s *Sampler) Fresh(maxAge time.Duration) Sample {
	latest := s.Latest()
	if (!latest.Time.IsZero() && time.Since(latest.Time) <= maxAge) || s.runs.Load() == 0 {
		return latest
	}
	reply := make(chan Sample, 1)
	timeout := time.NewTimer(time.Second)
	defer timeout.Stop()
	select {
	case s.asks <- reply:
		return <-reply
	case <-timeout.C:
		return latest
	}
}

// Latest returns the most recent stored sample without locking, or a zero
// Sample before the first. Its slices and Loopback are shared with other
// readers and must not be modified.
func (s *Sampler) Latest() Sample {
	if p := s.latest.Load(); p != nil {
		return *p
	}
	return Sample{}
}

// readCPU replaces the CPU baseline and returns it, nil if it failed.
func (s *Sampler) readCPU() []cpu.TimesStat {
	// One read of /proc/stat: the total is the sum of the cores, so the
	// "cpu" line need not be read separately.
	cur, err := s.cpuTimes(true)
	if err != nil || len(cur) == 0 {
		s.cpuOK, s.cpuPrev = false, nil
		return nil
	}
	s.cpuOK, s.cpuPrev = true, cur
	return cur
}

func (s *Sampler) sampleCPU() (total float64, perCore []float64) {
	prev, prevOK := s.cpuPrev, s.cpuOK
	cur := s.readCPU()
	if cur == nil {
		return 0, nil
	}
	if !prevOK {
		return 0, nil // no baseline: unknown, not 0
	}
	perCore = make([]float64, len(cur))
	var sumPrev, sumCur cpu.TimesStat
	for i, c := range cur {
		p, ok := matchCore(prev, i, c.CPU)
		if !ok {
			continue // a core that came online: no baseline yet
		}
		perCore[i] = cpuPercent(p, c)
		addTimes(&sumPrev, p)
		addTimes(&sumCur, c)
	}
	return cpuPercent(sumPrev, sumCur), perCore
}

// matchCore finds the previous reading of the core named name, normally at
// the same index.
func matchCore(prev []cpu.TimesStat, i int, name string) (cpu.TimesStat, bool) {
	if i < len(prev) && prev[i].CPU == name {
		return prev[i], true
	}
	for _, p := range prev {
		if p.CPU == name {
			return p, true
		}
	}
	return cpu.TimesStat{}, false
}

func addTimes(sum *cpu.TimesStat, t cpu.TimesStat) {
	sum.User += t.User
	sum.System += t.System
	sum.Idle += t.Idle
	sum.Nice += t.Nice
	sum.Iowait += t.Iowait
	sum.Irq += t.Irq
	sum.Softirq += t.Softirq
	sum.Steal += t.Steal
	sum.Guest += t.Guest
	sum.GuestNice += t.GuestNice
}

// cpuAllIdle returns the total and idle time of a reading. Guest time is
// left out because Linux already counts it in user and nice.
func cpuAllIdle(t cpu.TimesStat) (all, idle float64) {
	idle = t.Idle + t.Iowait
	all = idle + t.User + t.Nice + t.System + t.Irq + t.Softirq + t.Steal
	return all, idle
}

// cpuPercent is the busy share, 0-100, between two cumulative readings of
// the same CPU (or of the sum of several). It is 0 when no time has passed
// or when a counter went backwards (wrap, CPU hot-plug, counter reset).
func cpuPercent(prev, cur cpu.TimesStat) float64 {
	pAll, pIdle := cpuAllIdle(prev)
	cAll, cIdle := cpuAllIdle(cur)
	dAll, dIdle := cAll-pAll, cIdle-pIdle
	if dAll <= 0 || dIdle < 0 {
		return 0
	}
	dBusy := dAll - dIdle
	if dBusy < 0 {
		return 0
	}
	return clamp(dBusy/dAll*100, 0, 100)
}

// readProc replaces the process baseline and returns the CPU seconds.
func (s *Sampler) readProc(now time.Time) (float64, bool) {
	if s.proc == nil {
		return 0, false
	}
	t, err := s.proc.Times()
	if err != nil || t == nil {
		s.procOK = false
		return 0, false
	}
	cpuSec := t.User + t.System
	s.procOK, s.procPrev, s.procAt = true, cpuSec, now
	return cpuSec, true
}

// minProcSpan is the shortest span a process-CPU figure is computed
// over: /proc counts CPU time in 10 ms ticks, so over a few milliseconds
// one tick reads as thousands of percent. A reading sooner than this
// repeats the previous figure and keeps the baseline.
const minProcSpan = 100 * time.Millisecond

func (s *Sampler) sampleProc() (pct float64, rss uint64) {
	prev, prevAt, prevOK := s.procPrev, s.procAt, s.procOK
	now := time.Now()
	if prevOK && now.Sub(prevAt) < minProcSpan {
		pct = s.procPct
	} else if cur, ok := s.readProc(now); ok && prevOK {
		pct = procPercent(prev, cur, now.Sub(prevAt))
		s.procPct = pct
	}
	if s.proc != nil {
		if m, err := s.proc.MemoryInfo(); err == nil && m != nil {
			rss = m.RSS
		}
	}
	return pct, rss
}

// procPercent is the CPU use of a process in percent of one core between
// two readings of its cumulative CPU seconds taken elapsed apart. It can
// exceed 100 on several cores; it is 0 for no elapsed time or a decrease.
func procPercent(prevSec, curSec float64, elapsed time.Duration) float64 {
	if elapsed <= 0 || curSec < prevSec {
		return 0
	}
	return (curSec - prevSec) / elapsed.Seconds() * 100
}

// readNet replaces the network baseline and returns it, nil if it failed.
func (s *Sampler) readNet(now time.Time) []net.IOCountersStat {
	cur, err := net.IOCounters(true)
	if err != nil {
		s.netOK, s.netPrev = false, nil
		return nil
	}
	m := make(map[string]net.IOCountersStat, len(cur))
	for _, c := range cur {
		m[c.Name] = c
	}
	s.netOK, s.netPrev, s.netAt = true, m, now
	return cur
}

func (s *Sampler) sampleNet() (nics []NIC, lo *NIC) {
	prev, prevAt, prevOK := s.netPrev, s.netAt, s.netOK
	now := time.Now()
	cur := s.readNet(now)
	if !prevOK {
		prev = nil
	}
	return s.nicRates(prev, cur, now.Sub(prevAt))
}

// nicRates turns two readings of the per-interface counters into NICs:
// loopback apart, interfaces that are down or never carried traffic left
// out, the rest busiest first. An interface missing from prev has zero
// rates.
func (s *Sampler) nicRates(prev map[string]net.IOCountersStat, cur []net.IOCountersStat, elapsed time.Duration) (nics []NIC, lo *NIC) {
	now := time.Now()
	if len(s.ifaces) > 2*len(cur)+16 {
		// Interfaces come and go (containers): forget the departed.
		s.ifaces = make(map[string]ifaceInfo, len(cur))
	}
	for _, c := range cur {
		// Never carried traffic (ifb, unused bridges): not worth a row.
		if c.BytesRecv == 0 && c.BytesSent == 0 {
			continue
		}
		var n NIC
		n.Name = c.Name
		if p, ok := prev[c.Name]; ok {
			n.RxBytesPerSec = byteRate(p.BytesRecv, c.BytesRecv, elapsed)
			n.TxBytesPerSec = byteRate(p.BytesSent, c.BytesSent, elapsed)
		}
		info := s.ifaceInfo(c.Name, now)
		if info.loopback {
			n.Loopback = true
			if lo == nil {
				l := n
				lo = &l
			}
			continue
		}
		if info.down {
			continue
		}
		n.SpeedMbps = info.speed
		if s.linkSpeed > 0 {
			n.SpeedMbps, n.SpeedStated = s.linkSpeed, true
		}
		nics = append(nics, n)
	}
	sort.SliceStable(nics, func(i, j int) bool {
		a := nics[i].RxBytesPerSec + nics[i].TxBytesPerSec
		b := nics[j].RxBytesPerSec + nics[j].TxBytesPerSec
		if a != b {
			return a > b
		}
		return nics[i].Name < nics[j].Name
	})
	return nics, lo
}

// byteRate is the rate in bytes/s between two readings of a cumulative
// counter taken elapsed apart; 0 for no elapsed time or a decrease (wrap,
// interface re-created).
func byteRate(prev, cur uint64, elapsed time.Duration) float64 {
	if elapsed <= 0 || cur < prev {
		return 0
	}
	return float64(cur-prev) / elapsed.Seconds()
}

// ifaceInfo returns what sysfs says about the interface, read at most
// every ifaceInfoTTL. Without sysfs, "lo" is the loopback and every
// interface is up with an unknown speed.
func (s *Sampler) ifaceInfo(name string, now time.Time) ifaceInfo {
	if s.ifaces == nil {
		s.ifaces = make(map[string]ifaceInfo)
	}
	if info, ok := s.ifaces[name]; ok && now.Sub(info.readAt) < ifaceInfoTTL {
		return info
	}
	dir := s.sysNet
	if dir == "" {
		dir = defaultSysClassNet
	}
	info := ifaceInfo{loopback: name == "lo", readAt: now}
	if f := readTrim(dir, name, "flags"); f != "" {
		if flags, err := strconv.ParseUint(f, 0, 32); err == nil {
			const iffLoopback = 0x8
			info.loopback = flags&iffLoopback != 0
		}
	}
	if !info.loopback {
		info.down = isDown(readTrim(dir, name, "operstate"))
		if !info.down {
			info.speed = readSpeed(dir, name)
		}
	}
	s.ifaces[name] = info
	return info
}

// isDown reports whether a sysfs operstate says the link cannot carry
// traffic. "unknown" (loopback, some virtual devices) and an unreadable
// file count as up.
func isDown(operstate string) bool {
	switch operstate {
	case "down", "lowerlayerdown", "notpresent":
		return true
	}
	return false
}

// readTrim returns the trimmed content of dir/iface/file, or "" on error.
func readTrim(dir, iface, file string) string {
	b, err := os.ReadFile(filepath.Join(dir, iface, file))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// readSpeed returns the link speed of iface in Mbit/s from dir/iface/speed,
// 0 when unknown.
func readSpeed(dir, iface string) int {
	b, err := os.ReadFile(filepath.Join(dir, iface, "speed"))
	if err != nil {
		// EINVAL for interfaces without a speed (loopback, virtual, down).
		return 0
	}
	return parseSpeed(b)
}

// parseSpeed parses the content of a sysfs speed file: a decimal number of
// Mbit/s. -1 (unknown), garbage and non-positive values give 0.
func parseSpeed(b []byte) int {
	v, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || v <= 0 {
		return 0
	}
	return v
}

func clamp(v, lo, hi float64) float64 {
	return min(max(v, lo), hi)
}
