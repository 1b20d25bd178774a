package fleet

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"benchtop/engine/measure"
)

// The coordinator's fast path. Decoding every agent's histograms into
// hdrhistogram-go Histograms (a 270 KB counts array each at the engine's
// range) and merging them cost a core's tenth for 64 agents x 8 operation
// types. Histograms of one range and precision add bucket by bucket, so
// the coordinator adds each encoded histogram (HdrHistogram's standard V2
// compressed encoding, as the Set's wire form carries it) straight into
// one counts array per slot, and builds one Histogram per slot per
// interval from the sums. The result is the same, bucket for bucket
// (TestFastPathEqualsSetDecode).

// wireSet mirrors measure.Set's JSON wire form, version 1.
type wireSet struct {
	Version         int
	Lowest, Highest int64
	Digits          int
	Hists           []struct {
		Slot       int
		OutOfRange int64
		Data       []byte
	}
	Errors []struct {
		Op    int
		Kind  string
		N     int64
		Cause string
	}
	Integrity, Ops, MaxLag int64
}

// encodedHist is one histogram still in its V2 compressed encoding.
type encodedHist struct {
	slot int
	data []byte // base64 text, as hdrhistogram-go's Encode writes it
}

// wireInterval is an Interval as the coordinator reads it: the Set in its
// wire form, parsed once.
type wireInterval struct {
	Interval
	Set *wireSet
}

// decodeInterval reads an interval message: its Set's counters into
// iv.Set and its histograms kept encoded (iv.hists). A wire form of
// another version or range is refused, as the Set's own decoder refuses
// it.
func decodeInterval(body []byte) (*Interval, error) {
	var w wireInterval
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("fleet: decode interval: %w", err)
	}
	iv := &w.Interval
	ws := w.Set
	if ws == nil {
		return iv, nil
	}
	r := LocalRange()
	if ws.Version != 1 {
		return nil, fmt.Errorf("fleet: decode interval: measurements in encoding version %d, this coordinator reads 1", ws.Version)
	}
	if ws.Lowest != r.Lowest || ws.Highest != r.Highest || ws.Digits != r.Digits {
		return nil, fmt.Errorf("fleet: decode interval: histogram range %d-%d at %d digits, this coordinator merges %d-%d at %d",
			ws.Lowest, ws.Highest, ws.Digits, r.Lowest, r.Highest, r.Digits)
	}
	s := &measure.Set{Integrity: ws.Integrity, Ops: ws.Ops, MaxLag: ws.MaxLag}
	for _, h := range ws.Hists {
		if h.Slot < 0 || h.Slot >= measure.NumSlots {
			return nil, fmt.Errorf("fleet: decode interval: histogram slot %d out of range", h.Slot)
		}
		s.OutOfRange[h.Slot] = h.OutOfRange
		if len(h.Data) > 0 {
			iv.hists = append(iv.hists, encodedHist{slot: h.Slot, data: h.Data})
		}
	}
	for _, e := range ws.Errors {
		if e.Op < 0 || e.Op >= measure.NumOps {
			return nil, fmt.Errorf("fleet: decode interval: error counts for operation %d out of range", e.Op)
		}
		s.AddError(e.Op, e.Kind, e.N)
		if e.Cause != "" {
			s.SetCause(e.Op, e.Kind, e.Cause)
		}
	}
	iv.Set = s
	return iv, nil
}

// materialize decodes an interval's encoded histograms into its Set, for
// hooks that need Histograms (the per-agent HDR log).
func materialize(iv *Interval) error {
	for _, eh := range iv.hists {
		h, err := hdr.Decode(eh.data)
		if err != nil {
			return fmt.Errorf("fleet: decode histogram %d: %w", eh.slot, err)
		}
		iv.Set.H[eh.slot] = h
	}
	iv.hists = nil
	return nil
}

// countsLen is the length of a counts array at the engine's range.
var countsLen = len(measure.NewHistogram().Export().Counts)

// v2Decoder adds V2 compressed histograms into counts arrays, reusing its
// buffers and inflater.
type v2Decoder struct {
	raw, out bytes.Buffer
	b64      []byte
	zr       io.ReadCloser
}

// V2 encoding constants (HdrHistogram's, as hdrhistogram-go writes them).
const (
	v2Cookie           = 0x1c849303
	v2CompressedCookie = 0x1c849304
	v2HeaderSize       = 40
)

var errCorrupt = errors.New("fleet: corrupt histogram encoding")

// addTo adds the histogram encoded in data to acc.
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
	if d.zr == nil {
		if d.zr, err = zlib.NewReader(bytes.NewReader(enc[8 : 8+clen])); err != nil {
			return fmt.Errorf("%w: %v", errCorrupt, err)
		}
	} else if err := d.zr.(zlib.Resetter).Reset(bytes.NewReader(enc[8:8+clen]), nil); err != nil {
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
	if lowest != measure.Lowest || highest != measure.Highest || digits != measure.Digits {
		return fmt.Errorf("%w: range %d-%d at %d digits", errCorrupt, lowest, highest, digits)
	}
	p = p[v2HeaderSize:]
	idx := 0
	for len(p) > 0 {
		v, n := binary.Uvarint(p) // LEB128; ZigZag below
		if n <= 0 || n > 9 {
			// hdrhistogram's 9th byte carries 8 bits, which Uvarint reads as
			// an overflow: decode it the long way.
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
