package main

import (
	"context"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// checkFilter is the one check of --filter, for every command that takes
// one: a name that no entity read has (a typo matches nothing, so a
// delete deletes nothing, an export writes an empty file, silently), and
// a literal of another EDM type than the property has. A typed query
// checks its literals against the Go type's fields; the command has no Go
// type, so it reads a sample of the scope first (one request) into a
// shape, as schema does, and checks the filter against it. The sample is
// of the command's scope and the key comparisons the filter requires.
//
// What a literal of another type does is documented only as a condition:
// "Querying tables and entities" (Table service REST reference,
// Constructing filter strings) says the constant must have the
// property's data type for the filter to return valid results. Measured on
// Azurite 3.37.0 (a table holding Int32, Int64, Double and String
// properties of 0 to 900): an Int32 literal against a Double property and
// a Double literal against an Int32 one compare the numbers (D gt 500,
// I eq 500.0 match what 500.0 and 500 would); an Int64 literal against an
// Int32 or Double property fails with status 500; against an Int64
// property an Int32 literal matches for gt but nothing for eq; against a
// String property an Int32 literal matches nothing for eq. So the check
// says what is documented, not what the service would match.

// filterSample is how many entities of the scope the check reads: one
// page of the service's largest, so one request.
const filterSample = query.MaxPageSize

// typeRule is the documented rule the check enforces (see above).
const typeRule = "the service's documentation promises valid results only for a literal of the property's own type"

// comparison is a property compared with a literal in --filter.
type comparison struct {
	prop, literal string
	typ           string // the literal's EDM type (edmInt32, ...); "" when its form does not say
}

// systemTypes are the types of the properties every entity has.
var systemTypes = map[string]string{"PartitionKey": edmString, "RowKey": edmString, "Timestamp": edmDateTime}

// checkFilter checks raw against a sample of the entities of scope, before
// the command acts; keys and Timestamp need no read. Backup or any other
// command that takes --filter calls it the same way.
func checkFilter(ctx context.Context, svc *table.Service, tableName string, scope query.Filter, raw string) error {
	var sh *shape
	for _, n := range filterNames(raw) {
		if _, ok := systemTypes[n]; !ok {
			var err error
			if sh, err = sampleShape(ctx, svc, tableName, query.And(scope, keyScope(raw)), filterSample); err != nil {
				return fmt.Errorf("reading a sample of the table to check --filter (--check-filter=false skips it): %w", err)
			}
			break
		}
	}
	return filterFindings(raw, sh)
}

// keyScope is the key comparisons (with a string) that raw asks of every
// entity it matches, when raw is a conjunction (no or, no not): the sample
// then reads where the filter reads, such as one partition of a table
// that keeps other kinds of entities in others. Empty otherwise.
func keyScope(raw string) query.Filter {
	toks := filterTokens(raw)
	for _, t := range toks {
		if t.kind == tokOther && (strings.EqualFold(t.text, "or") || strings.EqualFold(t.text, "not")) {
			return query.And()
		}
	}
	var fs []query.Filter
	for i := 0; i+2 < len(toks); i++ {
		a, op, b := toks[i], toks[i+1], toks[i+2]
		if op.kind == tokCompare && (a.text == "PartitionKey" || a.text == "RowKey") && a.kind == tokName && b.kind == tokLiteral && b.typ == edmString {
			fs = append(fs, query.Raw(a.text+" "+strings.ToLower(op.text)+" "+b.text))
		}
	}
	return query.And(fs...)
}

// sampleShape reads the shape of up to n entities of scope, in one
// request when n is at most a page.
func sampleShape(ctx context.Context, svc *table.Service, tableName string, scope query.Filter, n int) (*shape, error) {
	raw, err := table.New[table.RawEntity](svc, tableName)
	if err != nil {
		return nil, err
	}
	dyn, err := table.New[table.Entity](svc, tableName)
	if err != nil {
		return nil, err
	}
	sh := newShape(svc.Backend() != table.CosmosDB, nil)
	for e, err := range query.New(raw).Where(scope).PageSize(min(n, query.MaxPageSize)).Limit(n).All(ctx) {
		if err == nil {
			err = sh.addRaw(dyn, e)
		}
		if err != nil {
			return nil, err
		}
	}
	return sh, nil
}

// filterFindings is the check of raw against sh (nil: nothing read, only
// the system properties known): a usage error naming every name no entity
// of sh has, with the nearest that one has, and every literal whose type
// is not one its property has there, with the literal to write.
func filterFindings(raw string, sh *shape) error {
	var bad []string
	if sh != nil && sh.entities > 0 {
		for _, n := range filterNames(raw) {
			if _, ok := systemTypes[n]; ok || sh.props[n] != nil {
				continue
			}
			msg := fmt.Sprintf("%s: no entity has it (of the %d read)", n, sh.entities)
			if near := nearestName(n, sh); near != "" {
				msg += fmt.Sprintf("; did you mean %s?", near)
			}
			bad = append(bad, msg)
		}
	}
	typed := false
	for _, c := range comparisons(raw) {
		var have []string
		where := "in the entities read"
		if t, ok := systemTypes[c.prop]; ok {
			have, where = []string{t}, "always"
		} else if sh != nil {
			have = sh.types(c.prop)
		}
		if c.typ == "" || len(have) == 0 || slices.Contains(have, c.typ) {
			continue
		}
		msg := fmt.Sprintf("%s is %s %s, and %s is an Edm.%s literal", c.prop, "Edm."+strings.Join(have, " or Edm."), where, c.literal, c.typ)
		if len(have) == 1 {
			if s, ok := convertLiteral(c, have[0]); ok {
				msg += fmt.Sprintf(" (write %s)", s)
			}
		}
		bad = append(bad, msg)
		typed = true
	}
	if len(bad) == 0 {
		return nil
	}
	why := ""
	if typed {
		why = "; " + typeRule
	}
	return usagef("--filter: %s%s\n(--check-filter=false skips this check: for a property that is rare, or holds several types)", strings.Join(bad, "; "), why)
}

// filterNames is the property names raw uses, each once, in order.
func filterNames(raw string) []string {
	var names []string
	for _, t := range filterTokens(raw) {
		if t.kind == tokName && !slices.Contains(names, t.text) {
			names = append(names, t.text)
		}
	}
	return names
}

// nearestName is the name of sh (or a system property) that n was most
// likely meant to be: the same but for case, else the nearest within
// editDistance 2 (1 for names of up to 4 characters); "" for none.
func nearestName(n string, sh *shape) string {
	names := slices.Collect(maps.Keys(systemTypes))
	for p := range sh.props {
		names = append(names, p)
	}
	slices.Sort(names)
	best, bestD := "", 3
	if utf8.RuneCountInString(n) <= 4 {
		bestD = 2
	}
	for _, p := range names {
		if strings.EqualFold(p, n) {
			return p
		}
		if d := editDistance(strings.ToLower(n), strings.ToLower(p)); d < bestD {
			best, bestD = p, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b, in characters.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
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
