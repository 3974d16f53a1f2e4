package codec

import (
	"strings"
	"testing"
)

// TestNumberInRange holds the range check without a value to
// strconv's reading of the same JSON numbers, around where float64 ends.
func TestNumberInRange(t *testing.T) {
	nines := func(n int) string { return strings.Repeat("9", n) }
	for _, num := range []string{
		"0", "-0", "15.91", "-1.5", "1e308", "1.7976931348623157e308", "1.8e308", "-1e309", "1E400",
		"1e-400", "0.5e-10",
		nines(299), "-" + nines(298), nines(308), nines(309), "-" + nines(309), nines(400),
		"0." + nines(400), nines(200) + "." + nines(200),
	} {
		_, want := parseNumber(num)
		if got := numberInRange(num); got != want {
			t.Errorf("numberInRange(%.20q, %d characters) = %v, want %v (strconv)", num, len(num), got, want)
		}
	}
}
