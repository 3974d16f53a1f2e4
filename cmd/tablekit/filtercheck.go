package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// The service compares a property only with a literal of the property's
// own EDM type: N eq 5 against an Int64 N matches nothing (5L would), so a
// delete --filter with the wrong literal deletes nothing, silently. A typed
// query checks its literals against the Go type's fields; the command has
// no Go type, so it reads a few entities of the scan's scope (one request,
// only the properties the filter names) and compares each literal's type
// with the types the property has there.

// filterSample is how many entities the check reads, in one request.
const filterSample = 100

// comparison is a property compared with a literal in --filter.
type comparison struct {
	prop, literal string
	typ           string // the literal's EDM type (edmInt32, ...); "" when its form does not say
}

// checkFilter reports the comparisons of raw whose literal's type is not a
// type that property has in the table, before the command acts. Keys and
// Timestamp have their types without a read.
func checkFilter(ctx context.Context, svc *table.Service, tableName string, scope query.Filter, raw string) error {
	comps := comparisons(raw)
	types := map[string]map[string]bool{
		"PartitionKey": {edmString: true}, "RowKey": {edmString: true}, "Timestamp": {edmDateTime: true},
	}
	var names []string
	for _, c := range comps {
		if _, ok := types[c.prop]; !ok && wire.CheckPropertyName(c.prop) == nil {
			types[c.prop] = map[string]bool{}
			names = append(names, c.prop)
		}
	}
	if len(names) > 0 {
		t, err := table.New[table.Entity](svc, tableName)
		if err != nil {
			return err
		}
		q := query.New(t).Where(scope).Select(names...).PageSize(filterSample).Limit(filterSample)
		for e, err := range q.All(ctx) {
			if err != nil {
				return fmt.Errorf("reading a few entities to check --filter's literals (--check-filter=false skips it): %w", err)
			}
			for _, n := range names {
				if v, ok := e.Properties[n]; ok {
					if typ, _, err := formatValue(v); err == nil {
						types[n][typ] = true
					}
				}
			}
		}
	}
	var bad []string
	for _, c := range comps {
		seen := types[c.prop]
		if c.typ == "" || len(seen) == 0 || seen[c.typ] {
			continue
		}
		var have []string
		for _, t := range edmTypes {
			if seen[t] {
				have = append(have, "Edm."+t)
			}
		}
		msg := fmt.Sprintf("%s is compared with %s, an Edm.%s literal, but %s is %s in the table", c.prop, c.literal, c.typ, c.prop, strings.Join(have, " or "))
		if len(have) == 1 {
			if s, ok := convertLiteral(c, strings.TrimPrefix(have[0], "Edm.")); ok {
				msg += fmt.Sprintf(" (write %s)", s)
			}
		}
		bad = append(bad, msg)
	}
	if len(bad) > 0 {
		return usagef("--filter: %s. The service compares a property only with a literal of its own type, so this would match nothing; --check-filter=false skips this check", strings.Join(bad, "; "))
	}
	return nil
}

// comparisons finds the comparisons of a property with a literal in an
// OData filter, either way round. It reads the literal forms the service
// takes; what it does not recognize it leaves to the service.
func comparisons(f string) []comparison {
	toks := filterTokens(f)
	var out []comparison
	for i := 0; i+2 < len(toks); i++ {
		a, op, b := toks[i], toks[i+1], toks[i+2]
		if op.kind != tokCompare {
			continue
		}
		switch {
		case a.kind == tokName && b.kind == tokLiteral:
			out = append(out, comparison{a.text, b.text, b.typ})
		case a.kind == tokLiteral && b.kind == tokName:
			out = append(out, comparison{b.text, a.text, a.typ})
		}
	}
	return out
}

type tokKind uint8

const (
	tokOther tokKind = iota
	tokName
	tokCompare
	tokLiteral
)

type token struct {
	kind tokKind
	text string
	typ  string // of a literal
}

