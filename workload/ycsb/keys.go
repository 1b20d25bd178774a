package ycsb

import (
	"encoding/binary"
	"math/bits"
	"strconv"

	"benchtop/workload/gen"
)

// keyArrLen is the size of a worker's key array: "user" and up to 64
// digits (zeropadding is at most 64; a hashed number has at most 19).
const keyArrLen = 4 + 64

// keyName builds YCSB's key for a key number into buf: "user" followed by
// the (hashed, unless insertorder=ordered) number, zero-padded to
// zeropadding digits. It is on every operation's path (keyInto is the
// same into a worker's fixed array, without a copy).
func (w *coreWorkload) keyName(buf []byte, keynum int64) []byte {
	var a [keyArrLen]byte
	return append(buf[:0], w.keyInto(&a, keynum)...)
}

// keyInto is keyName into the end of a: it returns the part of a that
// holds the key. The digits are written right-aligned, zeros included,
// by putDigits, and "user" just before the ones kept: no copy.
func (w *coreWorkload) keyInto(a *[keyArrLen]byte, keynum int64) []byte {
	if !w.cfg.OrderedInserts {
		keynum = gen.FNVHash64(keynum)
	}
	width := w.cfg.ZeroPadding
	if keynum < 0 || width > keyArrLen-4 { // only an ordered key below 0
		buf := append(a[:0], "user"...)
		var num [24]byte
		digits := strconv.AppendInt(num[:0], keynum, 10)
		for i := len(digits); i < width; i++ {
			buf = append(buf, '0')
		}
		return append(buf, digits...)
	}
	u := uint64(keynum)
	putDigits((*[20]byte)(a[keyArrLen-20:]), u)
	n := max(decimalDigits(u), width)
	for i := keyArrLen - n; i < keyArrLen-20; i++ {
		a[i] = '0'
	}
	at := keyArrLen - n - 4
	copy(a[at:at+4], "user")
	return a[at:]
}

// pow10 holds 10^0 to 10^19.
var pow10 = [20]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// decimalDigits is the number of decimal digits of u (1 for 0).
func decimalDigits(u uint64) int {
	// log10(2) ~ 1233/4096: t is the digit count or one less.
	t := bits.Len64(u) * 1233 >> 12
	if u >= pow10[t] {
		t++
	}
	return max(t, 1)
}

// pairs16 holds the two ASCII digits of 0 to 99 as little-endian uint16s.
var pairs16 = func() (t [100]uint16) {
	for i := range t {
		t[i] = uint16('0'+i/10) | uint16('0'+i%10)<<8
	}
	return t
}()

// digits4 is v (< 10,000) as 4 ASCII digits in a little-endian uint32.
func digits4(v uint32) uint32 {
	return uint32(pairs16[v/100]) | uint32(pairs16[v%100])<<16
}

// digits8 is v (< 100,000,000) as 8 ASCII digits in a little-endian
// uint64.
func digits8(v uint32) uint64 {
	return uint64(digits4(v/1e4)) | uint64(digits4(v%1e4))<<32
}

// putDigits writes u in decimal as exactly 20 digits (leading zeros)
// into d. The three groups have no carried dependency between them
// (strconv divides by 100 digit pair after digit pair, each pair waiting
// for the last): a 19-digit YCSB key costs about half as much.
func putDigits(d *[20]byte, u uint64) {
	top, rest := u/1e16, u%1e16 // top < 1845
	binary.LittleEndian.PutUint32(d[0:4], digits4(uint32(top)))
	binary.LittleEndian.PutUint64(d[4:12], digits8(uint32(rest/1e8)))
	binary.LittleEndian.PutUint64(d[12:20], digits8(uint32(rest%1e8)))
}

// appendDigits appends u in decimal with at least width digits (leading
// zeros).
func appendDigits(buf []byte, u uint64, width int) []byte {
	var d [20]byte
	putDigits(&d, u)
	n := max(decimalDigits(u), width)
	for ; n > len(d); n-- {
		buf = append(buf, '0')
	}
	return append(buf, d[len(d)-n:]...)
}

// hotRanks is how many of the scrambled zipfian's most popular ranks keep
// their key ready: they are about 38 % of all draws at theta 0.99 (the
// rank's share is 1/(rank+1)^0.99 / 26.47), and a ready key saves two FNV
// hashes, a remainder and the digits, a third of the engine's work per
// operation against the embedded store. 8192 slots of 32 bytes: 256 KB,
// read-only, shared by the workers (2048 slots, 32 % of the draws,
// measured about 1 ns per operation slower).
const hotRanks = 8192

// hotSlot is one popular rank's key number and key ("user..." of at most
// 23 bytes, as YCSB's keys with zeropadding up to 19 are).
type hotSlot struct {
	num int64
	n   uint8
	key [23]byte
}

// hotKeys holds the keys of the most popular ranks of a scrambled
// zipfian key chooser. The keys drawn are exactly the ones Next would
// give (Next is Key(Rank)), so the distribution does not change.
type hotKeys struct {
	z     *gen.ScrambledZipfian
	slots []hotSlot // by rank
}

// newHotKeys builds the table for a scrambled zipfian chooser; nil when
// the chooser is another or a key does not fit a slot.
func newHotKeys(w *coreWorkload) *hotKeys {
	z, ok := w.keyChooser.(*gen.ScrambledZipfian)
	if !ok {
		return nil
	}
	h := &hotKeys{z: z, slots: make([]hotSlot, hotRanks)}
	var a [keyArrLen]byte
	for rank := range h.slots {
		s := &h.slots[rank]
		s.num = z.Key(int64(rank))
		k := w.keyInto(&a, s.num)
		if len(k) > len(s.key) {
			return nil
		}
		s.n = uint8(copy(s.key[:], k))
	}
	return h
}

// nextHotKey is nextKey for a scrambled zipfian chooser: the key of a
// popular rank from the table (a view of its read-only bytes), another
// built as usual. As nextKeynum, never a key beyond the last acknowledged
// insert.
func (cw *coreWorker) nextHotKey(h *hotKeys) string {
	w := cw.w
	for {
		rank := h.z.Rank(cw.r)
		if rank < hotRanks {
			s := &h.slots[rank]
			if s.num <= w.insertSeq.Last() {
				return unsafeString(s.key[:s.n])
			}
			continue
		}
		if k := h.z.Key(rank); k <= w.insertSeq.Last() {
			return unsafeString(w.keyInto(&cw.keyArr, k))
		}
	}
}
