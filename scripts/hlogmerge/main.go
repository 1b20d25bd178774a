// Command hlogmerge recomputes a fleet run's merged percentiles from its
// HDR interval log (`benchtop run ... --agents ... --hdr-log FILE`), with
// hdrhistogram-go alone: for every operation it adds up the histograms of
// every agent's own intervals (tags AGENT/OP) and, apart, the
// coordinator's merged intervals (tags OP), and prints each sum's count
// and percentiles in microseconds, as YCSB's report rounds them. A
// merged p99 that is the exact merge equals the first; an average of
// the agents' p99s would not.
//
//	go run ./scripts/hlogmerge [-q 50,95,99] RUN.hlog
//
// Output, tab-separated, a header line and then per operation (READ,
// Intended-READ, UPDATE, ...) one line per source: "agents" (every
// agent's intervals added up), "merged" (the coordinator's merged
// intervals added up) and "agent:NAME" (one agent's own), each with the
// number of agents in it, the count and the percentiles.
// scripts/reproduce-alternator.sh reads it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// sums is one operation's histograms, added up.
type sums struct {
	agents map[string]*hdr.Histogram // each agent's own intervals
	fleet  *hdr.Histogram            // every agent's intervals
	merged *hdr.Histogram            // the coordinator's merged intervals
}

func main() {
	qs := flag.String("q", "99", "comma-separated percentiles to print")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: hlogmerge [-q 50,95,99] RUN.hlog")
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	quantiles, err := parseQuantiles(*qs)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hlogmerge: -q %q: %v (allowed: percentiles in (0, 100], comma-separated)\n", *qs, err)
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintf(os.Stderr, "hlogmerge: %v\n", err)
		os.Exit(2)
	}
	defer f.Close()
	ops, err := merge(f)
	if err != nil {
		fmt.Fprintf(os.Stderr, "hlogmerge: %s: %v\n", flag.Arg(0), err)
		os.Exit(1)
	}
	write(os.Stdout, ops, quantiles)
}

func parseQuantiles(s string) ([]float64, error) {
	var out []float64
	for _, p := range strings.Split(s, ",") {
		q, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || q <= 0 || q > 100 {
			return nil, fmt.Errorf("%q is not a percentile", p)
		}
		out = append(out, q)
	}
	return out, nil
}

// splitTag reads a tag of benchtop's fleet log: [Intended-][AGENT/]OP.
// The operation keeps its Intended- prefix; agent is "" for the
// coordinator's merged intervals.
func splitTag(tag string) (op, agent string) {
	prefix := ""
	if rest, ok := strings.CutPrefix(tag, "Intended-"); ok {
		prefix, tag = "Intended-", rest
	}
	if i := strings.LastIndex(tag, "/"); i >= 0 {
		return prefix + tag[i+1:], tag[:i]
	}
	return prefix + tag, ""
}

// merge adds up the log's interval histograms per operation.
func merge(r io.Reader) (map[string]*sums, error) {
	lr := hdr.NewHistogramLogReader(r)
	ops := map[string]*sums{}
	for {
		h, err := lr.NextIntervalHistogram()
		if err != nil {
			return nil, fmt.Errorf("reading the log: %w", err)
		}
		if h == nil {
			break
		}
		op, agent := splitTag(h.Tag())
		s := ops[op]
		if s == nil {
			s = &sums{agents: map[string]*hdr.Histogram{}}
			ops[op] = s
		}
		var err2 error
		if agent == "" {
			s.merged, err2 = add(s.merged, h)
		} else if s.fleet, err2 = add(s.fleet, h); err2 == nil {
			s.agents[agent], err2 = add(s.agents[agent], h)
		}
		if err2 != nil {
			return nil, err2
		}
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("no interval histograms in it")
	}
	return ops, nil
}

// add merges h into sum, which it makes on first use.
func add(sum, h *hdr.Histogram) (*hdr.Histogram, error) {
	if sum == nil {
		sum = hdr.New(h.LowestTrackableValue(), h.HighestTrackableValue(), int(h.SignificantFigures()))
	}
	if dropped := sum.Merge(h); dropped != 0 {
		return nil, fmt.Errorf("%s: %d values out of the histogram's range", h.Tag(), dropped)
	}
	return sum, nil
}

// micros is YCSB's rounding of a nanosecond histogram's value.
func micros(h *hdr.Histogram, q float64) int64 {
	if h == nil || h.TotalCount() == 0 {
		return 0
	}
	return h.ValueAtQuantile(q) / 1000
}

func count(h *hdr.Histogram) int64 {
	if h == nil {
		return 0
	}
	return h.TotalCount()
}

func write(w io.Writer, ops map[string]*sums, quantiles []float64) {
	names := make([]string, 0, len(ops))
	for op := range ops {
		names = append(names, op)
	}
	sort.Strings(names)
	head := []string{"op", "source", "agents", "count"}
	for _, q := range quantiles {
		head = append(head, fmt.Sprintf("p%g_us", q))
	}
	fmt.Fprintln(w, strings.Join(head, "\t"))
	line := func(op, source string, agents int, h *hdr.Histogram) {
		row := []string{op, source, strconv.Itoa(agents), strconv.FormatInt(count(h), 10)}
		for _, q := range quantiles {
			row = append(row, strconv.FormatInt(micros(h, q), 10))
		}
		fmt.Fprintln(w, strings.Join(row, "\t"))
	}
	for _, op := range names {
		s := ops[op]
		line(op, "agents", len(s.agents), s.fleet)
		line(op, "merged", len(s.agents), s.merged)
		agents := make([]string, 0, len(s.agents))
		for a := range s.agents {
			agents = append(agents, a)
		}
		sort.Strings(agents)
		for _, a := range agents {
			line(op, "agent:"+a, 1, s.agents[a])
		}
	}
}
