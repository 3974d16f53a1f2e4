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
	// The service escapes the time's colons (%3A) and nothing else: read
	// that form without an unescaped copy or time.Parse, as every write's
	// ETag carries one.
	if len(s) <= 40 {
		var buf [30]byte
		b := buf[:0]
		for i := 0; i < len(s); i++ {
			if s[i] == '%' && i+2 < len(s) && s[i+1] == '3' && (s[i+2] == 'A' || s[i+2] == 'a') {
				b = append(b, ':')
				i += 2
				continue
			}
			if s[i] == '%' || s[i] == '+' || len(b) == len(buf) {
				b = nil
				break
			}
			b = append(b, s[i])
		}
		if b != nil {
			if ts, ok := ParseServiceTime(string(b)); ok {
				return ts
			}
		}
	}
	raw, err := url.QueryUnescape(s)
	if err != nil {
		return time.Time{}
	}
	ts, err := time.Parse(time.RFC3339Nano, raw)
	if err != nil {
		return time.Time{}
	}
	return ts.UTC()
}
