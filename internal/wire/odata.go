package wire

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// MinimalMetadata is the JSON format aztables asks for (Accept, $format):
// types annotated where JSON alone would lose them, no links.
const MinimalMetadata = "application/json;odata=minimalmetadata"

// QuoteString returns s as an OData string literal: in single quotes, each
// single quote inside doubled, so that no value can end the literal early.
func QuoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// SelectList returns the $select value for names: PartitionKey and RowKey
// first, always (an entity cannot be decoded without them), then names in
// order with the keys left out. has tells which names are properties; the
// first name it refuses is an error.
func SelectList(names []string, has func(string) bool) (string, error) {
	var b strings.Builder
	b.WriteString("PartitionKey,RowKey")
	for _, n := range names {
		if n == "PartitionKey" || n == "RowKey" {
			continue
		}
		if !has(n) {
			return "", errors.New("select: " + strconv.Quote(n) + " is not a property")
		}
		b.WriteByte(',')
		b.WriteString(n)
	}
	return b.String(), nil
}

// TimestampFromETag returns the last-modified time the service puts in an
// entity's ETag, W/"datetime'2024-01-02T03%3A04%3A05.1234567Z'", or the
// zero time when the ETag has another form. Writes that return no entity
// carry their Timestamp only there. E is string or azcore.ETag.
func TimestampFromETag[E ~string](etag E) time.Time {
	_, s, ok := strings.Cut(string(etag), "datetime'")
	if !ok {
		return time.Time{}
	}
	s, _, ok = strings.Cut(s, "'")
	if !ok {
		return time.Time{}
	}
	// Unescaped on the stack: a transaction's reply has an ETag per
	// operation, and url.QueryUnescape allocates for each.
	var buf [32]byte
	raw, ok := queryUnescape(buf[:0], s)
	if !ok {
		u, err := url.QueryUnescape(s)
		if err != nil {
			return time.Time{}
		}
		raw = []byte(u)
	}
	if ts, ok := ParseServiceTime(string(raw)); ok {
		return ts // the service's form, without time.Parse
	}
	ts, err := time.Parse(time.RFC3339Nano, string(raw))
	if err != nil {
		return time.Time{}
	}
	return ts.UTC()
}

// queryUnescape appends s unescaped as url.QueryUnescape does it to dst
// while it fits in dst's capacity; ok is false for anything else (an
// escape it does not read, or no room), left to url.QueryUnescape.
func queryUnescape(dst []byte, s string) (_ []byte, ok bool) {
	for i := 0; i < len(s); i++ {
		if len(dst) == cap(dst) {
			return dst, false
		}
		switch c := s[i]; c {
		case '%':
			if i+2 >= len(s) {
				return dst, false
			}
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				return dst, false
			}
			dst = append(dst, hi<<4|lo)
			i += 2
		case '+':
			dst = append(dst, ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
