package gen

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Histogram is YCSB's HistogramGenerator: sizes drawn from a histogram of
// buckets of width one, multiplied by a block size. Like YCSB's, it returns
// the top of the drawn bucket, so the smallest value is one block.
type Histogram struct {
	block   int64
	buckets []int64
	area    int64
}

// NewHistogram builds a Histogram from bucket counts and a block size. It
// returns an error when no bucket has a count or the block size is not
// positive.
func NewHistogram(buckets []int64, block int64) (*Histogram, error) {
	if block <= 0 {
		return nil, fmt.Errorf("block size %d: must be > 0", block)
	}
	h := &Histogram{block: block, buckets: buckets}
	for i, c := range buckets {
		if c < 0 {
			return nil, fmt.Errorf("bucket %d: negative count %d", i, c)
		}
		h.area += c
	}
	if h.area <= 0 {
		return nil, fmt.Errorf("no bucket has a count")
	}
	return h, nil
}

// ReadHistogram reads YCSB's histogram file format: a first line
// "BlockSize<TAB>n", then one "bucket<TAB>count" line per bucket, buckets
// numbered from 0 in order.
func ReadHistogram(r io.Reader) (*Histogram, error) {
	sc := bufio.NewScanner(r)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("empty file")
	}
	head := strings.Split(strings.TrimRight(sc.Text(), "\r"), "\t")
	if len(head) != 2 || head[0] != "BlockSize" {
		return nil, fmt.Errorf("line 1: want \"BlockSize<TAB>n\", got %q", sc.Text())
	}
	block, err := strconv.ParseInt(strings.TrimSpace(head[1]), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("line 1: block size %q: not a number", head[1])
	}
	var buckets []int64
	for line := 2; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		f := strings.Split(text, "\t")
		if len(f) != 2 {
			return nil, fmt.Errorf("line %d: want \"bucket<TAB>count\", got %q", line, text)
		}
		b, err1 := strconv.Atoi(strings.TrimSpace(f[0]))
		c, err2 := strconv.ParseInt(strings.TrimSpace(f[1]), 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("line %d: %q: not two numbers", line, text)
		}
		if b != len(buckets) {
			return nil, fmt.Errorf("line %d: bucket %d out of order (want %d)", line, b, len(buckets))
		}
		buckets = append(buckets, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return NewHistogram(buckets, block)
}

// Max is the largest value Next returns.
func (h *Histogram) Max() int64 { return int64(max(len(h.buckets)-1, 1)) * h.block }

// Next draws a size as YCSB's HistogramGenerator.nextValue does.
func (h *Histogram) Next(r *Rand) int64 {
	n := r.Int64N(h.area)
	i := 0
	for ; i < len(h.buckets)-1; i++ {
		n -= h.buckets[i]
		if n <= 0 {
			return int64(i+1) * h.block
		}
	}
	return int64(i) * h.block
}
