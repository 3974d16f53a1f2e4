package core

import (
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/internal/opdesc"
)

// NoEcho is the one no-echo mechanism: a pipeline policy that asks the
// service not to send an inserted entity back (Prefer: return-no-content),
// on tablekit's inserts and on an aztables client's alike (aztables'
// AddEntity would download every entity it inserts again). It knows an
// insert by the request's description (opdesc.Of). A Prefer header set by
// the caller wins. Package table installs it unless Options.EchoInserts.
type NoEcho struct{}

// Do implements policy.Policy.
func (NoEcho) Do(req *policy.Request) (*http.Response, error) {
	r := req.Raw()
	if r.Header.Get("Prefer") == "" && opdesc.Of(req).Kind == opdesc.Insert {
		r.Header["Prefer"] = []string{"return-no-content"}
	}
	return req.Next()
}
