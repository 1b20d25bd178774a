package measure

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/klauspost/compress/zlib"
)

// Merging from the encoded form. A coordinator that merges many
// processes' Sets each interval (package fleet) would otherwise decode
// every histogram into a fresh hdrhistogram-go Histogram (a counts array
// of ~270 KB at the engine's range) and merge them with Histogram.Merge
// (an iterator over every bucket). Histograms of one range and precision
// add bucket by bucket, so an Accumulator adds each encoded histogram
// (HdrHistogram's standard V2 compressed encoding, as the wire form
// carries it) straight into one counts array per slot, and builds one
// Histogram per slot from the sums. The result equals, bucket for bucket,
// the Sets decoded and merged (TestAccumulatorEqualsMerge).
//
// klauspost/compress's zlib inflates the histograms: a drop-in for the
// standard library's, and faster at it (the merge's largest cost).

// Encoded is a Set as MarshalJSON encodes it, parsed, its histograms
// still encoded: the counters are read, the histograms are added into an
// Accumulator without being decoded into Histograms of their own.
type Encoded struct {
	// Counters are the Set's counters (out-of-range counts, errors and
	// their causes, operations, integrity, lag); its histograms are nil.
	Counters Set
	hists    []encodedHist
}

// encodedHist is one histogram in its V2 compressed encoding.
type encodedHist struct {
	slot int
	data []byte // base64 text, as hdrhistogram-go's Encode writes it
}

// UnmarshalJSON reads what Set.MarshalJSON wrote; an encoding of another
// version or range is refused, as Set.UnmarshalJSON refuses it.
func (e *Encoded) UnmarshalJSON(b []byte) error {
	var w Wire
	if err := json.Unmarshal(b, &w); err != nil {
		return fmt.Errorf("measure: decode: %w", err)
	}
	return e.FromWire(&w)
}

// Wire is the Set's JSON wire form as encoding/json reads it: a message
// that carries a Set decodes it in the one pass over the message (a field
// of type *Wire), then Encoded.FromWire takes it. (A json.Unmarshaler,
// Encoded itself, would have the decoder scan the Set twice.)
type Wire = wireSet

// FromWire takes a Set's wire form, its histograms kept encoded.
func (e *Encoded) FromWire(w *Wire) error {
	if w.Version != wireVersion {
		return fmt.Errorf("measure: encoding version %d, this benchtop reads %d", w.Version, wireVersion)
	}
	if w.Lowest != Lowest || w.Highest != Highest || w.Digits != Digits {
		return fmt.Errorf("measure: histogram range %d-%d ns at %d digits, this benchtop uses %d-%d at %d",
			w.Lowest, w.Highest, w.Digits, Lowest, Highest, Digits)
	}
	*e = Encoded{Counters: w.counters()}
	s := &e.Counters
	for _, wh := range w.Hists {
		if wh.Slot < 0 || wh.Slot >= NumSlots {
			return fmt.Errorf("measure: histogram slot %d out of range", wh.Slot)
		}
		s.OutOfRange[wh.Slot] = wh.OutOfRange
		if len(wh.Data) > 0 {
			e.hists = append(e.hists, encodedHist{slot: wh.Slot, data: wh.Data})
		}
	}
	for _, er := range w.Errors {
		if er.Op < 0 || er.Op >= NumOps {
			return fmt.Errorf("measure: error counts for operation %d out of range", er.Op)
		}
		s.AddError(er.Op, er.Kind, er.N)
		if er.Cause != "" {
			s.SetCause(er.Op, er.Kind, er.Cause)
		}
	}
	return nil
}

// Set decodes the histograms too and returns the whole Set (a new one
// each call; the counters' maps are shared with e).
func (e *Encoded) Set() (*Set, error) {
	s := e.Counters
	for _, eh := range e.hists {
		h, err := hdr.Decode(eh.data)
		if err != nil {
			return nil, fmt.Errorf("measure: decode histogram %d: %w", eh.slot, err)
		}
		s.H[eh.slot] = h
	}
	return &s, nil
}

