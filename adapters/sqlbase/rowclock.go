package sqlbase

import "time"

// RowClock times the records of a batch one by one (adapters.RowTimer):
// each Row appends the time since the previous mark (the start, or the
// previous Row) to the slice it was started on; End adds what followed
// the last Row (the commit) to the last record's time. A RowClock started
// on nil does nothing.
type RowClock struct {
	took *[]int64
	mark time.Time
}

// StartRowClock starts timing the records into *took (nil: no timing).
func StartRowClock(took *[]int64) RowClock {
	if took == nil {
		return RowClock{}
	}
	return RowClock{took: took, mark: time.Now()}
}

// Row ends a record's time.
func (c *RowClock) Row() {
	if c.took == nil {
		return
	}
	now := time.Now()
	*c.took = append(*c.took, int64(now.Sub(c.mark)))
	c.mark = now
}

// End adds the time since the last Row to the last record's.
func (c *RowClock) End() {
	if c.took == nil || len(*c.took) == 0 {
		return
	}
	(*c.took)[len(*c.took)-1] += int64(time.Since(c.mark))
}
