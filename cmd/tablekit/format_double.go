package main

import (
	"math"
	"strconv"
	"strings"

	"github.com/tablekit/tablekit/internal/wire"
)

// The service stores NaN and the infinities as Edm.Double values, which
// JSON numbers cannot hold: the command writes them in wire's forms (the
// strings Microsoft's SDKs write, with the Edm.Double annotation in JSON
// Lines) and reads every spelling in CSV.

// formatDouble is f's CSV text: the shortest that reads back exactly, or
// NaN, Infinity or -Infinity.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return wire.DoubleNaN
	case math.IsInf(f, 1):
		return wire.DoublePosInf
	case math.IsInf(f, -1):
		return wire.DoubleNegInf
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// parseDouble reads a CSV cell: a number, or NaN, INF, -INF, Infinity or
// -Infinity in any case (strconv.ParseFloat's spellings include them all,
// and "+Inf" of older exports). A finite number too large for a float64
// is an error, not an infinity.
func parseDouble(s string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}
