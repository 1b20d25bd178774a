package influx

import (
	"context"
	"strconv"
	"testing"
	"time"

	"benchtop/adapters/adaptertest"
)

// BenchmarkWriteLines is one batch write of 5000 points (132 bytes each,
// the timeseries workload's default shape) against the real server
// (BENCHTOP_INFLUX_URL), on a fresh database dropped at the end: allocs/op
// and the client's cpu-us/op, per batch. The bodies are built before the
// timer starts; later rounds write the same points again, which InfluxDB
// stores once.
//
//	go test -run x -bench WriteLines -benchmem ./adapters/influx/
func BenchmarkWriteLines(b *testing.B) {
	db := openTest(b, nil)
	const batch = 5000
	bodies := make([][]byte, 8)
	base := time.Now().UnixNano()
	for i := range bodies {
		var buf []byte
		for j := range batch {
			buf = append(buf, "cpu,host=host"...)
			buf = strconv.AppendInt(buf, int64(1000+j%100), 10)
			buf = append(buf, ",region=region0"...)
			buf = strconv.AppendInt(buf, int64(j/100%10), 10)
			buf = append(buf, ",run=benchtop usage_user=12.345678,usage_system=23.456789,usage_idle=64.197533 "...)
			buf = strconv.AppendInt(buf, base+int64(i*batch+j), 10)
			buf = append(buf, '\n')
		}
		bodies[i] = buf
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.SetBytes(int64(len(bodies[0])))
	cpu0 := adaptertest.CPUTime()
	n := 0
	for b.Loop() {
		if err := db.WriteLines(ctx, bodies[n%len(bodies)], batch); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64((adaptertest.CPUTime()-cpu0).Nanoseconds())/float64(n)/1e3, "cpu-us/op")
}
