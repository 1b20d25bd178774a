package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// Export writes a text report (WriteText's output) through YCSB's
// measurements exporter named kind, in that exporter's exact shape:
//
//   - "text" (TextMeasurementsExporter, the default): the report as it is,
//     "[SECTION], name, value" lines and benchtop's comment lines;
//   - "json" (JSONMeasurementsExporter): one pretty-printed object per
//     measurement line, {"metric", "measurement", "value"}, objects
//     separated by a space, as Jackson 1.9's DefaultPrettyPrinter writes
//     root values (the file is a sequence of objects, not one document);
//   - "jsonarray" (JSONArrayMeasurementsExporter): the same objects in
//     one array, "[ {...}, {...} ]".
//
// The JSON exporters carry the measurement lines only, in report order:
// comments (run metadata, segments, verdicts) are in --json.
func Export(w io.Writer, report []byte, kind string) error {
	switch kind {
	case "", "text":
		_, err := w.Write(report)
		return err
	case "json", "jsonarray":
	default:
		return fmt.Errorf("exporter %q: not one of text, json, jsonarray", kind)
	}
	bw := bufio.NewWriter(w)
	if kind == "jsonarray" {
		bw.WriteString("[")
	}
	n := 0
	sc := bufio.NewScanner(bytes.NewReader(report))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		metric, measurement, value, ok := splitMeasurement(sc.Text())
		if !ok {
			continue
		}
		switch {
		case kind == "jsonarray" && n > 0:
			bw.WriteString(", ")
		case kind == "jsonarray":
			bw.WriteString(" ")
		case n > 0:
			bw.WriteString(" ") // Jackson's root value separator
		}
		fmt.Fprintf(bw, "{\n  \"metric\" : %s,\n  \"measurement\" : %s,\n  \"value\" : %s\n}",
			jsonString(metric), jsonString(measurement), jsonValue(value))
		n++
	}
	if kind == "jsonarray" {
		bw.WriteString(" ]")
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	return bw.Flush()
}

// splitMeasurement splits "[metric], measurement, value".
func splitMeasurement(l string) (metric, measurement, value string, ok bool) {
	if !IsMeasurementLine(l) {
		return "", "", "", false
	}
	end := strings.Index(l, "], ")
	metric, rest := l[1:end], l[end+3:]
	i := strings.LastIndex(rest, ", ")
	return metric, rest[:i], rest[i+2:], true
}

// javaNumber is a number as Java prints a long or a double.
var javaNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+(E-?[0-9]+)?)?$`)

// jsonValue writes a value as Jackson writes the exporter's numbers: a
// long or a double as printed (Double.toString), NaN and the infinities
// quoted (Jackson's QUOTE_NON_NUMERIC_NUMBERS), anything else as a string.
func jsonValue(v string) string {
	if javaNumber.MatchString(v) {
		return v
	}
	return jsonString(v)
}

// jsonString quotes s as Jackson does: no HTML escaping.
func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
