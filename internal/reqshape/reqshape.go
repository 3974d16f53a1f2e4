// Package reqshape recognises, from method and path alone, the Table service
// requests that get special treatment: entity inserts (retrying one can
// collide with itself, and the service echoes the entity unless asked not
// to) and table creates (a name still being deleted frees up later). Package
// retry and package table both need these facts; they are defined here once.
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
// that is neither Create Table (.../Tables) nor a batch (.../$batch).
func EntityInsert(req *http.Request) bool {
	if req == nil || req.Method != http.MethodPost {
		return false
	}
	seg := lastSegment(req.URL)
	return seg != "" && !strings.EqualFold(seg, "Tables") && seg != "$batch"
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
