package cosmos

import (
	"net/http"
	"strings"
)

// path is a request path of the Table API, host-style (no account):
// "/Tables", "/$batch", "/t", "/t()" or "/t(PartitionKey='p',RowKey='r')".
type path struct {
	table  string // "Tables", "$batch", a table name, or "" for the service
	parens bool   // the path has "(...)" after the table
	keyed  bool   // and the parentheses hold both keys
	pk, rk string // the keys, unescaped ('' is ')
}

// parsePath reads a decoded URL path.
func parsePath(p string) path {
	seg := strings.TrimPrefix(p, "/")
	if strings.Contains(seg, "/") {
		return path{table: seg} // not a Table API path; forwarded as it is
	}
	name, args, parens := strings.Cut(seg, "(")
	out := path{table: name, parens: parens}
	if !parens {
		return out
	}
	args, ok := strings.CutSuffix(args, ")")
	if !ok || args == "" {
		return out
	}
	pk, rest, ok := quoted(args, "PartitionKey=")
	if !ok || !strings.HasPrefix(rest, ",") {
		return out
	}
	rk, rest, ok := quoted(rest[1:], "RowKey=")
	if !ok || rest != "" {
		return out
	}
	out.keyed, out.pk, out.rk = true, pk, rk
	return out
}

// quoted reads name'value' at the start of s, where ” inside the quotes is
// one quote, and returns the value and what follows it.
func quoted(s, name string) (value, rest string, ok bool) {
	s, ok = strings.CutPrefix(s, name+"'")
	if !ok {
		return "", "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		return b.String(), s[i+1:], true
	}
	return "", "", false
}

// entityQuery reports a Query Entities path: a table, not keyed.
func (p path) entityQuery() bool {
	return p.table != "" && !strings.EqualFold(p.table, "Tables") && p.table != "$batch" && !p.keyed &&
		!strings.Contains(p.table, "/")
}

// isMerge reports a merge: PATCH, MERGE, or POST with X-HTTP-Method: MERGE
// (the form aztables sends to Cosmos DB).
func isMerge(method string, h http.Header) bool {
	return method == http.MethodPatch || method == "MERGE" ||
		(method == http.MethodPost && strings.EqualFold(strings.TrimSpace(h.Get("X-HTTP-Method")), "MERGE"))
}

// isEntityWrite reports a request that writes an entity: an insert (POST to
// a table) or an update, upsert or merge of one keyed entity.
func isEntityWrite(r *http.Request, p path) bool {
	if p.keyed {
		return r.Method == http.MethodPut || isMerge(r.Method, r.Header)
	}
	return r.Method == http.MethodPost && p.entityQuery() && !p.parens
}
