package measure

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// wireVersion is the version of the Set's encoding.
const wireVersion = 1

// wireSet is a Set as it crosses a process boundary: each non-empty
// histogram in HdrHistogram's standard compressed encoding (V2, as .hlog
// lines carry it), the counters as they are.
type wireSet struct {
	Version                 int
	Lowest, Highest         int64
	Digits                  int
	Hists                   []wireHist
	Errors                  []wireErrors
	Integrity, Ops, MaxLag  int64
	Missing, Failed, CutOff int64
	// Batched is Set.Batched up to its last non-zero op type (absent in
	// the encodings of benchtops older than it: none batched).
	Batched []int64 `json:",omitempty"`
}

// wireHist is one histogram of a wireSet.
type wireHist struct {
	Slot       int
	OutOfRange int64
	Data       []byte
}

// wireErrors is one operation type's errors of one kind in a wireSet.
type wireErrors struct {
	Op    int
	Kind  string
	N     int64
	Cause string `json:",omitempty"` // the latest message
}

func (s *Set) wire() (*wireSet, error) {
	w := &wireSet{Version: wireVersion, Lowest: Lowest, Highest: Highest, Digits: Digits,
		Integrity: s.Integrity, Ops: s.Ops, MaxLag: s.MaxLag, Missing: s.Missing, Failed: s.Failed, CutOff: s.CutOff}
	for op, n := range s.Batched {
		if n != 0 {
			w.Batched = s.Batched[:op+1]
		}
	}
	for slot, h := range s.H {
		if (h == nil || h.TotalCount() == 0) && s.OutOfRange[slot] == 0 {
			continue
		}
		wh := wireHist{Slot: slot, OutOfRange: s.OutOfRange[slot]}
		if h != nil && h.TotalCount() > 0 {
			b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
			if err != nil {
				return nil, fmt.Errorf("measure: encode histogram %d: %w", slot, err)
			}
			wh.Data = b
		}
		w.Hists = append(w.Hists, wh)
	}
	for op, m := range s.Errors {
		kinds := make([]string, 0, len(m))
		for k := range m {
			kinds = append(kinds, k)
		}
		sort.Strings(kinds)
		for _, k := range kinds {
			w.Errors = append(w.Errors, wireErrors{Op: op, Kind: k, N: m[k], Cause: s.Causes[op][k]})
		}
	}
	return w, nil
}

// counters is a Set holding the wire form's counters.
func (w *wireSet) counters() Set {
	s := Set{Integrity: w.Integrity, Missing: w.Missing, Ops: w.Ops, Failed: w.Failed, CutOff: w.CutOff, MaxLag: w.MaxLag}
	copy(s.Batched[:], w.Batched)
	return s
}

func (s *Set) fromWire(w *wireSet) error {
	if w.Version != wireVersion {
		return fmt.Errorf("measure: encoding version %d, this benchtop reads %d", w.Version, wireVersion)
	}
	if w.Lowest != Lowest || w.Highest != Highest || w.Digits != Digits {
		return fmt.Errorf("measure: histogram range %d-%d ns at %d digits, this benchtop uses %d-%d at %d",
			w.Lowest, w.Highest, w.Digits, Lowest, Highest, Digits)
	}
	*s = w.counters()
	for _, wh := range w.Hists {
		if wh.Slot < 0 || wh.Slot >= NumSlots {
			return fmt.Errorf("measure: histogram slot %d out of range", wh.Slot)
		}
		s.OutOfRange[wh.Slot] = wh.OutOfRange
		if len(wh.Data) == 0 {
			continue
		}
		h, err := hdr.Decode(wh.Data)
		if err != nil {
			return fmt.Errorf("measure: decode histogram %d: %w", wh.Slot, err)
		}
		s.H[wh.Slot] = h
	}
	for _, e := range w.Errors {
		if e.Op < 0 || e.Op >= NumOps {
			return fmt.Errorf("measure: error counts for operation %d out of range", e.Op)
		}
		s.AddError(e.Op, e.Kind, e.N)
		if e.Cause != "" {
			s.SetCause(e.Op, e.Kind, e.Cause)
		}
	}
	return nil
}

// MarshalBinary encodes s (gob framing, histograms in HdrHistogram's V2
// compressed encoding).
func (s *Set) MarshalBinary() ([]byte, error) {
	w, err := s.wire()
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(w); err != nil {
		return nil, fmt.Errorf("measure: encode: %w", err)
	}
	return b.Bytes(), nil
}

// UnmarshalBinary decodes what MarshalBinary encoded.
func (s *Set) UnmarshalBinary(data []byte) error {
	var w wireSet
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(&w); err != nil {
		return fmt.Errorf("measure: decode: %w", err)
	}
	return s.fromWire(&w)
}

// MarshalJSON encodes s as JSON (histograms base64, V2 compressed).
func (s *Set) MarshalJSON() ([]byte, error) {
	w, err := s.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(w)
}

// UnmarshalJSON decodes what MarshalJSON encoded.
func (s *Set) UnmarshalJSON(data []byte) error {
	var w wireSet
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("measure: decode: %w", err)
	}
	return s.fromWire(&w)
}

// Equal reports whether s and o hold the same measurements: equal
// histograms bucket by bucket, counters and errors.
func (s *Set) Equal(o *Set) bool {
	if s.Integrity != o.Integrity || s.Missing != o.Missing || s.Ops != o.Ops || s.Failed != o.Failed || s.CutOff != o.CutOff ||
		s.MaxLag != o.MaxLag || s.OutOfRange != o.OutOfRange || s.Batched != o.Batched {
		return false
	}
	for i := range s.H {
		a, b := s.H[i], o.H[i]
		an, bn := a == nil || a.TotalCount() == 0, b == nil || b.TotalCount() == 0
		if an != bn {
			return false
		}
		if !an && !a.Equals(b) {
			return false
		}
	}
	for op := range s.Errors {
		if len(s.Errors[op]) != len(o.Errors[op]) {
			return false
		}
		for k, n := range s.Errors[op] {
			if o.Errors[op][k] != n || s.Causes[op][k] != o.Causes[op][k] {
				return false
			}
		}
	}
	return true
}
