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
	f := t.Nanosecond() / 100 // seven digits
	// Two digits at a time, into the layout's bytes: a digit each, with a
	// division per digit, took half again as long.
	a := [len(DateTimeLayout)]byte{4: '-', 7: '-', 10: 'T', 13: ':', 16: ':', 19: '.', 27: 'Z'}
	put2(a[0:], y/100%100)
	put2(a[2:], y%100)
	put2(a[5:], int(mo))
	put2(a[8:], d)
	put2(a[11:], h)
	put2(a[14:], mi)
	put2(a[17:], s)
	put2(a[20:], f/100000)
	put2(a[22:], f/1000%100)
	put2(a[24:], f/10%100)
	a[26] = byte('0' + f%10)
	return append(b, a[:]...)
}

// put2 writes n (0 to 99) as two digits.
func put2(a []byte, n int) {
	a[0], a[1] = digitPairs[2*n], digitPairs[2*n+1]
}

const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839" +
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879" +
	"8081828384858687888990919293949596979899"

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
