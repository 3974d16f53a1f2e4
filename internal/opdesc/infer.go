package opdesc

import (
	"net/http"
	"net/url"
	"path"
	"strings"
)

// Infer describes a request that carries no Desc from its method, path and
// If-Match: a request an aztables client built (users' own code with
// table.ClientOptions, tablekit's management calls), whose call tablekit
// does not see. Requests tablekit builds always carry their Desc.
func Infer(req *http.Request) Desc {
	if req == nil || req.URL == nil {
		return Desc{}
	}
	seg := lastSegment(req.URL)
	entity := entityPath(seg)
	ifMatch := req.Header.Get("If-Match")
	conditional := ifMatch != "" && ifMatch != "*"
	merge := req.Method == http.MethodPatch ||
		req.Method == http.MethodPost && entity && strings.EqualFold(req.Header.Get("X-HTTP-Method"), "MERGE")
	switch {
	case req.Method == http.MethodPost && strings.EqualFold(seg, "Tables"):
		return Desc{Kind: TableCreate}
	case req.Method == http.MethodPost && seg == "$batch":
		return Desc{Kind: Transaction}
	case req.Method == http.MethodPost && !entity && seg != "":
		return Desc{Kind: Insert, Entities: 1}
	case entity && (req.Method == http.MethodPut || merge):
		if ifMatch == "" {
			return Desc{Kind: Upsert, Entities: 1, Merge: merge}
		}
		return Desc{Kind: Update, Entities: 1, Merge: merge, Conditional: conditional}
	case entity && req.Method == http.MethodDelete:
		return Desc{Kind: Delete, Entities: 1, Conditional: conditional}
	case entity && req.Method == http.MethodGet:
		return Desc{Kind: Get}
	case strings.HasSuffix(seg, "()") && req.Method == http.MethodGet:
		return Desc{Kind: QueryPage}
	}
	return Desc{write: req.Method != http.MethodGet && req.Method != http.MethodHead, method: lowerMethod(req.Method)}
}

func lastSegment(u *url.URL) string {
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		return ""
	}
	return path.Base(p)
}

// entityPath reports a last path segment table(PartitionKey='...',RowKey='...'),
// not Tables('name') (a table's own path) nor table() (its query).
func entityPath(seg string) bool {
	open := strings.IndexByte(seg, '(')
	return open > 0 && strings.HasSuffix(seg, ")") && len(seg) > open+2 && !strings.EqualFold(seg[:open], "Tables")
}
