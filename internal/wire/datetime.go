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

// ParseServiceTime reads the form the service writes every time in,
// 2006-01-02T15:04:05.9999999Z (0 to 9 fractional digits), as time.Parse
// reads it, at a fraction of its cost: a page holds one Timestamp per
// entity, and every write's ETag one. Anything else, a bad date included, is left to time.Parse
// (ok false), which says what is wrong.
func ParseServiceTime(s string) (t time.Time, ok bool) {
	n := len(s)
	if n < 20 || n == 21 || n > 30 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[n-1] != 'Z' || n > 20 && s[19] != '.' {
		return t, false
	}
	num := func(from, to int) int {
		v := 0
		for _, c := range []byte(s[from:to]) {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(0, 4), num(5, 7), num(8, 10)
	hour, minute, sec := num(11, 13), num(14, 16), num(17, 19)
	nsec := 0
	if n > 20 {
		if nsec = num(20, n-1); nsec < 0 {
			return t, false
		}
		for range 30 - n { // scale the 1 to 9 digits to nanoseconds
			nsec *= 10
		}
	}
	if year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(month, year) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 {
		return t, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// daysIn is the number of days of a month (1 to 12) of the Gregorian
// calendar.
func daysIn(month, year int) int {
	if month == 2 {
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 30 + (month+month/8)%2
}