// MergeEncoded adds the Set that data holds (MarshalJSON's encoding) to
// s, bucket by bucket, as Merge of the decoded Set would.
func (s *Set) MergeEncoded(data []byte) error {
	var e Encoded
	if err := e.UnmarshalJSON(data); err != nil {
		return err
	}
	var a Accumulator
	a.Add(s)
	if err := a.AddEncoded(&e); err != nil {
		return err
	}
	*s = *a.Take()
	return nil
}

// countsLen is the length of a counts array at the engine's range.
var countsLen = len(NewHistogram().Export().Counts)

// Accumulator sums Sets, decoded or encoded, into one. Its counts arrays
// and decoder buffers are kept from one Take to the next. The zero value
// is ready; it is not safe for concurrent use.
type Accumulator struct {
	acc  [NumSlots][]int64
	used [NumSlots]bool
	rest Set // the counters: errors, causes, ops, integrity, lag
	n    int
	dec  v2Decoder
}

// N is how many Sets were added since the last Take.
func (a *Accumulator) N() int { return a.n }

// counts is slot's counts array, made on first use.
func (a *Accumulator) counts(slot int) []int64 {
	if a.acc[slot] == nil {
		a.acc[slot] = make([]int64, countsLen)
	}
	a.used[slot] = true
	return a.acc[slot]
}

// AddEncoded adds an encoded Set. A histogram that does not decode is an
// error, and the Accumulator then holds part of e: Take it and drop it.
func (a *Accumulator) AddEncoded(e *Encoded) error {
	a.n++
	for _, eh := range e.hists {
		if err := a.dec.addTo(a.counts(eh.slot), eh.data); err != nil {
			return fmt.Errorf("measure: histogram %d: %w", eh.slot, err)
		}
	}
	a.addCounters(&e.Counters)
	return nil
}

// Add adds a decoded Set.
func (a *Accumulator) Add(o *Set) {
	a.n++
	for slot, h := range o.H {
		if h == nil || h.TotalCount() == 0 {
			continue
		}
		acc := a.counts(slot)
		for i, c := range h.Export().Counts {
			acc[i] += c
		}
	}
	a.addCounters(o)
}

// addCounters adds everything but the histograms, by Merge's rules
// (which add out-of-range counts only next to a histogram: added here).
func (a *Accumulator) addCounters(o *Set) {
	saved := o.H
	o.H = [NumSlots]*hdr.Histogram{}
	a.rest.Merge(o)
	o.H = saved
	for slot, n := range o.OutOfRange {
		a.rest.OutOfRange[slot] += n
	}
}

// Take returns the sum and empties the Accumulator for the next round.
func (a *Accumulator) Take() *Set {
	r := &a.rest
	out := &Set{OutOfRange: r.OutOfRange, Errors: r.Errors, Causes: r.Causes, Integrity: r.Integrity, Missing: r.Missing,
		Ops: r.Ops, Failed: r.Failed, CutOff: r.CutOff, MaxLag: r.MaxLag, Batched: r.Batched}
	for slot, used := range a.used {
		if !used {
			continue
		}
		out.H[slot] = hdr.Import(&hdr.Snapshot{LowestTrackableValue: Lowest, HighestTrackableValue: Highest,
			SignificantFigures: Digits, Counts: a.acc[slot]})
		clear(a.acc[slot])
		a.used[slot] = false
	}
	a.rest = Set{}
	a.n = 0
	return out
}

// v2Decoder adds V2 compressed histograms into counts arrays, reusing its
// buffers and inflater.
type v2Decoder struct {
	out bytes.Buffer
	b64 []byte
	src bytes.Reader
	zr  io.ReadCloser
}

// V2 encoding constants (HdrHistogram's, as hdrhistogram-go writes them).
const (
	v2Cookie           = 0x1c849303
	v2CompressedCookie = 0x1c849304
	v2HeaderSize       = 40
)

var errCorrupt = errors.New("corrupt histogram encoding")

