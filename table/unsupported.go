package table

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/backend"
)

// notSupported is the tablekit.ErrUnsupported error of op, which needs what the
// backend of prof does not have.
func notSupported(prof backend.Profile, op, what string) error {
	return fmt.Errorf("%w: %s: %s has no %s", tablekit.ErrUnsupported, op, prof.Kind, what)
}

// lacks names the call r makes when the backend of prof does not have it:
// the operation as errors name it and what is missing; "" for any other
// request.
func lacks(prof backend.Profile, r *http.Request) (op, what string) {
	q := r.URL.Query()
	set := r.Method == http.MethodPut
	switch {
	case q.Get("restype") == "service" && q.Get("comp") == "properties" && !prof.ServiceProperties:
		if set {
			return "set service properties", "service properties"
		}
		return "get service properties", "service properties"
	case q.Get("restype") == "service" && q.Get("comp") == "stats" && !prof.ServiceStats:
		return "get service stats", "service stats"
	case q.Get("comp") == "acl" && !prof.AccessPolicies:
		if set {
			return "set access policy", "stored access policies"
		}
		return "get access policy", "stored access policies"
	}
	return "", ""
}

// unsupportedPolicy refuses, before anything is sent, the calls of an
// aztables client that its backend (Options.Backend, or the request's
// host) does not have: service properties and stats, table ACLs. It runs
// before the retry policy, so the refusal is final.
type unsupportedPolicy struct{ kind backend.Kind }

func (p unsupportedPolicy) Do(req *policy.Request) (*http.Response, error) {
	r := req.Raw()
	if !strings.Contains(r.URL.RawQuery, "comp=") {
		return req.Next()
	}
	prof, err := backend.For(r.URL.String(), p.kind)
	if err != nil {
		return nil, err
	}
	if op, what := lacks(prof, r); op != "" {
		return nil, notSupported(prof, op, what)
	}
	return req.Next()
}
