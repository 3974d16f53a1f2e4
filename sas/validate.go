package sas

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/backend"
	"github.com/tablekit/tablekit/internal/wire"
)

// DefaultVersion is the signed version (sv) used when none is given: the
// newest version of the Table service REST API, which the service and Azurite
// accept. Its string-to-sign is the one documented for 2015-04-05 and later.
const DefaultVersion = "2019-02-02"

// DefaultClockSkew is how far Start is backdated when it is not set, so that
// a token is already valid on a service whose clock is a little behind the
// issuer's.
const DefaultClockSkew = 15 * time.Minute

// MaxPolicies is the number of stored access policies a table can hold.
const MaxPolicies = 5

const (
	timeLayout      = "2006-01-02T15:04:05Z" // what is signed and sent
	minVersion      = "2015-04-05"           // first version with the current layouts
	scopeVersion    = "2020-12-06"           // account SAS signs an encryption scope line from here
	maxIdentifierLn = 64
)

// formatTime converts to UTC and drops sub-second precision, which the
// format cannot carry; the result is exactly what is signed and sent.
func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// parseTime accepts the ISO 8601 UTC forms the service accepts for st and se.
func parseTime(field, s string) (time.Time, error) {
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04Z", "2006-01-02"} {
		var t time.Time
		if t, err = time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	// time.ParseError quotes the input: keep only the rule.
	return time.Time{}, invalid(field, "not an ISO 8601 UTC time (such as 2025-06-01T12:00:00Z)")
}

func checkVersion(field, v string) error {
	if _, err := time.Parse("2006-01-02", v); err != nil {
		return invalid(field, "must be a service version such as "+DefaultVersion)
	}
	if v < minVersion {
		return invalid(field, "versions before "+minVersion+" are not supported")
	}
	return nil
}

// checkTableName applies the service's table name rules (wire.CheckTableName).
func checkTableName(field, name string) error {
	if bad := wire.CheckTableName(name); bad != nil {
		return invalid(field, bad.Rule)
	}
	return nil
}

// checkKey applies the rules for PartitionKey and RowKey values
// (wire.CheckKey, and the longest key of any backend: a signature names no
// backend), so that a range can name any key a table can hold.
func checkKey(field, k string) error {
	if bad := wire.CheckKey(k); bad != nil {
		return invalid(field, bad.Rule)
	}
	lim := backend.Lenient().PartitionKey
	if strings.HasSuffix(field, "RowKey") {
		lim = backend.Lenient().RowKey
	}
	if !lim.Fits(k) {
		return invalid(field, fmt.Sprintf("key too long (%d %s, at most %d)", lim.Len(k), lim.Unit, lim.Max))
	}
	return nil
}

func checkIdentifier(field, id string) error {
	if id == "" {
		return invalid(field, "must not be empty")
	}
	if utf8.RuneCountInString(id) > maxIdentifierLn {
		return invalid(field, "longer than 64 characters")
	}
	if !utf8.ValidString(id) {
		return invalid(field, "not valid UTF-8")
	}
	// The string-to-sign is newline-separated: a control character could
	// shift or forge the lines after it.
	if strings.ContainsFunc(id, isControl) {
		return invalid(field, "contains a control character")
	}
	return nil
}

// isControl reports the C0 and C1 control characters and DEL.
func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }

// window resolves start and expiry: both UTC and truncated to the second,
// start backdated by skew when unset and backdate is true (a negative skew
// leaves it unset). An empty result means the field is not sent.
func window(start, expiry time.Time, skew time.Duration, backdate bool, now func() time.Time) (st, se string, err error) {
	if start.IsZero() && backdate && skew >= 0 {
		if skew == 0 {
			skew = DefaultClockSkew
		}
		start = now().Add(-skew)
	}
	start = start.UTC().Truncate(time.Second)
	expiry = expiry.UTC().Truncate(time.Second)
	for _, f := range []struct {
		name string
		t    time.Time
	}{{"Start", start}, {"Expiry", expiry}} {
		if !f.t.IsZero() && (f.t.Year() < 1 || f.t.Year() > 9999) {
			return "", "", invalid(f.name, "year outside 0001-9999")
		}
	}
	if !start.IsZero() && !expiry.IsZero() && !expiry.After(start) {
		return "", "", invalid("Expiry", "must be after Start (compared in whole UTC seconds)")
	}
	if !start.IsZero() {
		st = formatTime(start)
	}
	if !expiry.IsZero() {
		se = formatTime(expiry)
	}
	return st, se, nil
}
