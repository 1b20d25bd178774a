package stream

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
)

// A row is a fixed binary header followed by the published row shape as
// text. The header is what the consumers check; the text makes the row
// as large as stream.rowsize, with the published columns:
//
//	[0]     kind: 'D' data row, 'M' epoch marker
//	[1]     format version (1)
//	[2:4]   origin (little endian uint16): the process that wrote it
//	        (stream.origin; in a shared stream a random one when unset)
//	[4:8]   epoch (little endian uint32): the partition map it was written
//	        under; in a shared stream, which has no epoch barrier, the
//	        writing process's run id instead (random, non-zero), which
//	        tells two processes that drew one origin apart
//	[8:12]  producer id
//	[12:16] key: the producer's key index (uid below is its hash)
//	[16:20] seq: the key's sequence number, from 1
//	[20:28] produce time, ns since the workload's start (monotonic clock);
//	        in a shared stream ns since the Unix epoch (see rowClock)
//	[28:32] uid: 4-byte hash, the partition key (partition = uid % P)
//	[32:]   |name=…|class=…|time=<13 digits>|col0=<13 digits>|col1=<13 digits>
//
// uid, name and class are the primary key with time; col0 and col1 are the
// attribute columns (13-digit millisecond timestamps).
const (
	headerSize = 32
	kindData   = 'D'
	kindMarker = 'M'
	rowVersion = 1

	// MinRowSize leaves each of name and class at least 5 characters.
	MinRowSize = headerSize + len(colName) + len(colClass) + 3*(len(colTime)+13) + 10
	// MaxRowSize bounds stream.rowsize.
	MaxRowSize = 1 << 20
)

const (
	colName  = "|name="
	colClass = "|class="
	colTime  = "|time="
	colCol0  = "|col0="
	colCol1  = "|col1="
)

// rowHeader is the decoded header of a row.
type rowHeader struct {
	kind     byte
	origin   uint16
	epoch    uint32
	producer uint32
	key      uint32
	seq      uint32
	ts       int64
	uid      uint32
}

func decodeHeader(b []byte) (h rowHeader, ok bool) {
	if len(b) < headerSize || b[1] != rowVersion {
		return h, false
	}
	h.kind = b[0]
	h.origin = binary.LittleEndian.Uint16(b[2:])
	h.epoch = binary.LittleEndian.Uint32(b[4:]) // the run id in a shared stream
	h.producer = binary.LittleEndian.Uint32(b[8:])
	h.key = binary.LittleEndian.Uint32(b[12:])
	h.seq = binary.LittleEndian.Uint32(b[16:])
	h.ts = int64(binary.LittleEndian.Uint64(b[20:]))
	h.uid = binary.LittleEndian.Uint32(b[28:])
	return h, h.kind == kindData || h.kind == kindMarker
}

// markerRow returns the marker that ends epoch e in a partition.
func markerRow(e uint32) []byte {
	b := make([]byte, headerSize)
	b[0] = kindMarker
	b[1] = rowVersion
	binary.LittleEndian.PutUint32(b[4:], e)
	return b
}

// uidOf is the 4-byte hash of a producer's key: the partition key. It is a
// bijective mix (murmur3's finaliser) so that uids spread evenly over any
// number of partitions.
func uidOf(producer, key uint32) uint32 {
	h := producer*0x9e3779b1 ^ key
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

// layout says where the columns of a row of a given size are.
type layout struct {
	size    int
	timeOff int // offsets of the 13 digits of time, col0, col1
	col0Off int
	col1Off int
}

func newLayout(size int) layout {
	fixed := headerSize + len(colName) + len(colClass) + len(colTime) + len(colCol0) + len(colCol1) + 3*13
	free := size - fixed
	nameLen := free / 2
	classLen := free - nameLen
	l := layout{size: size}
	off := headerSize + len(colName) + nameLen + len(colClass) + classLen
	l.timeOff = off + len(colTime)
	l.col0Off = l.timeOff + 13 + len(colCol0)
	l.col1Off = l.col0Off + 13 + len(colCol1)
	return l
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// templates makes n row templates with random name and class strings;
// rows are a template with the header and the timestamps patched in.
func (l layout) templates(n int, r *rand.Rand) [][]byte {
	fixed := headerSize + len(colName) + len(colClass) + len(colTime) + len(colCol0) + len(colCol1) + 3*13
	free := l.size - fixed
	nameLen := free / 2
	classLen := free - nameLen
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, 0, l.size)
		b = append(b, make([]byte, headerSize)...)
		b = append(b, colName...)
		for range nameLen {
			b = append(b, alnum[r.IntN(len(alnum))])
		}
		b = append(b, colClass...)
		for range classLen {
			b = append(b, alnum[r.IntN(len(alnum))])
		}
		for _, c := range []string{colTime, colCol0, colCol1} {
			b = append(b, c...)
			b = append(b, "0000000000000"...)
		}
		b[0] = kindData
		b[1] = rowVersion
		out[i] = b
	}
	return out
}

// digits13 writes ms as 13 decimal digits (zero-padded) into dst.
func digits13(dst []byte, ms int64) {
	if ms < 0 {
		ms = 0
	}
	s := strconv.AppendInt(make([]byte, 0, 20), ms, 10)
	for i := range 13 {
		dst[i] = '0'
	}
	if len(s) > 13 {
		s = s[len(s)-13:]
	}
	copy(dst[13-len(s):13], s)
}
