// Package reqshape recognises, from method, path and If-Match, the Table
// service requests that get special treatment: entity inserts, conditional
// updates and deletes (retrying one after a lost response can collide with
// itself; the service also echoes inserts unless asked not to) and table
// creates (a name still being deleted frees up later). Package retry and
// package table both need these facts; they are defined here once. It
// also defines the one mark a sender puts on a request for the retry
// policy: SingleAttempt.
package reqshape

import (
	"net/http"
	"net/url"
	"path"
	"strings"
)

// TableCreate reports a Create Table request: POST to .../Tables.
func TableCreate(req *http.Request) bool {
	return req != nil && req.Method == http.MethodPost && strings.EqualFold(lastSegment(req.URL), "Tables")
}

// EntityInsert reports an Insert Entity request: POST to a table's path,
// that is neither Create Table (.../Tables) nor a batch (.../$batch), nor
// a merge sent as POST to an entity's path (Cosmos DB's form, see
// entityMerge).
func EntityInsert(req *http.Request) bool {
	if req == nil || req.Method != http.MethodPost || entityMerge(req) {
		return false
	}
	seg := lastSegment(req.URL)
	return seg != "" && !strings.EqualFold(seg, "Tables") && seg != "$batch" && !entityPath(req.URL)
}

// entityMerge reports a merge sent as POST with X-HTTP-Method: MERGE, as
// aztables and tablekit send every merge to Cosmos DB.
func entityMerge(req *http.Request) bool {
	return req.Method == http.MethodPost && strings.EqualFold(req.Header.Get("X-HTTP-Method"), "MERGE") && entityPath(req.URL)
}

func lastSegment(u *url.URL) string {
	if u == nil {
		return ""
	}
	p := strings.TrimSuffix(u.Path, "/")
	if p == "" {
		return ""
	}
	return path.Base(p)
}

// EntityUpdate reports a conditional Update or Merge Entity request: PUT or
// PATCH to an entity's path (or a merge as POST, entityMerge) with an
// If-Match other than "*". Without If-Match it is an upsert, and with "*"
// it cannot fail a precondition.
func EntityUpdate(req *http.Request) bool {
	if req == nil || !entityPath(req.URL) {
		return false
	}
	if req.Method != http.MethodPut && req.Method != http.MethodPatch && !entityMerge(req) {
		return false
	}
	m := req.Header.Get("If-Match")
	return m != "" && m != "*"
}

// EntityDelete reports a Delete Entity request: DELETE to an entity's path.
func EntityDelete(req *http.Request) bool {
	return req != nil && req.Method == http.MethodDelete && entityPath(req.URL)
}

// entityPath reports a path ending in table(PartitionKey='...',RowKey='...'),
// not Tables('name') (a table's own path).
func entityPath(u *url.URL) bool {
	seg := lastSegment(u)
	open := strings.IndexByte(seg, '(')
	return open > 0 && strings.HasSuffix(seg, ")") && !strings.EqualFold(seg[:open], "Tables")
}
