package cosmos

import (
	"net/http"
	"strings"
)

// The calls the Table API does not have, as Stats.Unsupported names them.
const (
	callProperties = "service properties"
	callStats      = "service stats"
	callACL        = "table acl"
	callCORS       = "cors"
	callSecondary  = "secondary"
)

// unsupported counts a call the Table API does not have.
func (s *Server) unsupported(call string) {
	s.mu.Lock()
	s.stats.Unsupported[call]++
	s.mu.Unlock()
}

// unsupportedCall names the call of r when the Table API does not have it.
func unsupportedCall(r *http.Request, account string) string {
	q := r.URL.Query()
	restype, comp := strings.ToLower(q.Get("restype")), strings.ToLower(q.Get("comp"))
	switch {
	case r.Method == http.MethodOptions:
		return callCORS
	case restype == "service" && comp == "properties":
		return callProperties
	case restype == "service" && comp == "stats":
		return callStats
	case comp == "acl":
		return callACL
	case strings.EqualFold(hostLabel(r.Host), account+"-secondary"):
		return callSecondary
	}
	return ""
}

// hostLabel is the first label of a Host header.
func hostLabel(host string) string {
	label, _, _ := strings.Cut(host, ".")
	return label
}
