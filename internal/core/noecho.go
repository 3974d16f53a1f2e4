package core

import (
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/internal/opdesc"
)

// NoEcho is the no-echo policy of aztables clients: it asks the service
// not to send an inserted entity back (Prefer: return-no-content), which
// aztables' AddEntity would download again. It knows an insert by the
// request's description (opdesc.Of). A Prefer header set by the caller
// wins. Package table installs it on the clients it configures unless
// Options.EchoInserts; tablekit's own inserts carry the header from the
// start (Config.EchoInserts), one policy fewer on their pipelines.
type NoEcho struct{}

// Do implements policy.Policy.
func (NoEcho) Do(req *policy.Request) (*http.Response, error) {
	r := req.Raw()
	if r.Header.Get("Prefer") == "" && opdesc.Of(req).Kind == opdesc.Insert {
		r.Header["Prefer"] = []string{preferNoContent}
	}
	return req.Next()
}
