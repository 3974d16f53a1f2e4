package wire

import "time"

// DateTimeLayout is how Edm.DateTime values are written, Timestamp among
// them: UTC with seven fractional digits, the service's 100 ns resolution.
const DateTimeLayout = "2006-01-02T15:04:05.0000000Z"

// AppendDateTime appends t in UTC as DateTimeLayout writes it, for the
// years Edm.DateTime holds (1601 to 9999; the caller checks), without
// parsing the layout for each value: every entity of an export has a
// Timestamp.
func AppendDateTime(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	h, mi, s := t.Clock()
	b = appendDigits(b, y, 4)
	b = append(b, '-')
	b = appendDigits(b, int(mo), 2)
	b = append(b, '-')
	b = appendDigits(b, d, 2)
	b = append(b, 'T')
	b = appendDigits(b, h, 2)
	b = append(b, ':')
	b = appendDigits(b, mi, 2)
	b = append(b, ':')
	b = appendDigits(b, s, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/100, 7)
	return append(b, 'Z')
}

// appendDigits writes n (>= 0) zero-padded to width digits.
func appendDigits(b []byte, n, width int) []byte {
	var t [10]byte
	for i := width - 1; i >= 0; i-- {
		t[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, t[:width]...)
}