// addTo adds the histogram encoded in data (base64 text of the V2
// compressed encoding) to acc.
func (d *v2Decoder) addTo(acc []int64, data []byte) error {
	if n := base64.StdEncoding.DecodedLen(len(data)); cap(d.b64) < n {
		d.b64 = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(d.b64[:cap(d.b64)], data)
	if err != nil {
		return fmt.Errorf("%w: %v", errCorrupt, err)
	}
	enc := d.b64[:n]
	if len(enc) < 8 || int32(binary.BigEndian.Uint32(enc))&^0xf0 != v2CompressedCookie {
		return fmt.Errorf("%w: not V2 compressed", errCorrupt)
	}
	clen := int(int32(binary.BigEndian.Uint32(enc[4:])))
	if clen < 0 || clen > len(enc)-8 {
		return fmt.Errorf("%w: compressed length %d", errCorrupt, clen)
	}
	d.src.Reset(enc[8 : 8+clen])
	if d.zr == nil {
		if d.zr, err = zlib.NewReader(&d.src); err != nil {
			return fmt.Errorf("%w: %v", errCorrupt, err)
		}
	} else if err := d.zr.(zlib.Resetter).Reset(&d.src, nil); err != nil {
		return fmt.Errorf("%w: %v", errCorrupt, err)
	}
	d.out.Reset()
	if _, err := d.out.ReadFrom(d.zr); err != nil {
		return fmt.Errorf("%w: %v", errCorrupt, err)
	}
	p := d.out.Bytes()
	if len(p) < v2HeaderSize || int32(binary.BigEndian.Uint32(p))&^0xf0 != v2Cookie {
		return fmt.Errorf("%w: header", errCorrupt)
	}
	if plen := int(int32(binary.BigEndian.Uint32(p[4:]))); plen != len(p)-v2HeaderSize {
		return fmt.Errorf("%w: payload length %d of %d", errCorrupt, plen, len(p)-v2HeaderSize)
	}
	digits := int32(binary.BigEndian.Uint32(p[12:]))
	lowest, highest := int64(binary.BigEndian.Uint64(p[16:])), int64(binary.BigEndian.Uint64(p[24:]))
	if lowest != Lowest || highest != Highest || digits != Digits {
		return fmt.Errorf("%w: range %d-%d at %d digits", errCorrupt, lowest, highest, digits)
	}
	return addCounts(acc, p[v2HeaderSize:])
}

// addCounts adds the V2 payload's counts (ZigZag LEB128, a negative
// count a run of zeros) to acc.
func addCounts(acc []int64, p []byte) error {
	idx := 0
	for len(p) > 0 {
		var v uint64
		var n int
		if p[0] < 0x80 { // one byte: the most common case
			v, n = uint64(p[0]), 1
		} else if v, n = binary.Uvarint(p); n <= 0 || n > 9 {
			// hdrhistogram's 9th byte carries 8 bits, which Uvarint reads
			// as an overflow: decode it the long way.
			var ok bool
			if v, n, ok = leb128x9(p); !ok {
				return fmt.Errorf("%w: count", errCorrupt)
			}
		}
		p = p[n:]
		c := int64(v>>1) ^ -int64(v&1)
		if c < 0 {
			if -c > int64(len(acc)-idx) {
				return fmt.Errorf("%w: zero run past the counts", errCorrupt)
			}
			idx += int(-c)
			continue
		}
		if idx >= len(acc) {
			return fmt.Errorf("%w: index past the counts", errCorrupt)
		}
		acc[idx] += c
		idx++
	}
	return nil
}

// leb128x9 reads hdrhistogram's LEB128-64b9B: 8 groups of 7 bits, then a
// full 9th byte.
func leb128x9(b []byte) (uint64, int, bool) {
	var v uint64
	for i := 0; i < 9; i++ {
		if i >= len(b) {
			return 0, 0, false
		}
		if i == 8 {
			return v | uint64(b[8])<<56, 9, true
		}
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}