// filterTokens splits an OData filter into names, comparison operators,
// literals (typed by their form) and the rest.
func filterTokens(f string) []token {
	var toks []token
	for i := 0; i < len(f); {
		r, size := utf8.DecodeRuneInString(f[i:])
		start := i
		switch {
		case unicode.IsSpace(r):
			i += size
			continue
		case r == '\'':
			i = quotedEnd(f, i)
			toks = append(toks, token{tokLiteral, f[start:i], edmString})
		case r >= '0' && r <= '9' || r == '-' && i+1 < len(f) && f[i+1] >= '0' && f[i+1] <= '9':
			i++
			for i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == '.' || f[i] == 'e' || f[i] == 'E' ||
				(f[i] == '+' || f[i] == '-') && (f[i-1] == 'e' || f[i-1] == 'E')) {
				i++
			}
			if i < len(f) && strings.ContainsRune("LlDdFfMm", rune(f[i])) {
				i++
			}
			toks = append(toks, token{tokLiteral, f[start:i], numberType(f[start:i])})
		case r == '-' && strings.HasPrefix(f[i:], "-INF"):
			i += len("-INF")
			toks = append(toks, token{tokLiteral, f[start:i], edmDouble})
		case r == '_' || unicode.IsLetter(r):
			for i < len(f) {
				r, size := utf8.DecodeRuneInString(f[i:])
				if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
					break
				}
				i += size
			}
			word := f[start:i]
			if i < len(f) && f[i] == '\'' {
				i = quotedEnd(f, i)
				toks = append(toks, token{tokLiteral, f[start:i], prefixedType(word)})
				continue
			}
			toks = append(toks, wordToken(word))
		default:
			i += size
			toks = append(toks, token{tokOther, f[start:i], ""})
		}
	}
	return toks
}

// quotedEnd returns the end of the quoted text starting at f[i] (a doubled
// quote is a quote inside it), or len(f) if it is not closed.
func quotedEnd(f string, i int) int {
	for i++; i < len(f); i++ {
		if f[i] == '\'' {
			if i+1 < len(f) && f[i+1] == '\'' {
				i++
				continue
			}
			return i + 1
		}
	}
	return len(f)
}

// numberType is the EDM type of a number literal by its form: 5 Int32,
// 5L Int64, 5.0, 5e3 and 5d Double; "" for an integer beyond Int32 without
// its L, whose type the form does not settle.
func numberType(s string) string {
	if s == "" {
		return ""
	}
	switch s[len(s)-1] {
	case 'L', 'l':
		return edmInt64
	case 'D', 'd', 'F', 'f', 'M', 'm':
		return edmDouble
	}
	if strings.ContainsAny(s, ".eE") {
		return edmDouble
	}
	if _, err := strconv.ParseInt(s, 10, 32); err == nil {
		return edmInt32
	}
	return ""
}

// prefixedType is the EDM type of a literal written prefix'...'.
func prefixedType(prefix string) string {
	switch strings.ToLower(prefix) {
	case "datetime":
		return edmDateTime
	case "guid":
		return edmGUID
	case "x", "binary":
		return edmBinary
	}
	return ""
}

func wordToken(w string) token {
	switch strings.ToLower(w) {
	case "eq", "ne", "gt", "ge", "lt", "le":
		return token{tokCompare, w, ""}
	case "and", "or", "not":
		return token{tokOther, w, ""}
	case "true", "false":
		return token{tokLiteral, w, edmBoolean}
	}
	if w == "NaN" || w == "INF" {
		return token{tokLiteral, w, edmDouble}
	}
	return token{tokName, w, ""}
}

// convertLiteral writes c's literal as a literal of type typ, when its
// value converts without loss; query's constructors write the form.
func convertLiteral(c comparison, typ string) (string, bool) {
	lit := c.literal
	switch c.typ {
	case edmInt32, edmInt64, edmDouble:
		f, err := parseDouble(strings.TrimRight(lit, "LlDdFfMm"))
		if err != nil {
			return "", false
		}
		whole := f == math.Trunc(f) && !math.IsInf(f, 0)
		switch {
		case typ == edmInt32 && whole && f >= math.MinInt32 && f <= math.MaxInt32:
			return query.Int32(int32(f)).String(), true
		case typ == edmInt64 && whole && math.Abs(f) < 1<<53:
			return query.Int64(int64(f)).String(), true
		case typ == edmDouble:
			return query.Double(f).String(), true
		}
	case edmString:
		s := strings.ReplaceAll(lit[1:max(1, len(lit)-1)], "''", "'")
		switch typ {
		case edmDateTime:
			for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
				if t, err := time.Parse(layout, s); err == nil {
					return query.DateTime(t).String(), true
				}
			}
		case edmGUID:
			if g, err := table.ParseGUID(s); err == nil {
				return query.GUID(g).String(), true
			}
		case edmInt32, edmInt64, edmDouble:
			return convertLiteral(comparison{c.prop, s, numberType(s)}, typ)
		}
	}
	if typ == edmString && c.typ != edmString {
		return query.String(lit).String(), true
	}
	return "", false
}
