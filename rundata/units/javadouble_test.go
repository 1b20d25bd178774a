package units

import (
	"math"
	"testing"
)

func TestJavaDouble(t *testing.T) {
	cases := map[float64]string{
		98:                 "98.0",
		279.56388034665923: "279.56388034665923",
		1e7:                "1.0E7",
		12345678:           "1.2345678E7",
		0.001:              "0.001",
		0.000999:           "9.99E-4",
		0:                  "0.0",
		-2.5:               "-2.5",
		9999999.5:          "9999999.5",
		math.NaN():         "NaN",
		math.Inf(1):        "Infinity",
		math.Inf(-1):       "-Infinity",
		0.0004:             "4.0E-4",
	}
	for in, want := range cases {
		if got := JavaDouble(in); got != want {
			t.Errorf("JavaDouble(%v) = %q, want %q", in, got, want)
		}
	}
}
