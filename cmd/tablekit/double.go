package main

import (
	"math"
	"strconv"
	"strings"
)

// The service stores NaN and the infinities as Edm.Double values, which
// JSON numbers cannot hold. Microsoft's SDKs write them as the strings
// "NaN", "Infinity" and "-Infinity" (with the Edm.Double annotation), and
// OData spells them NaN, INF and -INF: the command writes the first forms
// in CSV and JSON Lines, and reads every one.

// formatDouble is f's text: the shortest that reads back exactly, or
// NaN, Infinity or -Infinity.
func formatDouble(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// appendDouble appends f as a JSON value: a number, or a string for NaN
// and the infinities.
func appendDouble(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		b = append(b, '"')
		b = append(b, formatDouble(f)...)
		return append(b, '"')
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// parseDouble reads a number, or NaN, INF, -INF, Infinity or -Infinity in
// any case (strconv.ParseFloat's spellings include them all). A finite
// number too large for a float64 is an error, not an infinity.
func parseDouble(s string) (float64, error) {
	return strconv.ParseFloat(strings.TrimSpace(s), 64)
}
